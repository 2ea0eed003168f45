"""An OpenCode database's sessions as ``opencode export`` files in our cache, for the many-session commands.

``list``, ``search``, ``stats``, ``serve`` and ``build`` walk folders of session files. OpenCode
keeps all its sessions in one database, so each is written, the way ``opencode export`` prints
it, into a folder of our cache (``<cache>/opencode/<hash of the database's path>/ses_….json``),
named by the file ``.opencode-db`` there. Walking that folder first brings it up to date: only
when the database or its WAL changed, and only the sessions whose rows changed are written again
(atomically, their mtime the session's last change). The user's folder is only ever read
(``readers.opencode_db``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from sessiontree.errors import SessiontreeError
from sessiontree.readers.opencode_db import open_copy, read_documents, session_stamps
from sessiontree.store.atomic import make_private_dir, write_atomic
from sessiontree.store.jsonl import decode_text
from sessiontree.store.paths import default_cache_dir, default_data_dir

SOURCE_NAME = ".opencode-db"
"""The file of a mirror folder that names the database it mirrors."""

STATE_NAME = ".state.json"
"""The file of a mirror folder that holds what was mirrored: the database's stat, each session's stamp."""

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,200}$")


def database_path(data_dir: Path | None = None) -> Path:
    """Where OpenCode keeps its database: ``$XDG_DATA_HOME/opencode/opencode.db``."""
    return (data_dir or default_data_dir()) / "opencode" / "opencode.db"


def mirror_dir(db: Path, cache_dir: Path | None = None) -> Path:
    """The cache folder that holds a database's sessions as export files."""
    digest = hashlib.sha256(str(db.absolute()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return (cache_dir or default_cache_dir()) / "opencode" / digest


def prepare_mirror(db: Path, cache_dir: Path | None = None) -> Path:
    """The mirror folder of a database, made (and named after its database) when missing."""
    folder = mirror_dir(db, cache_dir)
    make_private_dir(folder)
    source = folder / SOURCE_NAME
    if mirror_source(folder) != db.absolute():
        write_atomic(source, str(db.absolute()), readable=False)
    return folder


def mirror_source(folder: Path) -> Path | None:
    """The database a mirror folder mirrors, or None for any other folder."""
    try:
        return Path(decode_text((folder / SOURCE_NAME).read_bytes()).strip())
    except (OSError, ValueError):
        return None


def is_mirror_file(path: Path) -> bool:
    """Tell whether a path is a session file of a mirror folder."""
    return path.suffix == ".json" and not path.name.startswith(".") and (path.parent / SOURCE_NAME).is_file()


def _stat_of(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_ino, st.st_size, st.st_mtime_ns]


def _load_state(folder: Path) -> dict[str, Any]:
    try:
        value = json.loads((folder / STATE_NAME).read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _file_name(session_id: str) -> str:
    if _SAFE_ID.match(session_id):
        return f"{session_id}.json"
    return f"ses_{hashlib.sha256(session_id.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.json"


def sync_mirror(folder: Path) -> None:
    """Bring a mirror folder up to date with its database (nothing is read when neither the
    database nor its WAL changed). A database that cannot be read leaves the folder as it was."""
    db = mirror_source(folder)
    if db is None:
        return
    state = _load_state(folder)
    seen = {"db": _stat_of(db), "wal": _stat_of(Path(f"{db}-wal"))}
    if seen["db"] is None:
        return  # gone, or not reachable now: what was mirrored stays listed
    if all(state.get(k) == v for k, v in seen.items()):
        return
    before = state.get("sessions")
    known: dict[str, int] = before if isinstance(before, dict) else {}
    try:
        with open_copy(db) as connection:
            stamps = session_stamps(connection)
            changed = [
                sid for sid, stamp in stamps.items()
                if known.get(sid) != stamp or not (folder / _file_name(sid)).is_file()
            ]  # fmt: skip
            documents = read_documents(connection, changed) if changed else []
    except (sqlite3.Error, OSError, SessiontreeError):
        return
    for document in documents:
        sid = str(document["info"]["id"])
        path = folder / _file_name(sid)
        write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False), readable=False)
        with contextlib.suppress(OSError, ValueError, OverflowError):
            if stamps[sid] > 0:
                os.utime(path, (stamps[sid] / 1000, stamps[sid] / 1000))
    for sid in set(known) - set(stamps):
        (folder / _file_name(sid)).unlink(missing_ok=True)
    write_atomic(folder / STATE_NAME, json.dumps({**seen, "sessions": stamps}), readable=False)
