"""Serve's usage rows in SQLite, not in memory: the catalog's rows per (UTC quarter hour, model) and
each message's copy key, written as files are read, totalled by queries.

The listing (``archive/catalog.py``) reads a file's usage rows with its counts
(``archive.session_usage``); with a store (serve: ``Sources(..., usage_store=True)``) it hands them
here as it stores the record and keeps none itself, so its memory no longer grows with each
session's rows (~9 KB a session at 100,000 before). A file's rows are written again only when its
(mtime, size) changed; a growing file's pass asks for its rows back to continue them. The database
lives in serve's cache dir (never in a listed folder); each write is one transaction, so a killed
run leaves the rows of before or after, never half. A file that is not SQLite, or fails SQLite's
own check, is removed and made again: its records are then read again from their files (the
catalog drops a record whose rows are not here), never shown as whole.

Totals are exact and the same as ``session_usage.usage_records``: a message copied into another
file (same copy key) counts once, in the first file listed oldest first (modified time, then key),
which the query finds with the copy key's index rather than a pass over every row in Python.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from sessiontree.archive.dates import midnight_of
from sessiontree.archive.usage import Usage, UsageRecord
from sessiontree.archive.usage_columns import MESSAGE, TOTALS
from sessiontree.archive.usage_kept import BUMP, KEPT_SCHEMA
from sessiontree.archive.usage_models import (
    ALL,
    LATER,
    MODEL_INDEX,
    model_names,
    model_sessions,
    models_json,
    session_models,
)
from sessiontree.archive.usage_query import DbAnswers
from sessiontree.store.atomic import make_private_dir
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import replace_surrogates

log = logging.getLogger(__name__)

SCHEMA_VERSION = 2
"""2: ``dup_keys`` kept as rows are written (a store of 1 is made again)."""
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY,
    root INTEGER NOT NULL,
    key BLOB NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    modified REAL NOT NULL,
    path BLOB NOT NULL,
    title TEXT,
    cwd TEXT,
    agent TEXT NOT NULL,
    UNIQUE (root, key)
);
CREATE TABLE IF NOT EXISTS rows (
    session INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    quarter TEXT NOT NULL,
    model BLOB NOT NULL,
    copied INTEGER NOT NULL,
    {TOTALS},
    PRIMARY KEY (session, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (
    session INTEGER NOT NULL,
    row INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    ckey INTEGER NOT NULL,
    {MESSAGE},
    PRIMARY KEY (session, row, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_ckey ON messages(ckey);
CREATE TABLE IF NOT EXISTS dup_keys (ckey INTEGER PRIMARY KEY);
CREATE INDEX IF NOT EXISTS sessions_order ON sessions(modified, key, root);
"""

_TOTALS = (
    LATER.format(source=ALL, where="1")
    + """
SELECT s.id, s.path, s.title, s.cwd, s.agent, r.quarter, r.model,
    r.messages - coalesce(l.n, 0), r.input - coalesce(l.i, 0), r.output - coalesce(l.o, 0),
    r.cache_read - coalesce(l.r, 0), r.cache_write - coalesce(l.w, 0), r.cost - coalesce(l.c, 0),
    r.costed - coalesce(l.cc, 0), r.estimated - coalesce(l.e, 0), r.unpriced - coalesce(l.u, 0)
FROM sessions s JOIN rows r ON r.session = s.id
LEFT JOIN later l ON l.session = r.session AND l.row = r.seq
ORDER BY s.modified, s.key, s.root, r.seq
"""
)


def _enc(text: str) -> bytes:
    """Text as stored: UTF-8 with a name's lone surrogates (undecodable bytes, JSON escapes) kept."""
    return text.encode("utf-8", "surrogatepass")


