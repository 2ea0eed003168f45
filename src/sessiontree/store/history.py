"""HistoryStorage: the prompt history in ``<agent dir>/history.db`` (SQLite, FTS5, background inserts)."""

from __future__ import annotations

import atexit
import contextlib
import queue
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sessiontree.errors import HistoryError
from sessiontree.store.closing import Closing
from sessiontree.store.paths import AgentPaths
from sessiontree.store.sqlite_errors import SqliteAdvice

DEFAULT_BUSY_TIMEOUT = 5.0
# Inserts queued while the writer was busy go in one transaction, up to this many.
_MAX_BATCH = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    prompt TEXT NOT NULL,
    created_at INTEGER NOT NULL DEFAULT (unixepoch()),
    cwd TEXT
);
CREATE INDEX IF NOT EXISTS idx_history_created_at ON history(created_at DESC);
CREATE INDEX IF NOT EXISTS idx_history_cwd ON history(cwd);
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(prompt, content='history', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS history_ai AFTER INSERT ON history BEGIN
    INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt);
END;
CREATE TRIGGER IF NOT EXISTS history_ad AFTER DELETE ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, prompt) VALUES ('delete', old.id, old.prompt);
END;
CREATE TRIGGER IF NOT EXISTS history_au AFTER UPDATE ON history BEGIN
    INSERT INTO history_fts(history_fts, rowid, prompt) VALUES ('delete', old.id, old.prompt);
    INSERT INTO history_fts(rowid, prompt) VALUES (new.id, new.prompt);
END;
"""
_SCHEMA_OBJECTS = {"history", "history_fts", "history_ai", "history_ad", "history_au"}
_COLUMNS = "h.id, h.prompt, h.created_at, h.cwd"
# What SQLite says when the text is not valid FTS5 query syntax (as opposed to a locked or broken DB).
_FTS_SYNTAX_ERRORS = ("fts5:", "no such column", "unknown special query", "unterminated string")


def is_fts_syntax_error(exc: sqlite3.Error) -> bool:
    """Tell whether SQLite refused a MATCH because the text is not FTS5 query syntax."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc).startswith(_FTS_SYNTAX_ERRORS)


@dataclass(frozen=True)
class HistoryEntry:
    """One remembered prompt."""

    id: int
    prompt: str
    created_at: int
    cwd: str | None


def history_db_path(agent_dir: Path) -> Path:
    """Return ``<agent dir>/history.db``."""
    return AgentPaths(agent_dir).history_db


