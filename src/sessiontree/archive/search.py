"""Search every session: an SQLite FTS5 index in the cache dir, brought up to date before each query.

The index lives outside the agent dir and the sessions folders (they stay read-only); it is a
cache, rebuilt from the files whenever it is missing or of an older schema. Several processes can
search and index at once (WAL; one file indexed per transaction).
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive.collection import (
    default_cache_dir,
    files_clause,
    is_inside,
    path_of_key,
    root_clause,
)
from sessiontree.archive.index import update_index
from sessiontree.archive.index_db import INDEX_ERRORS, UpdateReport, connect, read_texts, reader
from sessiontree.archive.snippet import Snippet, fts_patterns, make_snippet, plain_pattern
from sessiontree.archive.usage_store import read_usage
from sessiontree.errors import SearchError
from sessiontree.store.closing import Closing
from sessiontree.store.parts import part_of_entry
from sessiontree.store.times import utc_datetime
from sessiontree.store.titles import cut_title

if TYPE_CHECKING:
    from sessiontree.archive.usage import UsageQuery, UsageRecord

INDEX_FILE = "search.db"
ROLE_CHOICES = ("user", "assistant", "tool")
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_SCAN_PAGE = 200


def check_cache_dir(cache_dir: Path, keep_out: Sequence[Path]) -> None:
    """Refuse a cache dir inside (or equal to) a folder that must stay read-only."""
    for folder in keep_out:
        if is_inside(cache_dir, folder):
            raise SearchError(
                f"The cache dir {cache_dir} is inside {folder}, which search never writes to; "
                "choose another --cache-dir"
            )


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """What narrows a search; None means no restriction."""

    project: str | None = None
    """Only sessions started in this (absolute) directory or under it (``collection.in_project``)."""
    since_ms: int | None = None
    """Only entries at or after this time (epoch milliseconds)."""
    until_ms: int | None = None
    """Only entries before this time (epoch milliseconds, exclusive)."""
    agent: str | None = None
    """Only this agent's files (``pi``, ``claude``, ``codex``, ...)."""
    role: str | None = None
    """``user``, ``assistant`` or ``tool`` (tool calls and their results)."""
    limit: int = 20
    offset: int = 0
    """Hits skipped first (the next page of a search starts where the last one ended)."""
    newest: bool = False
    """Newest entries first instead of the best matches first."""


@dataclass(frozen=True, slots=True)
class SearchCount:
    """How many hits a query has in all (never a page of them), and in how many sessions."""

    hits: int
    sessions: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One matching entry (or session title) and where to open it."""

    path: Path
    session_id: str | None
    title: str | None
    cwd: str | None
    entry_id: str | None
    role: str
    ts: int
    snippet: Snippet
    score: float

    @property
    def time(self) -> str:
        """The entry's time as ISO 8601 UTC (empty when unknown)."""
        if self.ts <= 0:
            return ""
        return utc_datetime(self.ts / 1000).isoformat(timespec="seconds").replace("+00:00", "Z")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "path": str(self.path),
            "sessionId": self.session_id,
            "title": self.title,
            "shortTitle": cut_title(self.title) if self.title else None,
            "cwd": self.cwd,
            "entryId": self.entry_id,
            "role": self.role,
            "time": self.time,
            "snippet": self.snippet.text,
            "marks": [list(m) for m in self.snippet.marks],
            "score": self.score,
        }


RANK_SLICE = 16_000
"""Body rows ranked at first: the newest this many by entry time, grown eightfold until they give
the hits asked for.

bm25 scores every matching row, and a word found in most of a 1 GB archive would take seconds
to rank whole: a common word is ranked among recent entries, a rare one (or a filtered search)
widens to the whole archive. The window is every row from a time on (its rowid range only
speeds the lookup) and ties are broken by time, path, entry and role, so the same files give
the same answer however the index was built or updated.
"""
_ORDER = " ORDER BY score, r.ts DESC, f.path, r.entry_id, r.role, r.id"


def _select(table: str) -> str:
    return (
        "SELECT r.id, r.entry_id, r.role, r.ts, f.path, f.session_id, f.title, f.cwd, "
        f"bm25({table}) AS score, f.agent, r.file_id "
        f"FROM {table} JOIN rows r ON r.id = {table}.rowid JOIN files f ON f.id = r.file_id "
        f"WHERE {table} MATCH ?"
    )


def _filter_sql(roots: Sequence[Path], filters: SearchFilters) -> tuple[str, list[Any]]:
    clause, params = files_clause(roots, filters.project, "f.path", "f.cwd")
    sql = f" AND {clause}"
    if filters.since_ms is not None:
        sql += " AND r.ts >= ?"
        params.append(filters.since_ms)
    if filters.until_ms is not None:
        sql += " AND r.ts < ?"
        params.append(filters.until_ms)
    if filters.agent is not None:
        sql += " AND coalesce(f.agent, 'pi') = ?"
        params.append(filters.agent)
    if filters.role is not None:
        sql += " AND r.role = ?"
        params.append(filters.role)
    return sql, params


