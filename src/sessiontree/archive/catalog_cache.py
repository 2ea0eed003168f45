"""A catalog's kept listing on disk (``archive.catalog``): one SQLite file per listed folder, a row
of JSON per listed file, so a restarted server streams its records from rows and a save writes the
records that changed, not the whole listing (issue 54: the one JSON text of 100,000 records, its
parsed dicts kept beside the records for the next save, held ~2 KB per session, and its load
peaked at several times its size).

A row keeps a record's line pass (its counts' state and usage rows, ``Scan``: about half of its
JSON) in a column of its own, parsed only when asked for (``catalog_read._Cached.scan``): a build
that renders one new session parses no unchanged file's pass (issue 54: at 10,000 sessions the
catalog's load was 1.26 s of a 2.1 s incremental build, 15-16 s at 100,000). A cache written
before (every record's JSON whole in a ``files`` table) is read as it was and written again whole
in the new table by its next save.

A save after a load writes the changed rows in one transaction; a first save (or one over a file
that is damaged, of another version or of another folder, or of the older table) writes a whole
new file beside and renames it over the old, so a killed run leaves the last complete cache. The
JSON is ASCII: a file name's lone surrogates (undecodable bytes) round-trip exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from sessiontree.store.atomic import fsync_directory, make_private_dir, temp_path_for

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (version INTEGER NOT NULL, root TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (key TEXT PRIMARY KEY, value TEXT NOT NULL, scan TEXT);
"""
Row = tuple[str, str, str | None]
"""A record's key, its JSON without its pass, its pass's JSON (None: no pass)."""


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=30, isolation_level=None)


def _key(text: str) -> str:
    """A row's key from its JSON (a string with no escape is its own text: no parse)."""
    return text[1:-1] if "\\" not in text else str(json.loads(text))


def is_old(path: Path) -> bool:
    """Whether the file is a cache written before the ``records`` table (to be written whole)."""
    conn = _connect(path)
    try:
        tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()
    return "records" not in tables


def load(path: Path, version: int, root: str) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """Each kept record's key, JSON value and its pass's JSON text (not parsed; None when the value
    holds it, as an older cache's does), one row at a time; nothing when the file is missing,
    damaged, or of another version or folder (raises ``sqlite3.Error`` or ``ValueError`` midway
    when a row is: the caller drops what it read)."""
    if not path.is_file():
        return
    conn = _connect(path)
    try:
        if conn.execute("SELECT version, root FROM meta").fetchall() != [(version, root)]:
            return
        try:
            rows = conn.execute("SELECT key, value, scan FROM records")
        except sqlite3.OperationalError:  # no such table: an older cache, its passes in its values
            rows = conn.execute("SELECT key, value, NULL FROM files")
        loads = json.loads
        for key, value, scan in rows:
            yield _key(key), loads(value), scan
    finally:
        conn.close()


def write(path: Path, version: int, root: str, rows: Iterable[Row], gone: Iterable[str]) -> None:
    """Store these rows and remove the ``gone`` keys, in one transaction (an older cache's file
    raises ``sqlite3.OperationalError``: it is written whole)."""
    conn = _connect(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("SELECT version, root FROM meta").fetchall() != [(version, root)]:
            raise sqlite3.DatabaseError("another catalog's cache")  # not to be changed: rewritten whole
        conn.executemany(
            "INSERT OR REPLACE INTO records VALUES (?, ?, ?)", ((json.dumps(k), v, p) for k, v, p in rows)
        )
        conn.executemany("DELETE FROM records WHERE key = ?", ((json.dumps(k),) for k in gone))
        conn.execute("COMMIT")
    finally:
        conn.close()


def write_whole(path: Path, version: int, root: str, rows: Iterable[Row]) -> None:
    """Replace the file with one holding just these rows (made beside it, then renamed over it)."""
    make_private_dir(path.parent)
    tmp = temp_path_for(path)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600))
    try:
        conn = _connect(tmp)
        try:
            conn.executescript(SCHEMA)
            conn.execute("BEGIN")
            conn.execute("INSERT INTO meta VALUES (?, ?)", (version, root))
            made = ((json.dumps(k), v, p) for k, v, p in rows)
            conn.executemany("INSERT INTO records VALUES (?, ?, ?)", made)
            conn.execute("COMMIT")
        finally:
            conn.close()
        os.replace(tmp, path)
        fsync_directory(path.parent)  # the rename itself durable, as the rows' COMMIT made them
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def saved_files(path: Path) -> dict[str, Any]:
    """Every kept record's JSON value by key, its pass in it (``"scan"``), whatever the version."""
    found: dict[str, Any] = {}
    for key, value, scan in load_any(path):
        if scan is not None or "scan" not in value:
            value["scan"] = None if scan is None else json.loads(scan)
        found[key] = value
    return found


def load_any(path: Path) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """``load`` of whatever version and folder the file was written for."""
    conn = _connect(path)
    try:
        (version, root), *_ = conn.execute("SELECT version, root FROM meta").fetchall()
    finally:
        conn.close()
    yield from load(path, version, root)
