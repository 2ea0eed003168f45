"""A catalog's kept listing on disk (``archive.catalog``): one SQLite file per listed folder, a row
of JSON per listed file, so a restarted server streams its records from rows and a save writes the
records that changed, not the whole listing (issue 54: the one JSON text of 100,000 records, its
parsed dicts kept beside the records for the next save, held ~2 KB per session, and its load
peaked at several times its size).

A save after a load writes the changed rows in one transaction; a first save (or one over a file
that is damaged, of another version or of another folder) writes a whole new file beside and
renames it over the old, so a killed run leaves the last complete cache. The JSON is ASCII: a file
name's lone surrogates (undecodable bytes) round-trip exactly.
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
CREATE TABLE IF NOT EXISTS files (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def _connect(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=30, isolation_level=None)


def load(path: Path, version: int, root: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each kept record's key and JSON value, one row at a time; nothing when the file is missing,
    damaged, or of another version or folder (raises ``sqlite3.Error`` or ``ValueError`` midway
    when a row is: the caller drops what it read)."""
    if not path.is_file():
        return
    conn = _connect(path)
    try:
        if conn.execute("SELECT version, root FROM meta").fetchall() != [(version, root)]:
            return
        for key, value in conn.execute("SELECT key, value FROM files"):
            yield json.loads(key), json.loads(value)
    finally:
        conn.close()


def write(path: Path, version: int, root: str, rows: Iterable[tuple[str, str]], gone: Iterable[str]) -> None:
    """Store these (key, record JSON) rows and remove the ``gone`` keys, in one transaction."""
    conn = _connect(path)
    try:
        conn.execute("BEGIN IMMEDIATE")
        if conn.execute("SELECT version, root FROM meta").fetchall() != [(version, root)]:
            raise sqlite3.DatabaseError("another catalog's cache")  # not to be changed: rewritten whole
        conn.executemany("INSERT OR REPLACE INTO files VALUES (?, ?)", ((json.dumps(k), v) for k, v in rows))
        conn.executemany("DELETE FROM files WHERE key = ?", ((json.dumps(k),) for k in gone))
        conn.execute("COMMIT")
    finally:
        conn.close()


def write_whole(path: Path, version: int, root: str, rows: Iterable[tuple[str, str]]) -> None:
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
            conn.executemany("INSERT INTO files VALUES (?, ?)", ((json.dumps(k), v) for k, v in rows))
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
    """Every kept record's JSON value by key, as ``load`` reads them (whatever the version)."""
    conn = _connect(path)
    try:
        return {json.loads(k): json.loads(v) for k, v in conn.execute("SELECT key, value FROM files")}
    finally:
        conn.close()