def _dec(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


def _connect(path: Path) -> sqlite3.Connection:
    with contextlib.suppress(FileExistsError):  # the user's alone, as the catalog's cache (its WAL too)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    conn = sqlite3.connect(path, timeout=60, check_same_thread=False, isolation_level=None)
    try:
        if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise sqlite3.DatabaseError("quick_check failed")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version not in (0, SCHEMA_VERSION):
            raise sqlite3.DatabaseError(f"schema {version}")
        # A cache: a commit need not reach the disk (WAL, NORMAL: never torn, at worst the last
        # commits lost and their files read again); each file's rows was 3 syncs before.
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.executescript(SCHEMA + MODEL_INDEX + KEPT_SCHEMA)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    except sqlite3.DatabaseError:
        conn.close()
        raise
    return conn


_CANNOT_WRITE = {3, 8, 10, 13, 14}
"""SQLite's primary codes of a file it cannot write (PERM, READONLY, IOERR, FULL, CANTOPEN): the
store is not damaged then, the disk is full or the folder not the user's to write."""


def _cannot_write(exc: BaseException) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    return isinstance(exc, OSError) or (code is not None and code & 0xFF in _CANNOT_WRITE)


def _in_memory(source: sqlite3.Connection | None = None) -> sqlite3.Connection:
    """A store in memory (a copy of ``source``'s rows, which reading a full disk's file still gives)."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    if source is not None:
        source.backup(conn)
    conn.executescript(SCHEMA + MODEL_INDEX + KEPT_SCHEMA)
    return conn


def store_path(cache_dir: Path, roots: Sequence[Path], version: int) -> Path:
    """The file of the usage store of these roots (``version``: the catalog's; another, another file)."""
    names = "\0".join(str(Path(root).resolve()) for root in roots)
    digest = hashlib.sha256(names.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return Path(cache_dir) / f"usage-{digest}-v{version}.sqlite"


class UsageDb:
    """The usage rows of the listed files of several roots (by root index and the catalog's key).

    A cache dir it cannot write (a full disk, a folder not the user's) costs memory, not the
    server: the store goes on in memory (a copy of what the file holds), said once in the log.
    """

    def __init__(self, cache_dir: Path, roots: Sequence[Path], version: int) -> None:
        """``version``: the catalog's (its rows' shape); another is another file."""
        self.path = store_path(cache_dir, roots, version)
        self._lock = threading.Lock()
        self.in_memory = False
        """The cache dir could not be written: the rows are kept in memory from then on."""
        try:
            self._conn = self._open_file()
        except (sqlite3.Error, OSError) as exc:
            self._conn = self._memory(None, exc)
        self._sigs = self._read_sigs()

    def _open_file(self) -> sqlite3.Connection:
        make_private_dir(self.path.parent)
        try:
            return _connect(self.path)
        except sqlite3.DatabaseError as exc:  # damaged or not ours: made again (the files are read again)
            if _cannot_write(exc):
                raise
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    Path(str(self.path) + suffix).unlink()
            return _connect(self.path)

    def _memory(self, source: sqlite3.Connection | None, why: BaseException) -> sqlite3.Connection:
        """A store in memory holding ``source``'s rows (a file that cannot even be read then:
        its error is raised, the file kept as it is)."""
        conn = _in_memory(source)
        self.in_memory = True
        log.warning("usage rows kept in memory, not in %s: %s", self.path, why)
        return conn

    @classmethod
    def open(cls, cache_dir: Path | None, roots: Sequence[Path], version: int) -> UsageDb | None:
        """The store of these roots in ``cache_dir``; None without one (rows kept in memory)."""
        return None if cache_dir is None else cls(cache_dir, roots, version)

    def stored(self, root: int | None = None, key: str = "") -> bool:
        """Whether any rows of this session are stored (of whatever state of its file); no root:
        whether any session's are (a store a server left, or a fresh one)."""
        return bool(self._sigs) if root is None else (root, key) in self._sigs

    def known(self, root: int, key: str, sig: tuple[int, int]) -> bool:
        """Whether the rows of this session, as of this (mtime, size) of its file, are stored."""
        return self._sigs.get((root, key)) == sig

    def store(
        self,
        root: int,
        found: Iterable[tuple[SessionInfo, tuple[int, int], list[list[Any]] | None]],
        keep: set[str] | None = None,
    ) -> None:
        """Write the rows of sessions read since (record, its file's (mtime, size), its rows: None
        when not read whole yet, which removes it) and, with ``keep``, remove this root's other
        sessions, in one transaction (in memory from then on when the file cannot be written)."""
        found = list(found)
        with self._lock:
            try:
                self._store(root, found, keep)
            except sqlite3.Error as exc:
                if self.in_memory or not _cannot_write(exc):
                    raise
                on_disk = self._conn
                self._conn = self._memory(on_disk, exc)  # the file's rows as they were
                on_disk.close()
                self._sigs = self._read_sigs()
                self._store(root, found, keep)

    def _store(
        self,
        root: int,
        found: list[tuple[SessionInfo, tuple[int, int], list[list[Any]] | None]],
        keep: set[str] | None,
    ) -> None:
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        before = conn.total_changes
        try:
            if keep is not None:
                for key in [k for r, k in self._sigs if r == root and k not in keep]:
                    self._forget(root, key)
            for entry, sig, rows in found:
                self._forget(root, entry.key)
                if rows is not None:
                    self._put(root, entry, sig, rows)
            if conn.total_changes != before:
                conn.execute(BUMP)  # the answers kept are of the rows before
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # SQLite rolled back itself on some errors (a full disk)
                conn.execute("ROLLBACK")
            self._sigs = self._read_sigs()
            raise

    def _read_sigs(self) -> dict[tuple[int, str], tuple[int, int]]:
        """Each stored session's file (mtime, size): what ``known`` and ``store`` compare."""
        found = self._conn.execute("SELECT root, key, mtime_ns, size FROM sessions")
        return {(root, _dec(key)): (mtime_ns, size) for root, key, mtime_ns, size in found}

    def _forget(self, root: int, key: str) -> None:
        if self._sigs.pop((root, key), None) is None:
            return
        found = self._conn.execute(
            "SELECT id FROM sessions WHERE root = ? AND key = ?", (root, _enc(key))
        ).fetchone()
        if found is not None:
            held = self._conn.execute(
                "SELECT DISTINCT ckey FROM messages WHERE session = ? "
                "AND ckey IN (SELECT ckey FROM dup_keys)",
                found,
            ).fetchall()
            for table in ("rows", "messages"):
                self._conn.execute(f"DELETE FROM {table} WHERE session = ?", found)
            self._conn.execute("DELETE FROM sessions WHERE id = ?", found)
            self._conn.executemany(
                "DELETE FROM dup_keys WHERE ckey = ? AND (SELECT count(*) FROM messages WHERE ckey = ?) < 2",
                ((key, key) for (key,) in held),
            )

    def _put(self, root: int, entry: SessionInfo, sig: tuple[int, int], rows: list[list[Any]]) -> None:
        title = replace_surrogates(entry.title or entry.first_message or "") or None
        cwd = replace_surrogates(entry.cwd) or None
        path = os.path.abspath(entry.path)
        session = self._conn.execute(
            "INSERT INTO sessions (root, key, mtime_ns, size, modified, path, title, cwd, agent) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (root, _enc(entry.key), *sig, entry.modified, _enc(path), title, cwd, entry.agent),
        ).lastrowid
        self._conn.executemany(
            "INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((session, seq, row[0], _enc(row[1]), *row[2:12]) for seq, row in enumerate(rows)),
        )
        self._conn.executemany(
            "INSERT INTO messages VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                (session, seq, n, *message)
                for seq, row in enumerate(rows)
                for n, message in enumerate(row[12])
            ),
        )
        self._conn.execute(  # its copy keys held twice now (here, or here and in another file)
            "INSERT OR IGNORE INTO dup_keys SELECT DISTINCT m.ckey FROM messages m WHERE m.session = ? "
            "AND (SELECT count(*) FROM messages m2 WHERE m2.ckey = m.ckey) > 1",
            (session,),
        )
        self._sigs[(root, entry.key)] = sig

    def rows(self, root: int, key: str) -> list[list[Any]]:
        """A stored session's rows as the line pass keeps them (to continue a growing file's)."""
        with self._lock:
            found = self._conn.execute(
                "SELECT id FROM sessions WHERE root = ? AND key = ?", (root, _enc(key))
            ).fetchone()
            if found is None:
                return []
            rows = [
                [r[0], _dec(r[1]), *r[2:], []]
                for r in self._conn.execute(
                    "SELECT quarter, model, copied, messages, input, output, cache_read, cache_write, cost, "
                    "costed, estimated, unpriced FROM rows WHERE session = ? ORDER BY seq",
                    found,
                )
            ]
            for at, *message in self._conn.execute(
                "SELECT row, ckey, input, output, cache_read, cache_write, cost, estimated, unpriced "
                "FROM messages WHERE session = ? ORDER BY row, seq",
                found,
            ):
                rows[at][12].append(message)
            return rows

    def records(self) -> list[UsageRecord]:
        """Every stored session's totals per (UTC quarter hour, model), copied messages counted once
        (``session_usage.usage_records``' rule)."""
        records: list[UsageRecord] = []
        starts: dict[str, int] = {}
        # A session's names, a model's: one str each, shared by its rows (at 100,000 sessions a
        # str per row held ~40 MB more while the usage page was made).
        names: dict[int, tuple[str, str | None, str | None, str]] = {}
        models: dict[bytes, str] = {}
        with self._lock:
            for session, path, title, cwd, agent, quarter, model, messages, *counts in self._conn.execute(
                _TOTALS
            ):
                if messages <= 0:
                    continue
                named = names.get(session)
                if named is None:
                    named = names[session] = (_dec(path), title, cwd, agent)
                shown = models.get(model)
                if shown is None:
                    shown = models[model] = _dec(model)
                start = starts.get(quarter)
                if start is None:
                    start = starts[quarter] = midnight_of(quarter)
                tokens_in, tokens_out, read, write, cost, costed, estimated, unpriced = counts
                spent = float(cost) if costed else None
                usage = Usage(
                    shown,
                    start,
                    tokens_in,
                    tokens_out,
                    read,
                    write,
                    spent,
                    messages,
                    estimated,
                    unpriced,
                )
                records.append(UsageRecord(usage, *named))
        return records

    def generation(self) -> int:
        """Bumped by every write that changed the rows: equal, the same answers."""
        with self._lock:
            return int(self._conn.execute("SELECT n FROM generation").fetchone()[0])

    def answers(self) -> DbAnswers:
        """The usage page's queries over the rows as they are (``archive.usage_query``)."""
        return DbAnswers(lambda: self._conn, LATER.format(source=ALL, where="1"), self._lock)

    def models(self, keys: Sequence[tuple[int, str]] | None = None) -> dict[tuple[int, str], list[str]]:
        """The models of these sessions (root, key), or of every stored one, most messages first
        (``usage_models.session_models``): the sessions pane's rows."""
        with self._lock:
            return session_models(self._conn, keys)

    def models_json(self, labels: Sequence[str]) -> bytes:
        """Every stored session's models as JSON (``usage_models.models_json``)."""
        with self._lock:
            return models_json(self._conn, labels)

    def model_names(self) -> list[str]:
        """Every model counted, sorted (``usage_models.model_names``: the pane's choices)."""
        with self._lock:
            return model_names(self._conn)

    def models_by_key(
        self,
        keys: Iterable[str] | None,
        prefix: Callable[[int], str],
        split: Callable[[str], tuple[int, str]],
    ) -> dict[str, list[str]]:
        """``models`` by a listing's keys (``Sources``: ``prefix`` of a root, ``split`` of a key)."""
        if keys is None:
            found = sorted(self.models().items(), key=lambda item: -item[0][0])
            # The first root's last: a live file's models, not its kept copy's (as ``split`` picks).
            return {prefix(root) + key: models for (root, key), models in found}
        wanted: dict[tuple[int, str], str] = {}
        for key in keys:
            with contextlib.suppress(ValueError):
                wanted[split(key)] = key
        return {wanted[at]: models for at, models in self.models(list(wanted)).items()}

    def model_keys(
        self, model: str, labels: Sequence[str], split: Callable[[str], tuple[int, str]]
    ) -> list[str]:
        """The listing's keys (``labels``: each root's) of the sessions that used ``model``
        (``usage_models.model_sessions``); of a key stored under two roots of one label, the one
        ``split`` lists (the live file)."""
        with self._lock:
            found = model_sessions(self._conn, model)
        prefixes = [f"{label}/" if label else "" for label in labels]
        shared = {n for n, label in enumerate(labels) if labels.count(label) > 1}
        keys = []
        for root, key in found:
            shown = prefixes[root] + key
            if root in shared:
                with contextlib.suppress(ValueError):
                    if split(shown)[0] != root:
                        continue
            keys.append(shown)
        return keys

    def close(self) -> None:
        with self._lock:
            self._conn.close()
