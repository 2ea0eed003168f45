"""Where OpenCode keeps its sessions and how it writes times: the rules discovery needs, without the reader.

A storage root (``~/.local/share/opencode/storage``) holds ``session/<projectID>/ses_….json``
and, beside ``session/``, ``message/``, ``part/`` and other folders that are read through their
session (``readers.opencode``), never walked for session files.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

STORAGE_FOLDERS = frozenset(
    {"message", "part", "session_diff", "todo", "project", "snapshot", "session_share"}
)
"""The folders beside ``session/`` in a storage root: read through their session, never walked."""


def is_session_path(path: Path) -> bool:
    """Tell whether a path is named like an OpenCode session file (``session/<project>/ses_….json``)."""
    return path.suffix == ".json" and path.name.startswith("ses_") and path.parent.parent.name == "session"


def is_storage_folder(path: Path) -> bool:
    """Tell whether a folder is one a storage root keeps beside ``session/`` (not walked for sessions)."""
    return path.name in STORAGE_FOLDERS and (path.parent / "session").is_dir()


def iso_time(value: Any) -> str | None:
    """OpenCode's milliseconds since the epoch as an ISO time (UTC), else None."""
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        stamp = datetime.fromtimestamp(value / 1000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def field(value: Any, key: str) -> dict[str, Any]:
    """The object under ``key`` of a parsed object (``{}`` when either is not one)."""
    inner = value.get(key) if isinstance(value, dict) else None
    return inner if isinstance(inner, dict) else {}
