"""One session of a file that holds several: its path is the file's, ``#``, and the session's id.

Gemini CLI's a2a server writes sessions one after the other into one chat file. Each is listed,
searched, exported and served on its own under ``<file>#<session id>`` (its key in a listing
the file's key and the same suffix), a name no file has: wherever a path or a key is taken,
``split_part`` gives the file and the session back. A path that names a real file is that file,
``#`` in its name or not; the file's own path still reads the whole file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MARK = "#"
"""Between a file's name and the id of one of its sessions."""

PART_AGENTS = frozenset({"gemini"})
"""The agents whose files may hold several sessions; in such a file every entry's id is
``<session id>:<its own id>`` (so a search hit names its session)."""


def part_path(path: Path, session_id: str) -> Path:
    """The path naming one session of a file that holds several."""
    return path.with_name(f"{path.name}{MARK}{session_id}")


def part_key(key: str, session_id: str) -> str:
    """A listing key naming one session of a listed file that holds several."""
    return f"{key}{MARK}{session_id}"


def split_part(path: Path) -> tuple[Path, str | None]:
    """The file a path names and the session of it (None: the path is the file itself).

    A path is a part only when no file has its name and the name before the last ``#`` is a
    regular file: a real file's name may hold ``#``.
    """
    name = path.name
    if MARK not in name:
        return path, None
    base, _, session_id = name.rpartition(MARK)
    if not base or not session_id or os.path.lexists(path):
        return path, None
    try:
        mode = os.stat(path.with_name(base)).st_mode
    except (OSError, ValueError):
        return path, None
    return (path.with_name(base), session_id) if stat.S_ISREG(mode) else (path, None)


def split_key(key: str) -> tuple[str, str | None]:
    """A listing key's file key and the session of it, by its last ``#`` (the catalog decides
    whether such a part is listed)."""
    base, mark, session_id = key.rpartition(MARK)
    return (base, session_id) if mark and base and session_id and "/" not in session_id else (key, None)


def part_of_entry(path: Path, agent: str | None, entry_id: str | None) -> tuple[Path, str | None]:
    """The path of the session an entry of a file is in (a search hit's), and that session's id
    (None: the file is one session)."""
    if agent not in PART_AGENTS or not entry_id or ":" not in entry_id:
        return path, None
    session_id = entry_id.partition(":")[0]
    return part_path(path, session_id), session_id
