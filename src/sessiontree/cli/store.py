"""CLI commands: store."""

from __future__ import annotations

from sessiontree.cli.base import cli  # noqa: F401
