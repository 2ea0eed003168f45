"""An agent's database of sessions as one file a session in our cache, for the many-session commands.

``list``, ``search``, ``stats``, ``serve`` and ``build`` walk folders of session files. OpenCode
and Crush keep all their sessions in one SQLite database, so each session is written, as one
JSON document (``opencode export``'s for OpenCode, ``readers.crush``'s for Crush), into a folder
of our cache (``<cache>/<agent>/<hash of the database's path>/<session id>.json``), named by its
file ``.mirrored-db`` (``{"db": path, "agent": name}``). Walking that folder first brings it up to
date: only when the database or its WAL changed, and only the sessions whose rows changed are
written again (atomically, their mtime the session's last change). The user's folder is only
ever read (``readers.database_copy``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessiontree.errors import SessiontreeError
from sessiontree.store.atomic import fsync_directory, make_private_dir, write_atomic
from sessiontree.store.discovery import printable
from sessiontree.store.jsonl import decode_text
from sessiontree.store.paths import default_cache_dir
from sessiontree.store.storage import read_reason
from sessiontree.store.times import time_millis

_FAILED: dict[Path, dict[str, list[int] | None]] = {}
"""Mirror folder -> the database's and WAL's stat when its sync last failed (in this process)."""

SOURCE_NAME = ".mirrored-db"
"""The file of a mirror folder that names the database it mirrors and its agent."""

STATE_NAME = ".state.json"
"""The file of a mirror folder that holds what was mirrored: the database's stat, each session's stamp."""

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,200}$")


Stamps = Callable[[sqlite3.Connection], dict[str, int]]
Documents = Callable[[sqlite3.Connection, list[str], Path], list[tuple[str, dict[str, Any]]]]


def _formats() -> dict[str, tuple[Stamps, Documents]]:
    """Agent -> (its sessions' last changes, its sessions as (id, document)), read from a copy."""
    from sessiontree.readers import crush, cursor, goose_db, opencode_db, zed

    return {
        "opencode": (opencode_db.session_stamps, opencode_db.id_documents),
        "crush": (crush.session_stamps, crush.id_documents),
        "goose": (goose_db.session_stamps, lambda connection, ids, db: goose_db.documents(connection, ids)),
        "zed": (zed.session_stamps, lambda connection, ids, db: zed.documents(connection, ids)),
        "cursor": (cursor.session_stamps, lambda connection, ids, db: cursor.documents(connection, ids)),
    }


def mirror_dir(db: Path, agent: str, cache_dir: Path | None = None) -> Path:
    """The cache folder that holds a database's sessions as files."""
    import hashlib  # OpenSSL's load is paid by a mirror's user, not by every folder walk

    digest = hashlib.sha256(str(db.absolute()).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return (cache_dir or default_cache_dir()) / agent / digest


def prepare_mirror(db: Path, agent: str, cache_dir: Path | None = None) -> Path:
    """The mirror folder of a database, made (and named after its database) when missing."""
    folder = mirror_dir(db, agent, cache_dir)
    make_private_dir(folder)
    if mirror_source(folder) != (db.absolute(), agent):
        source = json.dumps({"db": str(db.absolute()), "agent": agent})
        write_atomic(folder / SOURCE_NAME, source, readable=False)
    return folder


def mirror_source(folder: Path) -> tuple[Path, str] | None:
    """The database a mirror folder mirrors and its agent, or None for any other folder."""
    try:
        value = json.loads(decode_text((folder / SOURCE_NAME).read_bytes()))
    except (OSError, ValueError):
        return None
    db, agent = (value.get("db"), value.get("agent")) if isinstance(value, dict) else (None, None)
    return (Path(db), agent) if isinstance(db, str) and isinstance(agent, str) else None


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
    import hashlib

    return f"ses_{hashlib.sha256(session_id.encode('utf-8', 'surrogateescape')).hexdigest()[:24]}.json"


def sync_mirror(folder: Path) -> None:
    """Bring a mirror folder up to date with its database (nothing is read when neither the
    database nor its WAL changed). A database that cannot be read leaves the folder as it was."""
    source = mirror_source(folder)
    if source is None or source[1] not in _formats():
        return
    db, agent = source
    stamps_of, documents_of = _formats()[agent]
    state = _load_state(folder)
    seen = {"db": _stat_of(db), "wal": _stat_of(Path(f"{db}-wal"))}
    if seen["db"] is None:
        return  # gone, or not reachable now: what was mirrored stays listed
    if all(state.get(k) == v for k, v in seen.items()) or _FAILED.get(folder) == seen:
        return  # unchanged since mirrored, or since it last failed (serve asks at every tick)
    before = state.get("sessions")
    known: dict[str, int] = before if isinstance(before, dict) else {}
    from sessiontree.readers.database_copy import open_copy  # a database to mirror: rare, and not on a search

    try:
        with open_copy(db) as connection:
            stamps = stamps_of(connection)
            changed = [
                sid for sid, stamp in stamps.items()
                if known.get(sid) != stamp or not (folder / _file_name(sid)).is_file()
            ]  # fmt: skip
            documents = documents_of(connection, changed, db) if changed else []
    except (
        sqlite3.Error,
        OSError,
        SessiontreeError,
        ValueError,
        TypeError,
        OverflowError,
        RecursionError,
    ) as exc:
        # A damaged database, a named pipe as its WAL: its sessions stay as last mirrored, and
        # every other folder's are listed; said in one line (a traceback only at debug level).
        import logging  # only when a database cannot be mirrored: a warm search loads no logging

        log = logging.getLogger(__name__)
        log.warning(printable(f"Cannot read the {agent} database {db}: {_why(exc, db)}"))
        log.debug("mirror of %s", db, exc_info=True)
        _FAILED[folder] = seen  # said once: tried again when the database or its WAL changes
        return
    _FAILED.pop(folder, None)
    for sid, document in documents:
        path = folder / _file_name(sid)
        text = json.dumps(document, indent=2, ensure_ascii=False, default=_json_value)
        write_atomic(path, text, readable=False, durable=False)  # the folder is fsynced once, below
        when = time_millis(stamps[sid])  # 10**18 ms is no time: the file keeps the time of its writing
        if when is not None:
            with contextlib.suppress(OSError, ValueError, OverflowError):
                os.utime(path, (when / 1000, when / 1000))
    for sid in set(known) - set(stamps):
        (folder / _file_name(sid)).unlink(missing_ok=True)
    fsync_directory(folder)  # every file's rename before the state that says they are made
    write_atomic(folder / STATE_NAME, json.dumps({**seen, "sessions": stamps}), readable=False)


def _why(exc: BaseException, db: Path) -> str:
    if isinstance(exc, SessiontreeError):
        return str(exc).removeprefix(f"Cannot read {db}: ")
    return read_reason(exc) if isinstance(exc, OSError) else f"{exc.__class__.__name__}: {exc}"[:200]


def _json_value(value: object) -> object:
    """A column value JSON has no type for (a BLOB where text belongs) as text."""
    if isinstance(value, bytes | bytearray | memoryview):
        return decode_text(bytes(value))
    return str(value)
