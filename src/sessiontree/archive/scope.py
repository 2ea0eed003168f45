"""Which files an archive command covers: the session files under some folders."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sessiontree.archive.catalog import iter_session_files
from sessiontree.readers.discovery import iter_agent_files, root_agent


def list_session_files(roots: Sequence[Path]) -> dict[str, Path]:
    """Every session file under the roots, as the catalog lists them (symlinks leaving a root skipped).

    A Claude Code or Codex CLI folder is walked its own way (Codex nests YYYY/MM/DD; subagent
    transcripts belong to their session's file).
    """
    found: dict[str, Path] = {}
    for root in roots:
        foreign = root_agent(root) not in (None, "pi")
        paths = iter_agent_files(root) if foreign else (path for path, _ in iter_session_files(root))
        for path in paths:
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