def _is_fts_syntax_error(exc: sqlite3.Error) -> bool:
    from sessiontree.store.history import is_fts_syntax_error  # the history database, only on a bad query

    return is_fts_syntax_error(exc)


def plain_query(text: str) -> str:
    """The FTS5 phrase of a plain-text query's words (candidates; the text itself is checked after)."""
    words = _TOKEN.findall(text)
    return '"' + " ".join(words) + '"' if words else ""


class SearchIndex(Closing):
    """The search index of some session folders: ``update`` then ``search`` (thread-safe)."""

    def __init__(
        self, roots: Sequence[Path], cache_dir: Path | None = None, *, keep_out: Sequence[Path] = ()
    ) -> None:
        self.roots = [Path(os.path.abspath(r.expanduser())) for r in roots]
        self.cache_dir = (cache_dir or default_cache_dir()).expanduser()
        check_cache_dir(self.cache_dir, [*self.roots, *keep_out])
        self.db_path = self.cache_dir / INDEX_FILE
        self._lock = threading.Lock()
        self._conn = connect(self.db_path)
        self._read_lock = threading.Lock()
        try:
            self._read = reader(self.db_path)
        except SearchError:
            self._conn.close()
            raise
        """Searches' own connection: WAL lets them read what is committed while an update writes
        (serve's background slices hold the writing one for seconds at 100,000 files)."""

    def close(self) -> None:
        """Close the database."""
        with self._read_lock:
            self._read.close()
        with self._lock:
            self._conn.close()

    def update(
        self,
        on_start: Callable[[int, int], None] | None = None,
        deadline: float | None = None,
        budget: float | None = None,
        report: UpdateReport | None = None,
        on_progress: Callable[[], None] | None = None,
    ) -> UpdateReport:
        """Index what was appended, rewritten or added under the roots; forget deleted files.

        ``on_start(files, bytes)`` hears how much there is to read before reading starts; with a
        ``deadline`` (``time.monotonic()``) the newest files are read first and what is left when
        it comes is ``pending`` in the report; ``budget``, ``report``, ``on_progress``: see
        ``update_index``. Searches meanwhile read what is committed (a file at a time).
        """
        with self._lock:
            try:
                return update_index(self._conn, self.roots, on_start, deadline, budget, report, on_progress)
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None

    def usage(self, query: UsageQuery | None = None) -> list[UsageRecord]:
        """The indexed usage records under the roots that ``query`` keeps (call ``update`` first)."""
        with self._lock:
            try:
                return read_usage(self._conn, self.roots, query)
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None

    def data_version(self) -> int:
        """A number that changes when another connection commits to the index (SQLite's ``data_version``)."""
        with self._lock:
            try:
                return int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None

    def session_count(self, project: str | None = None) -> int:
        """How many indexed sessions a search covers (under the roots; in ``project`` when given)."""
        clause, params = root_clause(self.roots, "path")
        if project is not None:
            clause += " AND cwd = ?"
            params.append(project)
        with self._read_lock:
            try:
                row = self._read.execute(
                    f"SELECT count(*) FROM files WHERE session_id IS NOT NULL AND {clause}", params
                ).fetchone()
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None
        return int(row[0])

    def search(self, query: str, filters: SearchFilters | None = None) -> list[SearchHit]:
        """Rank matches (title and label hits first, then bm25, newest first on ties).

        FTS5 syntax (words, "a phrase", pre*, a OR b, a NOT b); text that is not valid FTS5 is
        matched as plain text.
        """
        filters = filters or SearchFilters()
        query = query.strip()
        if not query:
            return []
        where, params = _filter_sql(self.roots, filters)
        skip, end = filters.offset, filters.offset + filters.limit
        with self._read_lock:
            try:
                if filters.newest:
                    rows = self._newest(query, where, params, end)[skip:]
                else:
                    rows = self._ranked(query, where, params, end)[skip:]
                patterns = fts_patterns(query)
                return [self._hit(row, patterns) for row in rows]
            except sqlite3.Error as exc:
                if not _is_fts_syntax_error(exc):
                    raise INDEX_ERRORS.error_of(self.db_path, exc) from None
            try:
                pattern = plain_pattern(query)
                found = islice(self._plain_rows(query, where, params), skip, end)
                return [self._hit(row, [pattern], text) for row, text in found]
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None

    def count(self, query: str, filters: SearchFilters | None = None) -> SearchCount:
        """Count every hit ``search`` can page through for ``query`` (its limit and offset aside)."""
        filters = filters or SearchFilters()
        query = query.strip()
        if not query:
            return SearchCount(0, 0)
        where, params = _filter_sql(self.roots, filters)
        with self._read_lock:
            try:
                matches = " UNION ALL ".join(
                    f"SELECT r.file_id FROM {table} JOIN rows r ON r.id = {table}.rowid "
                    f"JOIN files f ON f.id = r.file_id WHERE {table} MATCH ?{where}"
                    for table in ("tfts", "fts")
                )
                sql = f"SELECT count(*), count(DISTINCT file_id) FROM ({matches})"
                hits, sessions = self._read.execute(sql, [query, *params, query, *params]).fetchone()
                return SearchCount(int(hits), int(sessions))
            except sqlite3.Error as exc:
                if not _is_fts_syntax_error(exc):
                    raise INDEX_ERRORS.error_of(self.db_path, exc) from None
            try:
                files = [row[4] for row, _text in self._plain_rows(query, where, params)]
            except sqlite3.Error as exc:
                raise INDEX_ERRORS.error_of(self.db_path, exc) from None
        return SearchCount(len(files), len(set(files)))

    def _newest(self, query: str, where: str, params: list[Any], limit: int) -> list[Any]:
        """Every match, newest entry first (ties as ``_ORDER`` breaks them)."""
        both = f"{_select('tfts')}{where} UNION ALL {_select('fts')}{where}"
        sql = f"SELECT * FROM ({both}) ORDER BY ts DESC, score, path, entry_id, role, id LIMIT ?"
        return self._read.execute(sql, [query, *params, query, *params, limit]).fetchall()

    def _ranked(self, query: str, where: str, params: list[Any], limit: int) -> list[Any]:
        """Title and label hits, then body hits (bm25 within each; the body ranking windowed)."""
        run = self._read.execute
        rows = run(_select("tfts") + where + _ORDER + " LIMIT ?", [query, *params, limit]).fetchall()
        wanted = limit - len(rows)
        if wanted <= 0:
            return rows
        body = _select("fts") + where
        span = RANK_SLICE
        # Counting up to RANK_SLICE matches costs little; a rarer query is ranked whole at once.
        many = run("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)", [query, span])
        if many.fetchone()[0] >= RANK_SLICE:
            while (window := self._window(span)) is not None:
                recent = run(
                    body + " AND r.ts >= ? AND fts.rowid >= ?" + _ORDER + " LIMIT ?",
                    [query, *params, *window, wanted],
                )
                found = recent.fetchall()
                if len(found) == wanted:
                    return rows + found
                span *= 8
        return rows + run(body + _ORDER + " LIMIT ?", [query, *params, wanted]).fetchall()

    def _window(self, span: int) -> tuple[int, int] | None:
        """(time, lowest row id) of the rows from the ``span``-th newest entry time on (None: all rows)."""
        run = self._read.execute
        row = run("SELECT ts FROM rows ORDER BY ts DESC LIMIT 1 OFFSET ?", (span,)).fetchone()
        if row is None or row[0] <= 0:
            return None
        return row[0], run("SELECT min(id) FROM rows WHERE ts >= ?", (row[0],)).fetchone()[0]

    def _plain_rows(self, query: str, where: str, params: list[Any]) -> Iterator[tuple[Any, str]]:
        """Match ``query`` as plain text: FTS5 finds rows with its words in order, the text decides."""
        phrase = plain_query(query)
        if not phrase:
            return
        pattern = plain_pattern(query)
        for table in ("tfts", "fts"):
            cursor = self._read.execute(_select(table) + where + _ORDER, [phrase, *params])
            while rows := cursor.fetchmany(_SCAN_PAGE):
                texts = read_texts(self._read, [row[0] for row in rows])
                for row in rows:
                    text = texts.get(row[0], "")
                    if pattern.search(" ".join(text.split())):
                        yield row, text

    def _text(self, row_id: int) -> str:
        return read_texts(self._read, [row_id]).get(row_id, "")

    def _part_title(self, file_id: int, part: str) -> str | None:
        """A later session of a file that holds several: its first prompt, one line (the file's
        title row is its first session's)."""
        first = self._read.execute(
            "SELECT id FROM rows WHERE file_id = ? AND role = 'user' AND entry_id >= ? AND entry_id < ?"
            " ORDER BY id LIMIT 1",
            (file_id, f"{part}:", f"{part};"),  # the ids '<part>:…' (';' follows ':')
        ).fetchone()
        text = " ".join(self._text(first[0]).split()) if first is not None else ""
        return cut_title(text) if text else None

    def _hit(self, row: Any, patterns: list[re.Pattern[str]], text: str | None = None) -> SearchHit:
        text = self._text(row[0]) if text is None else text
        # An entry of a file that holds several sessions opens its own session (``store.parts``).
        path, part = part_of_entry(path_of_key(row[4]), row[9], row[1])
        return SearchHit(
            path=path,
            session_id=row[5] if part is None else part,
            title=row[6] if part in (None, row[5]) else self._part_title(row[10], part),
            cwd=row[7],
            entry_id=row[1],
            role=row[2],
            ts=int(row[3]),
            snippet=make_snippet(text, patterns),
            score=float(row[8]),
        )


def search_sessions(
    roots: Sequence[Path],
    query: str,
    filters: SearchFilters | None = None,
    *,
    cache_dir: Path | None = None,
    keep_out: Sequence[Path] = (),
) -> list[SearchHit]:
    """Update the index of ``roots`` and search it (what ``sessiontree search`` does)."""
    with SearchIndex(roots, cache_dir, keep_out=keep_out) as index:
        index.update()
        return index.search(query, filters)
