"""A live SQLite database read through a private copy: never opened in place, its folder untouched.

An agent (OpenCode, Crush) writes its database in WAL mode while it runs. Opening it, even
with SQLite's ``mode=ro``, would create or write its ``-shm`` file, and a last connection may checkpoint the
WAL into it; so the database is never opened in place: its file and its ``-wal`` are copied
into a private temp folder (the copy retried when a checkpoint changed the database file while
it was made) and the copy is read. A WAL appended to during the copy ends in a torn frame,
which SQLite's recovery leaves out: the copy is a committed state.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from sessiontree.errors import InvalidSession, SessionNotFound, SessiontreeError
from sessiontree.store.storage import open_regular, read_reason

COPY_ATTEMPTS = 12
"""How many copies are made at most when a checkpoint changed the database under each: a database
written all along is refused after these (a listing skips it and says so), never copied on and on."""

COPY_SECONDS = 3.0
"""No copy is begun after this long spent on one database's (with the waits between them)."""

MAX_COPY_BYTES = 2 << 30
"""The largest database (with its WAL) copied to be read: a larger one is refused in one line,
never copied into the temp folder (Cursor's editor database grows to hundreds of MB)."""

CHUNK = 1 << 20
WAL_HEADER = 32


def _copy(source: Path, target: Path) -> None:
    """Copy a file in the kernel (``copy_file_range``): the copy of a live database is the window
    a writer's checkpoint must not fall in, so no byte of it passes through Python (14 MB: 63 ms
    through Python, 31 ms in the kernel, load 5.6)."""
    with open_regular(source) as src, open(target, "wb") as dst:
        try:
            while os.copy_file_range(src.fileno(), dst.fileno(), CHUNK << 4):
                pass
        except OSError as exc:  # a kernel or filesystem without it: the same bytes through Python
            if exc.errno not in (errno.ENOSYS, errno.EXDEV, errno.EINVAL, errno.EOPNOTSUPP):
                raise
            src.seek(0)
            dst.seek(0)
            dst.truncate()
            while chunk := src.read(CHUNK):
                dst.write(chunk)


def _digest(path: Path) -> bytes:
    digest = hashlib.sha256()
    with open_regular(path) as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.digest()


def _wal_generation(path: Path | str) -> bytes | None:
    """The checkpoint sequence number and salts of a WAL file's header (None: no WAL, or empty).

    SQLite changes them each time it starts the WAL over (after a checkpoint wrote all of it back).
    """
    try:
        with open_regular(path) as fh:  # a named pipe in the WAL's place is refused, never waited on
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
    _copy(db, copy)
    wal_copy.unlink(missing_ok=True)
    with contextlib.suppress(FileNotFoundError):
        _copy(wal, wal_copy)
    if generation is not None:
        return _wal_generation(wal_copy) == generation == _wal_generation(wal)
    if _wal_generation(wal) is not None:
        return False  # a WAL began while the database was copied
    wal_copy.unlink(missing_ok=True)
    return _digest(db) == _digest(copy)


def _await_restart(wal: Path, longest: float) -> None:
    """Wait, at most ``longest`` seconds, for the WAL to start over: a copy begun just after a
    checkpoint has the whole span until the next one (an agent checkpointing every few pages can
    restart its WAL several times in one copy of a large database begun at any moment)."""
    generation = _wal_generation(wal)
    until = time.monotonic() + longest
    while generation is not None and _wal_generation(wal) == generation and time.monotonic() < until:
        time.sleep(0.0005)


def _copy_whole(db: Path, copy: Path) -> bool:
    """Copy a database until a copy is one committed state, within ``COPY_ATTEMPTS`` and
    ``COPY_SECONDS``; after a copy a checkpoint broke, the next begins once the WAL restarts."""
    deadline = time.monotonic() + COPY_SECONDS
    for _ in range(COPY_ATTEMPTS):
        began = time.monotonic()
        if _copy_consistent(db, copy):
            return True
        took = time.monotonic() - began
        if time.monotonic() + 2 * took > deadline:
            return False
        _await_restart(Path(f"{db}-wal"), took)
    return False


def _refuse_too_big(db: Path) -> None:
    """Refuse, in one line, a database (and WAL) too large to copy (``MAX_COPY_BYTES``)."""
    size = db.stat().st_size
    with contextlib.suppress(OSError):
        size += Path(f"{db}-wal").stat().st_size
    if size > MAX_COPY_BYTES:
        raise InvalidSession(
            f"Cannot read {db}: {size >> 20} MiB with its WAL, "
            f"over the {MAX_COPY_BYTES >> 20} MiB a copy takes"
        )


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _text_cells(cursor: sqlite3.Cursor, row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row with every BLOB as text: a cell of bytes where the agent writes text (or JSON) is
    read as that text (invalid UTF-8 as U+FFFD), never bytes that no JSON writer takes."""
    return tuple(_text(bytes(v)) if isinstance(v, bytes | memoryview) else v for v in row)


def named_rows(
    connection: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()
) -> list[dict[str, Any]]:
    """The rows of a query on a copy as dicts by column name (the cells as ``open_copy`` gives them)."""
    cursor = connection.execute(sql, params)
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


@contextlib.contextmanager
def open_copy(db: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a consistent private copy of a live SQLite database (its folder untouched:
    no ``-shm`` made, no lock taken, no checkpoint run). File times are no proof that nothing
    changed: they move in clock ticks of milliseconds; the WAL's header says when it restarted."""
    with tempfile.TemporaryDirectory(prefix="sessiontree-db-") as tmp:
        copy = Path(tmp) / "copy.db"
        try:
            _refuse_too_big(db)
            if not _copy_whole(db, copy):
                raise InvalidSession(f"{db} kept changing while it was copied; try again")
        except FileNotFoundError:
            raise SessionNotFound(f"File not found: {db}") from None
        except OSError as exc:  # the database or its WAL a named pipe, a device, not ours to read
            companion = "its -wal file: " if str(exc.filename or "").endswith("-wal") else ""
            raise InvalidSession(f"Cannot read {db}: {companion}{read_reason(exc)}") from None
        connection = sqlite3.connect(copy)
        connection.text_factory = _text  # a TEXT column of invalid UTF-8 is text with U+FFFD
        connection.row_factory = _text_cells  # the one boundary of every database's cells
        try:
            yield connection
        except (
            sqlite3.DatabaseError,
            UnicodeDecodeError,
        ) as exc:  # damaged: its schema no UTF-8, a page torn
            raise InvalidSession(f"Cannot read {db}: a damaged database ({exc.__class__.__name__})") from None
        finally:
            connection.close()


def newest_document(
    db: Path, label: str, documents: Callable[[sqlite3.Connection, list[str] | None], list[tuple[str, Any]]]
) -> tuple[Any, str]:
    """The document of a database's newest session (``documents`` lists them oldest first), or
    None and why, for a database given by hand."""
    with open_copy(db) as connection:
        try:
            found = documents(connection, None)
        except sqlite3.DatabaseError as exc:
            return None, f"not a {label} database ({exc})"
    return (found[-1][1], "") if found else (None, f"a {label} database with no session")


def copy_tables(db: Path) -> frozenset[str]:
    """The table names of a database, read from a consistent copy (empty when it cannot be read)."""
    try:
        with open_copy(db) as connection:
            rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except (sqlite3.Error, OSError, SessiontreeError):
        return frozenset()
    return frozenset(str(name) for (name,) in rows)
