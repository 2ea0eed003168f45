"""The search index database: its schema, connections and the packed texts of its rows.

One SQLite file in the cache dir. ``files`` remembers, per session file, where indexing stopped
(the tail reader's state: offset, checksums of the head and of the bytes before the offset);
``rows`` holds one row per searchable piece of an entry; ``fts`` (bodies) and ``tfts`` (session
titles and labels, searched first) are contentless FTS5 tables
(the index only, no copy of the text) and ``chunks`` the rows' texts, zlib-compressed some
64 KB at a time (per-row compression of short texts saves little), kept to make snippets and
because a contentless table can only forget a row given the exact text it indexed.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from sessiontree.archive.extract import BODY_TIER, TITLE_TIER
from sessiontree.archive.follow_keys import SCHEMA as FOLLOW_SCHEMA
from sessiontree.archive.follow_keys import TABLES as FOLLOW_TABLES
from sessiontree.archive.usage_store import SCHEMA as USAGE_SCHEMA
from sessiontree.archive.usage_store import TABLES as USAGE_TABLES
from sessiontree.errors import SearchError
from sessiontree.store.atomic import make_private_dir, make_private_file
from sessiontree.store.sqlite_errors import SqliteAdvice
from sessiontree.store.storage import read_reason


@dataclass
class UpdateReport:
    """What one ``update_index`` did (here, below the stat pass and the file reader that both fill it)."""

    files: int = 0
    whole: int = 0
    appended: int = 0
    removed: int = 0
    rows: int = 0
    pending: int = 0
    """Changed files left for a later update (a ``deadline`` came first): the answer is partial."""
    walked: int = 0
    """Session files the walk found so far (it comes before the stat pass)."""
    left: int = -1
    """While the update runs, the changed files it has still to read (-1 until its stat pass ended)."""


SCHEMA_VERSION = 11
"""11: usage totals per UTC quarter hour, not per UTC day (``stats`` counts the reader's days)."""
BUSY_TIMEOUT = 120.0
"""Seconds a process waits for another one's indexing transaction (one file at a time)."""

BATCH_ROWS = 2_000
FTS_TABLES = {"tfts": TITLE_TIER, "fts": BODY_TIER}
"""Each FTS5 table and the tier of the rows it holds."""
WAL_LIMIT = 8 * 2**20
"""Bytes the write-ahead log shrinks back to after a big transaction (re-indexing a large file)."""
CHUNK_CHARS = 64_000
"""Text characters packed into one compressed chunk."""
ZLIB_LEVEL = 1
"""Chunk compression: level 1 packs 37.8 MiB of row text in 0.38 s of CPU against 1.53 s at level 6,
for chunks 23% larger (the whole index 7%: 25.6 against 23.9 MiB for 56 MB of sessions)."""

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    session_id TEXT,
    agent TEXT,
    title TEXT,
    cwd TEXT,
    started INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 3,
    entries INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    ino INTEGER NOT NULL DEFAULT 0,
    checked_ns INTEGER NOT NULL DEFAULT 0,
    tail TEXT,
    follow TEXT
);
CREATE TABLE IF NOT EXISTS rows (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    entry_id TEXT,
    role TEXT NOT NULL,
    tier INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    chunk INTEGER NOT NULL,
    part INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rows_file ON rows(file_id);
CREATE INDEX IF NOT EXISTS rows_ts ON rows(ts);
CREATE TABLE IF NOT EXISTS chunks (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, z BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, content='', tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE IF NOT EXISTS tfts USING fts5(
    text, content='', tokenize='unicode61 remove_diacritics 2'
);
{USAGE_SCHEMA}
{FOLLOW_SCHEMA}
PRAGMA user_version = {SCHEMA_VERSION};
"""


def pack_texts(texts: list[str]) -> bytes:
    """Pack the texts of one chunk of rows (exactly as indexed: a row is forgotten by its text)."""
    return zlib.compress(json.dumps(texts, ensure_ascii=False).encode("utf-8", "surrogatepass"), ZLIB_LEVEL)


def unpack_texts(blob: bytes) -> list[str]:
    """Unpack what ``pack_texts`` made."""
    texts: list[str] = json.loads(zlib.decompress(blob).decode("utf-8", "surrogatepass"))
    return texts


def connect(db_path: Path, busy_timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """Open (creating as needed) the index in WAL mode, so readers never wait for the writer."""
    try:
        make_private_dir(db_path.parent)
        make_private_file(db_path)
    except OSError as exc:
        raise SearchError(f"Cannot create the cache dir {db_path.parent}: {read_reason(exc)}") from None
    conn = _connection(db_path, busy_timeout)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT}")
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            _create_schema(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise INDEX_ERRORS.error_of(db_path, exc) from None
    return conn


def reader(db_path: Path) -> sqlite3.Connection:
    """A second, read-only connection to an index ``connect`` opened (its schema made): in WAL mode it
    reads the last commit while ``conn`` writes, never waiting for it."""
    read = _connection(db_path, BUSY_TIMEOUT)
    try:
        read.execute("PRAGMA query_only=1")
    except sqlite3.Error as exc:
        read.close()
        raise INDEX_ERRORS.error_of(db_path, exc) from None
    return read


def _connection(db_path: Path, busy_timeout: float) -> sqlite3.Connection:
    try:
        return sqlite3.connect(db_path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise INDEX_ERRORS.error_of(db_path, exc) from None


def _create_schema(conn: sqlite3.Connection) -> None:
    """Create the schema, or start over when the file holds an older one (it is only a cache)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:  # another process may have created it meanwhile
            if version != 0:
                for name in (
                    "fts",
                    "tfts",
                    "texts",
                    "chunks",
                    *USAGE_TABLES,
                    *FOLLOW_TABLES,
                    "rows",
                    "files",
                ):
                    conn.execute(f"DROP TABLE IF EXISTS {name}")
            for statement in _SCHEMA.split(";\n"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


INDEX_ERRORS = SqliteAdvice(
    SearchError,
    busy="The search index {path} is busy in another process; try again",
    damaged="{path} is not a usable search index; delete it to rebuild the index",
    other="Cannot use the search index {path}: {exc}",
)
"""What an SQLite error of the search index says: a one-line ``SearchError``."""


def read_texts(conn: sqlite3.Connection, row_ids: Iterable[int]) -> dict[int, str]:
    """The indexed text of each row (each chunk unpacked once)."""
    wanted: dict[int, list[tuple[int, int]]] = {}
    ids = list(row_ids)
    for start in range(0, len(ids), BATCH_ROWS):
        batch = ids[start : start + BATCH_ROWS]
        marks = ",".join("?" * len(batch))
        for row_id, chunk_id, part in conn.execute(
            f"SELECT id, chunk, part FROM rows WHERE id IN ({marks})", batch
        ):
            wanted.setdefault(chunk_id, []).append((row_id, part))
    texts: dict[int, str] = {}
    for chunk_id, parts in wanted.items():
        blob = conn.execute("SELECT z FROM chunks WHERE id = ?", (chunk_id,)).fetchone()
        unpacked = unpack_texts(blob[0]) if blob else []
        for row_id, part in parts:
            texts[row_id] = unpacked[part] if part < len(unpacked) else ""
    return texts
