"""Rendered fragments cached by content: one SQLite file in the user cache dir, bounded LRU.

A record is keyed by the sha256 of what its entry's fragment depends on (``render.entry_inputs``:
the entry's JSON, its paired call, label, joint, archived mark, parent) and of the renderer
itself (``renderer_version``: the exporter's, templates' and readers' source, Pygments' and markdown-it's
versions, store.pricing and genai-prices' version for a footer's cost). Its value is the
JSON of (meta, fragment, images) behind its CRC-32 (not compressed: compressing cost a cold
export more CPU than the cache's other work together), so a record that does not read back
whole (a damaged file, a bit flipped) is a miss and is dropped, never a wrong fragment. SQLite
in WAL mode makes each write batch one transaction: a process killed mid-write leaves the batch
out, and several processes (serve, build, export) can read and write the file at once. Past
``max_bytes`` the least recently used records go.

Nothing is fsynced (``synchronous=off``): a killed process loses nothing it committed (the OS
holds the written pages), only a machine crash could damage the file, and a damaged file is
deleted on the error that shows it (the next use starts an empty cache). The fsyncs cost a cold
2,000-turn export more wall time than rendering did on a loaded disk.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from sessiontree.store.atomic import make_private_dir, make_private_file
from sessiontree.store.jsonl import paused_gc
from sessiontree.store.storage import open_regular
from sessiontree.store.subagents import related_files

log = logging.getLogger(__name__)

FILE_NAME = "fragments.sqlite"
DEFAULT_MAX_MB = 300
MAX_MB_ENV = "SESSIONTREE_FRAGMENT_CACHE_MB"
_BATCH = 400  # keys per SELECT (SQLite's variable limit is 32,766; smaller batches stream)
_MARK_AFTER_NS = 3600 * 10**9
_PENDING_BYTES = 8 * 1024 * 1024  # records held before a write (records are not compressed)

Record = tuple[dict[str, Any], str, dict[str, str]]

_SCHEMA = """
create table if not exists frags (
    key blob primary key,
    value blob not null,
    size integer not null,
    used integer not null
) without rowid;
-- sizes and use times without reading the values: the bound and the eviction order
create index if not exists frags_lru on frags(used, size);
"""


@cache
def renderer_version() -> str:
    """Return a digest of everything that shapes a fragment: our renderer's source and its libraries."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent.parent
    # readers/ too: each reader's line-kind rows (and the table in store/kinds.py) and Claude
    # Code's markup rules decide how an entry is drawn, not only what the entry holds.
    for folder in (package / "exporter", package / "templates", package / "readers"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".py", ".j2", ".html", ".css", ".js"):
                h.update(path.relative_to(package).as_posix().encode())
                h.update(path.read_bytes())
    # A message's footer shows its cost: recorded, else priced by store.pricing from genai-prices' table.
    for name in ("pricing.py", "kinds.py", "content.py", "claude_markup.py"):
        h.update((package / "store" / name).read_bytes())
    from importlib import metadata  # here: ~20 ms of every start, a build's where nothing renders too

    for dist in (
        "pygments",
        "markdown-it-py",
        "markdown-it-pyrs",
        "mdit-py-plugins",
        "markupsafe",
        "jinja2",
        "genai-prices",
    ):
        try:
            h.update(f"{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(dist.encode())
    return h.hexdigest()


def _dumps(value: Any) -> bytes:
    """JSON bytes through orjson (about 10x json's speed here); json for what orjson refuses.

    orjson refuses lone surrogates and integers past 64 bits; the same value always takes the
    same path, so equal inputs still give equal bytes.
    """
    try:
        return orjson.dumps(value, default=str)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode(
            "utf-8", "surrogatepass"
        )


def _loads(payload: bytes) -> Any:
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:  # what only json wrote (see _dumps)
        return json.loads(payload.decode("utf-8", "surrogatepass"))


def fragment_key(inputs: Any) -> bytes:
    """Return the cache key of a fragment's inputs (see ``render.entry_inputs``)."""
    h = hashlib.sha256(renderer_version().encode())
    h.update(_dumps(inputs))
    return h.digest()


def _pack(record: Record) -> bytes:
    # Not compressed: zlib (level 1) was 85% of what a cold cache added to an export's CPU.
    body = _dumps(record)
    return zlib.crc32(body).to_bytes(4, "big") + body


def _unpack(value: bytes) -> Record | None:
    """Return the record a value holds, or None when it does not read back exactly."""
    body = value[4:]
    # The CRC-32 in front: a cut or altered record (or one of an older format) fails here.
    if len(value) < 4 or zlib.crc32(body) != int.from_bytes(value[:4], "big"):
        return None
    try:
        meta, html, images = _loads(body)
    except (ValueError, TypeError, UnicodeDecodeError):
        return None
    if not (isinstance(meta, dict) and isinstance(html, str) and isinstance(images, dict)):
        return None
    return meta, html, images


def page_key(session_file: Path, options: Any) -> bytes:
    """Return the cache key of a session file's whole page: its bytes, its subagents' files, the options.

    Every file beside the session that its page may read (Claude Code's ``agent-*.jsonl``,
    oh-my-pi's subagent sessions and theirs, an OpenCode storage session's message and part
    files and their folders: ``store.subagents.related_files``) counts by its name, size and
    change time.
    """
    h = hashlib.sha256(b"page\0" + renderer_version().encode())
    with open_regular(session_file) as fh:  # a named pipe: refused (OSError), never waited on
        digest = hashlib.sha256()
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
        h.update(digest.digest())
    for path in related_files(session_file):
        try:
            st = path.stat()
        except OSError:
            continue
        h.update(_dumps([os.path.relpath(path, session_file.parent), st.st_size, st.st_mtime_ns]))
    h.update(_dumps(options))
    return h.digest()


def _seen_key(session_file: Path) -> bytes:
    """The key of the mark that a file was exported: its absolute path (a fragment key hashes JSON)."""
    return hashlib.sha256(b"seen\0" + os.fsencode(Path(session_file).absolute())).digest()


def page_record(warnings: list[str]) -> bytearray:
    """The start of a page's stored form (room for its CRC-32, then its load warnings): the page's
    bytes are appended to it as they are written, so the page is held once for the cache (kept as
    chunks, then joined, then bound, it was held three times: 33 MB of peak RSS on a 10.7 MB page)."""
    head = _dumps(warnings)
    return bytearray(bytes(4) + len(head).to_bytes(4, "big") + head)


def _seal(record: bytearray) -> bytearray:
    """Write the record's CRC-32 (of all that follows it) into its first four bytes."""
    record[:4] = zlib.crc32(memoryview(record)[4:]).to_bytes(4, "big")
    return record


def _unpack_page(value: bytes) -> tuple[list[str], bytes] | None:
    """Return (warnings, page) when the value's CRC-32 checks, else None."""
    body = value[4:]
    if len(value) < 8 or zlib.crc32(body) != int.from_bytes(value[:4], "big"):
        return None
    size = int.from_bytes(body[:4], "big")
    try:
        warnings = _loads(body[4 : 4 + size])
    except ValueError:
        return None
    if not (isinstance(warnings, list) and all(isinstance(w, str) for w in warnings)):
        return None
    return warnings, body[4 + size :]


def _max_bytes() -> int:
    raw = os.environ.get(MAX_MB_ENV, "")
    return (int(raw) if raw.isdigit() else DEFAULT_MAX_MB) * 1024 * 1024


class FragmentCache:
    """Cached fragments in ``folder/fragments.sqlite`` (made on first use), at most ``max_bytes``.

    Any SQLite error makes the cache step aside (a miss, a write not done) with one log line:
    the page is rendered anyway. One object per thread (SQLite connections are not shared);
    a forked child must not use its parent's.
    """

    def __init__(self, folder: Path, *, max_bytes: int | None = None) -> None:
        self.path = folder / FILE_NAME
        self.max_bytes = _max_bytes() if max_bytes is None else max_bytes
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._used: list[bytes] = []
        self._pending: list[tuple[bytes, bytes | bytearray, int, int]] = []
        self._pending_bytes = 0

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and not self._broken:
            try:
                make_private_dir(self.path.parent)
                make_private_file(self.path)
                db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
                db.execute("pragma journal_mode=wal")
                db.execute("pragma synchronous=off")
                db.executescript(_SCHEMA)
                self._db = db
            except (sqlite3.Error, OSError) as exc:  # a file where the folder should be, no permission
                self._fail(exc)
        return self._db

    def _fail(self, exc: Exception) -> None:
        log.warning("fragment cache %s not used: %s", self.path, exc)
        self._broken = True
        self._pending.clear()
        if self._db is not None:
            self._db.close()
            self._db = None
        if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
            # Damaged ("malformed", "not a database"): a cache is only worth its content, start afresh.
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)

    def present(self, keys: Sequence[bytes]) -> set[bytes]:
        """Return which of ``keys`` have a record (read with ``get_many`` when needed)."""
        db = self._connect()
        if db is None:
            return set()
        have: set[bytes] = set()
        try:
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), _BATCH):
                batch = unique[start : start + _BATCH]
                marks = ",".join("?" * len(batch))
                have.update(k for (k,) in db.execute(f"select key from frags where key in ({marks})", batch))
        except sqlite3.Error as exc:
            self._fail(exc)
            return set()
        return have

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, Record]:
        """Return the records found for ``keys`` (damaged ones are dropped and left out)."""
        db = self._connect()
        found: dict[bytes, Record] = {}
        if db is None:
            return found
        bad: list[bytes] = []
        # Use marks are written only when older than an hour: a warm export writes almost nothing.
        stale = time.time_ns() - _MARK_AFTER_NS
        try:
            with paused_gc():  # many small acyclic objects: no collector passes over the session
                unique = list(dict.fromkeys(keys))
                for start in range(0, len(unique), _BATCH):
                    batch = unique[start : start + _BATCH]
                    marks = ",".join("?" * len(batch))
                    query = f"select key, cast(value as blob), used from frags where key in ({marks})"
                    for key, value, used in db.execute(query, batch):
                        record = _unpack(value)
                        if record is None:
                            bad.append(key)
                            continue
                        found[key] = record
                        if used < stale:
                            self._used.append(key)
                if bad:
                    db.executemany("delete from frags where key = ?", [(k,) for k in bad])
        except sqlite3.Error as exc:
            self._fail(exc)
            return {}
        return found

    def add(self, key: bytes, record: Record) -> None:
        """Pack a record to be stored by the next ``flush`` (or ``put_many``)."""
        if not self._broken:
            value = _pack(record)
            self._pending.append((key, value, len(value), time.time_ns()))
            self._pending_bytes += len(value)
            if self._pending_bytes > _PENDING_BYTES:
                self._write_pending()

    def _write_pending(self) -> None:
        """Store the records added so far in one transaction (memory stays small on a big session)."""
        db = self._connect()
        rows, self._pending, self._pending_bytes = self._pending, [], 0
        if db is None:
            return
        try:
            with _transaction(db):
                db.executemany("insert or replace into frags values (?, ?, ?, ?)", rows)
        except sqlite3.Error as exc:
            self._fail(exc)

    def put_many(self, records: Iterable[tuple[bytes, Record]]) -> None:
        """Store records in one transaction, then mark the hits used and evict past the bound."""
        for key, record in records:
            self.add(key, record)
        self.flush()

    def flush(self) -> None:
        """Store the records added so far in one transaction; mark the hits used; evict past the bound."""
        db = self._connect()
        if db is None:
            return
        now = time.time_ns()
        rows, self._pending, self._pending_bytes = self._pending, [], 0
        try:
            with _transaction(db):
                db.executemany("insert or replace into frags values (?, ?, ?, ?)", rows)
                db.executemany("update frags set used = ? where key = ?", [(now, k) for k in self._used])
            self._used.clear()
            self._evict(db)
        except sqlite3.Error as exc:
            self._fail(exc)

    def get_page(self, key: bytes) -> tuple[list[str], bytes] | None:
        """Return a whole page stored under ``key`` (its load warnings and bytes), or None."""
        db = self._connect()
        if db is None:
            return None
        try:
            row = db.execute("select cast(value as blob) from frags where key = ?", (key,)).fetchone()
            if row is None:
                return None
            page = _unpack_page(row[0])
            if page is None:  # damaged: a miss, and dropped
                db.execute("delete from frags where key = ?", (key,))
            else:
                self._used.append(key)
            return page
        except sqlite3.Error as exc:
            self._fail(exc)
            return None

    def seen(self, session_file: Path) -> bool:
        """Tell whether a page of this file (any version of it) was exported with this cache before."""
        return bool(self.present([_seen_key(session_file)]))

    def mark_seen(self, session_file: Path) -> None:
        """Remember that this file was exported (written by the next ``flush``)."""
        if not self._broken:
            self._pending.append((_seen_key(session_file), b"", 0, time.time_ns()))

    def put_page(self, key: bytes, record: bytearray) -> None:
        """Store a whole page under ``key``: its ``page_record`` with the page appended (under the
        same bound as the fragments; SQLite copies the record as it binds it, nothing else does)."""
        if not self._broken:
            self._pending.append((key, _seal(record), len(record), time.time_ns()))
            self.flush()
            record.clear()

    def _evict(self, db: sqlite3.Connection) -> None:
        (total,) = db.execute("select coalesce(sum(size), 0) from frags").fetchone()
        if total <= self.max_bytes:
            return
        target = total - self.max_bytes * 9 // 10  # down to 90%: not one eviction per write
        drop: list[bytes] = []
        for key, size in db.execute("select key, size from frags order by used"):
            drop.append(key)
            target -= size
            if target <= 0:
                break
        with _transaction(db):
            db.executemany("delete from frags where key = ?", [(k,) for k in drop])

    def close(self) -> None:
        """Write the pending records and use marks and close the file."""
        if self._used or self._pending:
            self.flush()
        if self._db is not None:
            self._db.close()
            self._db = None


class _transaction:
    """``begin immediate`` ... ``commit`` (rollback on error) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("begin immediate")

    def __exit__(self, kind: object, *_: object) -> None:
        self.db.execute("commit" if kind is None else "rollback")


def iter_keys(inputs: Iterable[Any]) -> Iterator[bytes | None]:
    """Yield the key of each fragment's inputs (None for a fragment that must not be cached)."""
    for item in inputs:
        yield None if item is None else fragment_key(item)