def escape_like(text: str) -> str:
    """Escape ``%``, ``_`` and the escape character itself for ``LIKE ... ESCAPE '\\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _connect(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """Open ``path`` in autocommit mode with a busy timeout and WAL, so two processes can write."""
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


def _open_reader(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """Open an existing history only to read it: no folder, schema or journal mode is created."""
    if not path.is_file():
        raise HistoryError(f"No prompt history at {path}; add a prompt first")
    # Not "mode=ro": a read-only connection cannot remove the -wal/-shm files it makes, while an
    # ordinary one that only reads leaves the folder as it found it when it closes last.
    conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA query_only=ON")
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.Error:
        conn.close()
        raise
    if not _SCHEMA_OBJECTS.issubset(names):
        conn.close()
        raise HistoryError(f"{path} holds no prompt history (tables missing); check the agent dir")
    return conn


_ERRORS = SqliteAdvice(
    HistoryError,
    busy="{path} is locked by another process; try again when it is done",
    damaged="{path} is not a usable SQLite database; move it away to start a new history",
    other="Cannot use {path}: {exc}",
)


class HistoryStorage(Closing):
    """Prompt history: ``add`` returns at once (a writer thread inserts), ``search`` uses FTS5."""

    def __init__(
        self, db_path: Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT, readonly: bool = False
    ) -> None:
        self.db_path = db_path
        self.busy_timeout = busy_timeout
        self.readonly = readonly
        try:
            self._reader = _open_reader(db_path, busy_timeout) if readonly else self._open_writable()
            row = self._reader.execute("SELECT prompt FROM history ORDER BY id DESC LIMIT 1").fetchone()
        except sqlite3.Error as exc:
            raise _ERRORS.error_of(db_path, exc) from None
        # Consecutive duplicates are caught here, in the caller's thread, without touching the DB.
        self._last_prompt: str | None = row[0] if row else None
        self._read_lock = threading.Lock()
        self._add_lock = threading.Lock()
        self._queue: queue.Queue[tuple[str, int, str | None] | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        self._error: HistoryError | None = None
        self._closed = False
        # Prompts still queued when the interpreter exits are written, not lost.
        atexit.register(self.close)

    def _open_writable(self) -> sqlite3.Connection:
        """Create the folder and schema as needed and return the reading connection."""
        try:
            self.db_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HistoryError(f"Cannot create {self.db_path.parent}: {exc.strerror}") from None
        conn = _connect(self.db_path, self.busy_timeout)
        try:
            self._ensure_schema(conn)
        except sqlite3.Error:
            conn.close()
            raise
        return conn

    @classmethod
    def open(
        cls, agent_dir: Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT, readonly: bool = False
    ) -> HistoryStorage:
        """Open the history of an agent dir (``readonly`` never creates or changes anything)."""
        return cls(history_db_path(agent_dir), busy_timeout=busy_timeout, readonly=readonly)

    @staticmethod
    def _ensure_schema(conn: sqlite3.Connection) -> None:
        """Create the tables, FTS index and triggers unless they are all there."""
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        # Checked first so opening an existing DB never needs the write lock another process may hold.
        if not _SCHEMA_OBJECTS.issubset(names):
            conn.executescript(_SCHEMA)

    # -- writing ---------------------------------------------------------------------------------

    def add(self, prompt: str, cwd: str | None = None) -> bool:
        """Queue ``prompt`` for insertion; return False for an empty prompt or a repeat of the last one."""
        text = prompt.strip()
        if not text:
            return False
        with self._add_lock:
            if self._closed or self.readonly:
                raise HistoryError("The history is closed or read-only; open it writable to add prompts")
            if text == self._last_prompt:
                return False
            self._last_prompt = text
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="history-writer", daemon=True)
                self._writer.start()
            self._queue.put((text, int(time.time()), cwd))
        return True

    def _write_loop(self) -> None:
        """Insert queued prompts, batching whatever piled up, until the stop marker arrives."""
        conn: sqlite3.Connection | None = None
        while True:
            item = self._queue.get()
            batch = [item]
            while item is not None and len(batch) < _MAX_BATCH:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                batch.append(item)
            rows = [b for b in batch if b is not None]
            if rows:
                conn = self._insert(conn, rows)
            for _ in batch:
                self._queue.task_done()
            if len(rows) < len(batch):
                break
        if conn is not None:
            conn.close()

    def _insert(
        self, conn: sqlite3.Connection | None, rows: list[tuple[str, int, str | None]]
    ) -> sqlite3.Connection | None:
        """Write one batch in one transaction; a failure is kept for ``flush`` and the next batch retries."""
        try:
            if conn is None:
                conn = _connect(self.db_path, self.busy_timeout)
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT INTO history (prompt, created_at, cwd) VALUES (?, ?, ?)", rows)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn is not None and conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self._error = _ERRORS.error_of(self.db_path, exc)
        return conn

    def flush(self) -> None:
        """Wait until every queued prompt is written; raise if a write failed."""
        if self._writer is not None:
            self._queue.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def close(self) -> None:
        """Write what is queued, stop the writer and close the database (idempotent)."""
        with self._add_lock:
            if self._closed:
                return
            self._closed = True
        try:
            self.flush()
        finally:
            atexit.unregister(self.close)
            if self._writer is not None:
                self._queue.put(None)
                self._writer.join()
            with self._read_lock:
                self._reader.close()

    # -- reading ---------------------------------------------------------------------------------

    def _select(self, sql: str, params: tuple[object, ...]) -> list[HistoryEntry]:
        with self._read_lock:
            rows = self._reader.execute(sql, params).fetchall()
        return [HistoryEntry(int(r[0]), str(r[1]), int(r[2]), r[3]) for r in rows]

    def recent(self, limit: int = 20, cwd: str | None = None) -> list[HistoryEntry]:
        """Return the newest prompts first (only those typed in ``cwd`` when given)."""
        where = "WHERE h.cwd = ?" if cwd is not None else ""
        params = (cwd, limit) if cwd is not None else (limit,)
        try:
            return self._select(
                f"SELECT {_COLUMNS} FROM history h {where} ORDER BY h.id DESC LIMIT ?", params
            )
        except sqlite3.Error as exc:
            raise _ERRORS.error_of(self.db_path, exc) from None

    def search(self, query: str, *, cwd: str | None = None, limit: int = 20) -> list[HistoryEntry]:
        """Search with FTS5 syntax, newest first; text that is not valid FTS5 is matched as a substring."""
        query = query.strip()
        if not query:
            return self.recent(limit, cwd)
        scope = " AND h.cwd = ?" if cwd is not None else ""
        extra: tuple[object, ...] = (cwd,) if cwd is not None else ()
        # Ordering by the FTS rowid (= history.id) lets FTS5 walk newest first and stop at LIMIT.
        fts_sql = (
            f"SELECT {_COLUMNS} FROM history_fts JOIN history h ON h.id = history_fts.rowid "
            f"WHERE history_fts MATCH ?{scope} ORDER BY history_fts.rowid DESC LIMIT ?"
        )
        try:
            return self._select(fts_sql, (query, *extra, limit))
        except sqlite3.Error as exc:
            if not is_fts_syntax_error(exc):
                raise _ERRORS.error_of(self.db_path, exc) from None
        like_sql = (
            f"SELECT {_COLUMNS} FROM history h WHERE h.prompt LIKE ? ESCAPE '\\'{scope} "
            "ORDER BY h.id DESC LIMIT ?"
        )
        try:
            return self._select(like_sql, (f"%{escape_like(query)}%", *extra, limit))
        except sqlite3.Error as exc:
            raise _ERRORS.error_of(self.db_path, exc) from None
