"""CLI commands: sessions (list, resume, continue, fork, move)."""

from __future__ import annotations

from sessiontree.cli.base import cli  # noqa: F401
