"""OpenCode's SQLite database (``$XDG_DATA_HOME/opencode/opencode.db``) read as ``opencode export`` documents.

OpenCode 1.x keeps every session in one database (``packages/opencode/src/session/session.sql.ts``):
``session`` (one row per session: ``id``, ``parent_id``, ``directory``, ``title``, ``time_created``
/ ``time_updated`` in ms, ``revert`` JSON, ...), ``message`` (``id``, ``session_id``,
``time_created``, ``data``: the message info as JSON without its ids) and ``part`` (``id``,
``message_id``, ``session_id``, ``data``: the part as JSON without its ids). Each session read
here becomes the document ``opencode export`` prints (``{info, messages: [{info, parts}]}``),
so one reader (``readers.opencode``) reads both.

OpenCode writes the database in WAL mode while it runs. Opening it, even with SQLite's
``mode=ro``, would create or write its ``-shm`` file, and a last connection may checkpoint the
WAL into it; so the database is never opened in place: its file and its ``-wal`` are copied
into a private temp folder (the copy retried when a checkpoint changed the database file while
it was made) and the copy is read. A WAL appended to during the copy ends in a torn frame,
which SQLite's recovery leaves out: the copy is a committed state.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sessiontree.errors import InvalidSession, SessionNotFound, SessiontreeError

COPY_ATTEMPTS = 50
"""How many times a copy is made again when a checkpoint changed the database under it."""

CHUNK = 1 << 20
WAL_HEADER = 32

SESSION_TIMES = ("created", "updated", "compacting", "archived")


def _copy_hashing(source: Path, target: Path) -> bytes:
    """Copy a file, returning the digest of the bytes copied."""
    digest = hashlib.sha256()
    with open(source, "rb") as src, open(target, "wb") as dst:
        while chunk := src.read(CHUNK):
            digest.update(chunk)
            dst.write(chunk)
    return digest.digest()


def _digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.digest()


def _wal_generation(path: Path | str) -> bytes | None:
    """The checkpoint sequence number and salts of a WAL file's header (None: no WAL, or empty).

    SQLite changes them each time it starts the WAL over (after a checkpoint wrote all of it back).
    """
    try:
        with open(path, "rb") as fh:
            header = fh.read(WAL_HEADER)
    except FileNotFoundError:
        return None
    return header[12:24] if len(header) == WAL_HEADER else None


def _copy_consistent(db: Path, copy: Path) -> bool:
    """Copy a database and its WAL; True when the two copies make one committed state.

    With a WAL, the copy is whole when the WAL was not started over from before the database
    was copied until after the WAL was: the pages a checkpoint wrote into the database while it
    was copied come from frames that were already in the WAL, which the WAL copy holds, and
    SQLite reads a page from the WAL before the database (a torn last frame is left out).
    Without a WAL, the database's bytes must be the same read again.
    """
    wal, wal_copy = Path(f"{db}-wal"), Path(f"{copy}-wal")
    generation = _wal_generation(wal)
    copied = _copy_hashing(db, copy)
    wal_copy.unlink(missing_ok=True)
    with contextlib.suppress(FileNotFoundError):
        shutil.copyfile(wal, wal_copy)
    if generation is not None:
        return _wal_generation(wal_copy) == generation == _wal_generation(wal)
    if _wal_generation(wal) is not None:
        return False  # a WAL began while the database was copied
    wal_copy.unlink(missing_ok=True)
    return _digest(db) == copied


@contextlib.contextmanager
def open_copy(db: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a consistent private copy of a live SQLite database (its folder untouched:
    no ``-shm`` made, no lock taken, no checkpoint run). File times are no proof that nothing
    changed: they move in clock ticks of milliseconds; the WAL's header says when it restarted."""
    with tempfile.TemporaryDirectory(prefix="sessiontree-db-") as tmp:
        copy = Path(tmp) / "copy.db"
        try:
            if not any(_copy_consistent(db, copy) for _ in range(COPY_ATTEMPTS)):
                raise InvalidSession(f"{db} kept changing while it was copied; try again")
        except FileNotFoundError:
            raise SessionNotFound(f"File not found: {db}") from None
        connection = sqlite3.connect(copy)
        try:
            yield connection
        finally:
            connection.close()


def _loads(text: Any) -> dict[str, Any]:
    if not isinstance(text, str | bytes):
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _session_info(row: sqlite3.Row) -> dict[str, Any]:
    """A ``session`` row as OpenCode's session info (camelCase, times under ``time``)."""
    keys = row.keys()
    info: dict[str, Any] = {"id": row["id"]}
    for column, name in (
        ("project_id", "projectID"),
        ("parent_id", "parentID"),
        ("directory", "directory"),
        ("title", "title"),
        ("version", "version"),
        ("slug", "slug"),
    ):
        if column in keys and row[column] is not None:
            info[name] = row[column]
    info["time"] = {t: row[f"time_{t}"] for t in SESSION_TIMES if f"time_{t}" in keys and row[f"time_{t}"]}
    if "revert" in keys and (revert := _loads(row["revert"])):
        info["revert"] = revert
    if "share_url" in keys and row["share_url"]:
        info["share"] = {"url": row["share_url"]}
    return info


def _document(connection: sqlite3.Connection, row: sqlite3.Row) -> dict[str, Any]:
    """One session as ``opencode export`` prints it."""
    sid = row["id"]
    parts: dict[str, list[dict[str, Any]]] = {}
    for pid, mid, data in connection.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", (sid,)
    ):
        part = _loads(data)
        parts.setdefault(mid, []).append({**part, "id": pid, "sessionID": sid, "messageID": mid})
    messages = []
    for mid, data in connection.execute(
        "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (sid,)
    ):
        info = {**_loads(data), "id": mid, "sessionID": sid}
        messages.append({"info": info, "parts": parts.get(mid, [])})
    return {"info": _session_info(row), "messages": messages}


def copy_tables(db: Path) -> frozenset[str]:
    """The table names of a database, read from a consistent copy (empty when it cannot be read)."""
    try:
        with open_copy(db) as connection:
            rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except (sqlite3.Error, OSError, SessiontreeError):
        return frozenset()
    return frozenset(str(name) for (name,) in rows)


def read_documents(connection: sqlite3.Connection, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """The sessions of a database copy (every one, or those of ``ids``) as export documents,
    the most recently updated last."""
    connection.row_factory = sqlite3.Row
    try:
        rows = list(connection.execute("SELECT * FROM session ORDER BY time_updated, id"))
    finally:
        connection.row_factory = None
    wanted = None if ids is None else set(ids)
    return [_document(connection, row) for row in rows if wanted is None or row["id"] in wanted]


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Session id -> the last time it, one of its messages or one of its parts changed (ms)."""
    rows = connection.execute(
        "SELECT s.id, max(s.time_updated,"
        " coalesce((SELECT max(time_updated) FROM message m WHERE m.session_id = s.id), 0),"
        " coalesce((SELECT max(time_updated) FROM part p WHERE p.session_id = s.id), 0))"
        " FROM session s"
    ).fetchall()
    return {str(sid): int(stamp or 0) for sid, stamp in rows}


def load_documents(db: Path, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """The sessions of a database file (read through a private copy) as export documents."""
    with open_copy(db) as connection:
        try:
            return read_documents(connection, ids)
        except sqlite3.DatabaseError as exc:
            raise InvalidSession(f"{db}: not a readable OpenCode database ({exc})") from None
