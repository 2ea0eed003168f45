"""Which files an archive command covers: the session files under some folders."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sessiontree.archive.catalog import iter_session_files


def list_session_files(roots: Sequence[Path]) -> dict[str, Path]:
    """Every session file under the roots, as the catalog lists them (symlinks leaving a root skipped;
    Claude Code and Codex CLI folders walked their own way)."""
    found: dict[str, Path] = {}
    for root in roots:
        for path, _parent in iter_session_files(root):
            found[str(path)] = path
    return found


def root_clause(roots: Sequence[Path], column: str) -> tuple[str, list[Any]]:
    """An SQL condition keeping paths under one of the roots, and its parameters."""
    if not roots:
        return "1", []
    parts, params = [], []
    for root in roots:
        prefix = str(root).rstrip(os.sep) + os.sep
        parts.append(f"substr({column}, 1, ?) = ?")
        params.extend([len(prefix), prefix])
    return "(" + " OR ".join(parts) + ")", params
