"""The usage page's answers as queries: totals per (project, agent, UTC quarter hour, model) and the
sessions a filter keeps, counted and ranked a page at a time (issue 54: the page no longer carries
every session's rows).

Two sources give the same answers: serve's store (``archive.usage_db``, SQL over its rows, a copied
message counted once by the copy-key rule of ``UsageDb.records``) and a list of records (a built
site's, which reads its usage in the build; ``session_usage.usage_records`` counts copies once).
A filter is the page's: a time range of quarter hours (the reader's days, turned into times by the
page), a project (its folder and the folders under it), an agent and a model.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import astuple, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from sessiontree.archive.dates import QUARTER_MS, midnight_of, quarter_of
from sessiontree.archive.usage import Usage, UsageRecord
from sessiontree.archive.usage_kept import KEEP, read_kept

if TYPE_CHECKING:
    import sqlite3
    import threading

UNKNOWN_PROJECT = "unknown"
"""The project of a session that recorded no folder (as the page names it)."""


@dataclass(frozen=True)
class UsageFilter:
    """The page's filters: ``since_ms`` / ``until_ms`` (quarter hours, ``until`` excluded; either
    leaves out undated usage), a project folder, an agent, a model (empty: any)."""

    since_ms: int | None = None
    until_ms: int | None = None
    project: str = ""
    agent: str = ""
    model: str = ""

    @property
    def dated(self) -> bool:
        return self.since_ms is not None or self.until_ms is not None


@dataclass(frozen=True)
class SessionTotal:
    """One session's usage over a filter: ``usage.model`` empty, the models with no price and those
    whose recorded cost is $0 named."""

    record: UsageRecord
    unpriced: tuple[str, ...] = ()
    free: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionPage:
    """How many sessions a filter keeps and a page of them, most cost (then tokens) first."""

    count: int
    offset: int
    sessions: list[SessionTotal] = field(default_factory=list)


class UsageAnswers(Protocol):
    """What the usage page asks (serve's store, or a build's records)."""

    def groups(self) -> list[UsageRecord]:
        """Totals per (project, agent, UTC quarter hour, model): ``path`` empty, ``cwd`` the project."""
        ...

    def sessions(self, where: UsageFilter, offset: int, limit: int) -> SessionPage:
        """The sessions ``where`` keeps, ranked, ``limit`` of them from ``offset``."""
        ...


def in_project(cwd: str, project: str) -> bool:
    """Whether a folder is a project's own or under it (never a name that only starts alike)."""
    folder = project.rstrip("/\\") or "/"
    return cwd == folder or cwd.startswith(folder if folder.endswith("/") else folder + "/")


def zero_models(groups: Iterable[UsageRecord]) -> set[str]:
    """Models whose recorded cost is $0 for tokens they spent (an agent that knew no price)."""
    spent: dict[str, list[float]] = {}
    for record in groups:
        u = record.usage
        if u.cost is not None:
            sums = spent.setdefault(u.model, [0.0, 0.0])
            sums[0] += u.cost
            sums[1] += u.input + u.output + u.cache_read + u.cache_write
    return {model for model, (cost, tokens) in spent.items() if cost == 0 and tokens > 0}


def _rank(total: SessionTotal) -> tuple[float, int, str]:
    u = total.record.usage
    return (-(u.cost or 0.0), -(u.input + u.output + u.cache_read + u.cache_write), total.record.path)


class RecordsAnswers:
    """The answers from records in memory (a build's; serve without a cache dir)."""

    def __init__(self, records: Sequence[UsageRecord]) -> None:
        self.records = records
        self._groups: list[UsageRecord] | None = None

    def groups(self) -> list[UsageRecord]:
        if self._groups is None:
            summed: dict[tuple[str, str, int, str], list[float]] = {}
            for r in self.records:
                u = r.usage
                if u.messages <= 0:
                    continue
                at = (r.cwd or UNKNOWN_PROJECT, r.agent, u.ts if u.ts > 0 else 0, u.model)
                _add(summed.setdefault(at, [0, 0, 0, 0, 0, 0.0, 0, 0, 0]), u)
            self._groups = [_group(at, sums) for at, sums in sorted(summed.items())]
        return self._groups

    def _kept(self, where: UsageFilter) -> Iterable[UsageRecord]:
        since = where.since_ms if where.since_ms is not None else -1
        until = where.until_ms
        for r in self.records:
            u = r.usage
            if u.messages <= 0:
                continue
            if where.dated and (u.ts <= 0 or u.ts < since or (until is not None and u.ts >= until)):
                continue
            if where.project and not in_project(r.cwd or UNKNOWN_PROJECT, where.project):
                continue
            if (where.agent and r.agent != where.agent) or (where.model and u.model != where.model):
                continue
            yield r

    def sessions(self, where: UsageFilter, offset: int, limit: int) -> SessionPage:
        free_models = zero_models(self.groups())
        per: dict[str, _Sums] = {}
        for r in self._kept(where):
            found = per.get(r.path)
            if found is None:
                found = per[r.path] = _Sums(r)
            found.add(r, free_models)
        ranked = sorted(per.values(), key=lambda sums: sums.rank)
        return SessionPage(len(ranked), offset, [sums.total() for sums in ranked[offset : offset + limit]])

    def tops(self, wheres: Sequence[UsageFilter], limit: int) -> list[SessionPage]:
        """``sessions(where, 0, limit)`` of each filter, from one pass over the records: a built
        site lists the top sessions of every project, agent and model (~50 filters), and a pass per
        filter was 2 s of every build at 10,000 sessions. Each session's rows are summed once whole
        and once per model, in the records' order (the same sums as ``sessions`` makes), so a
        filter of one project, agent or model only picks sessions; a dated or combined filter, or
        a session whose rows disagree on its project, agent or title, is asked of ``sessions``."""
        free_models = zero_models(self.groups())
        whole: dict[str, _Sums] = {}
        by_model: dict[tuple[str, str], _Sums] = {}
        for r in self.records:
            if r.usage.messages <= 0:
                continue
            found = whole.get(r.path)
            if found is None:
                found = whole[r.path] = _Sums(r)
            elif (found.first.cwd, found.first.agent, found.first.title) != (r.cwd, r.agent, r.title):
                return [self.sessions(where, 0, limit) for where in wheres]
            found.add(r, free_models)
            of_model = by_model.get((r.path, r.usage.model))
            if of_model is None:
                of_model = by_model[(r.path, r.usage.model)] = _Sums(r)
            of_model.add(r, free_models)
        models: dict[str, list[_Sums]] = {}
        for (_, model), sums in by_model.items():
            models.setdefault(model, []).append(sums)
        cwds: dict[str, list[_Sums]] = {}
        for sums in whole.values():
            cwds.setdefault(sums.first.cwd or UNKNOWN_PROJECT, []).append(sums)
        pages = []
        for where in wheres:
            if where.dated or sum(map(bool, (where.project, where.agent, where.model))) > 1:
                pages.append(self.sessions(where, 0, limit))
                continue
            kept: Iterable[_Sums] = whole.values()
            if where.model:
                kept = models.get(where.model, [])
            elif where.agent:
                kept = [s for s in kept if s.first.agent == where.agent]
            elif where.project:
                kept = [s for cwd, of in cwds.items() if in_project(cwd, where.project) for s in of]
            ranked = [(s.rank, s) for s in kept]
            top = heapq.nsmallest(limit, ranked, key=lambda pair: pair[0])
            pages.append(SessionPage(len(ranked), 0, [s.total() for _, s in top]))
        return pages


class _Sums:
    """One session's kept rows summed as ``RecordsAnswers.sessions`` sums them."""

    __slots__ = ("_rank", "first", "free", "sums", "unpriced")

    def __init__(self, first: UsageRecord) -> None:
        self.first = first
        self.sums: list[float] = [0, 0, 0, 0, 0, 0.0, 0, 0, 0]
        self.unpriced: tuple[str, ...] = ()  # mostly empty: no set made for each of 20,000 sums
        self.free: tuple[str, ...] = ()
        self._rank: tuple[float, int, str] | None = None

    def add(self, r: UsageRecord, free_models: set[str]) -> None:
        u = r.usage
        _add(self.sums, u)
        if u.unpriced > 0 and u.model not in self.unpriced:
            self.unpriced += (u.model,)
        if u.model in free_models and u.cost == 0 and u.model not in self.free:
            self.free += (u.model,)

    def total(self) -> SessionTotal:
        return SessionTotal(
            _session(self.first, self.sums), tuple(sorted(self.unpriced)), tuple(sorted(self.free))
        )

    @property
    def rank(self) -> tuple[float, int, str]:
        """``_rank`` of ``total()`` from the sums, no record made (once all rows are added)."""
        if self._rank is None:
            s = self.sums
            self._rank = (-(float(s[5]) if s[6] else 0.0), -int(s[1] + s[2] + s[3] + s[4]), self.first.path)
        return self._rank


def _add(sums: list[float], u: Usage) -> None:
    """Add a row's usage to sums in ``SUMS``' order (messages, the four token counts, cost, rows
    with a cost, estimated, unpriced): a group's and a session's, as the store's SQL sums them.
    Unrolled: twice per record of a build (38,000 at 10,000 sessions)."""
    sums[0] += u.messages
    sums[1] += u.input
    sums[2] += u.output
    sums[3] += u.cache_read
    sums[4] += u.cache_write
    sums[5] += u.cost or 0.0
    sums[6] += u.cost is not None
    sums[7] += u.estimated
    sums[8] += u.unpriced


def _group(at: tuple[str, str, int, str], sums: Sequence[float]) -> UsageRecord:
    project, agent, ts, model = at
    cost = float(sums[5]) if sums[6] else None
    counts = [int(n) for n in sums[:5]]
    usage = Usage(
        model, ts, counts[1], counts[2], counts[3], counts[4], cost, counts[0], int(sums[7]), int(sums[8])
    )
    return UsageRecord(usage, "", None, project, agent)


def _session(r: UsageRecord, sums: Sequence[float]) -> UsageRecord:
    cost = float(sums[5]) if sums[6] else None
    counts = [int(n) for n in sums[:5]]
    usage = Usage("", 0, counts[1], counts[2], counts[3], counts[4], cost, counts[0], int(sums[7]))
    return UsageRecord(usage, r.path, r.title, r.cwd, r.agent)


NET = """,
net AS (
    SELECT s.id AS session, s.path AS path, s.title AS title, s.cwd AS cwd,
        coalesce(s.cwd, 'unknown') AS project, s.agent AS agent, r.quarter AS quarter, r.model AS model,
        r.messages - coalesce(l.n, 0) AS messages, r.input - coalesce(l.i, 0) AS input,
        r.output - coalesce(l.o, 0) AS output, r.cache_read - coalesce(l.r, 0) AS cache_read,
        r.cache_write - coalesce(l.w, 0) AS cache_write, r.cost - coalesce(l.c, 0) AS cost,
        r.costed - coalesce(l.cc, 0) AS costed, r.estimated - coalesce(l.e, 0) AS estimated,
        r.unpriced - coalesce(l.u, 0) AS unpriced
    FROM sessions s JOIN rows r ON r.session = s.id
    LEFT JOIN later l ON l.session = r.session AND l.row = r.seq
)
"""
"""Every stored row less its messages counted in an earlier file (``usage_db._LATER`` before it)."""
SUMS = (
    "sum(messages), sum(input), sum(output), sum(cache_read), sum(cache_write), total(cost), "
    "sum(costed), sum(estimated), sum(unpriced)"
)
_FIELDS = tuple(part[part.index("(") + 1 : -1] for part in SUMS.split(", "))  # messages, ..., unpriced
_SUMS_NAMED = ", ".join(f"{'total' if f == 'cost' else 'sum'}({f}) AS s_{f}" for f in _FIELDS)
_SUMS_OF_RANKED = ", ".join(f"s_{f}" for f in _FIELDS)


def where_sql(where: UsageFilter) -> tuple[str, list[object]]:
    """The SQL condition on ``net``'s rows of a filter, and its parameters."""
    clause = ["messages > 0"]
    args: list[object] = []
    if where.dated:
        clause.append("quarter != ''")
        if where.since_ms is not None:
            clause.append("quarter >= ?")
            args.append(quarter_of(max(where.since_ms, 0)))
        if where.until_ms is not None:
            clause.append("quarter < ?")
            args.append(quarter_of(max(where.until_ms + QUARTER_MS - 1, 0)))
    if where.project:
        folder = where.project.rstrip("/\\") or "/"
        prefix = folder if folder.endswith("/") else folder + "/"
        clause.append("(project = ? OR substr(project, 1, ?) = ?)")
        args += [folder, len(prefix), prefix]
    if where.agent:
        clause.append("agent = ?")
        args.append(where.agent)
    if where.model:
        clause.append("model = ?")
        args.append(where.model.encode("utf-8", "surrogatepass"))
    return " AND ".join(clause), args


MADE = """
DROP TABLE IF EXISTS temp.usage_net;
DROP TABLE IF EXISTS temp.usage_ranked;
CREATE TEMP TABLE usage_net AS {with_net}
    SELECT session, path, title, cwd, project, agent, quarter, model, messages, input, output, cache_read,
        cache_write, cost, costed, estimated, unpriced
    FROM net WHERE messages > 0;
CREATE INDEX temp.usage_net_session ON usage_net(session);
CREATE TEMP TABLE usage_ranked AS
    SELECT session, path, title, cwd, agent, {sums}, total(cost) AS spent,
        sum(input + output + cache_read + cache_write) AS tokens
    FROM usage_net GROUP BY session;
CREATE INDEX temp.usage_ranked_order ON usage_ranked(spent DESC, tokens DESC, path);
"""
"""The store's rows as counted (a copied message once) in two tables of the connection's own (TEMP:
never in the file), made once per version of the answers: ``usage_net`` (rows with messages) and
``usage_ranked`` (a session's sums, indexed in the page's order: the default filter's top sessions a
walk of its index, their count a count of its rows)."""
RANKED = "SELECT session, path, title, cwd, agent, {sums} FROM usage_ranked"
DIRECT = "WITH later(session, row, n, i, o, r, w, c, cc, e, u) AS (SELECT 0,0,0,0,0,0,0,0,0,0,0 WHERE 0)"
DIRECT += NET.replace("FROM sessions s JOIN rows r", "FROM sessions s CROSS JOIN rows r")  # rows in order
"""``net`` of a store holding no copied message (none of its copy keys twice): its rows as they are,
queried with no table made (at 100,000 sessions the totals and first page 0.95 -> 0.55 s CPU)."""


class DbAnswers:
    """The answers of serve's usage store, by SQL over its rows (nothing per session held in Python):
    its rows counted once into TEMP tables when first asked (``MADE``), then queried; while no copied
    message is stored, the rows themselves (``DIRECT``)."""

    def __init__(
        self, connection: Callable[[], sqlite3.Connection], later: str, lock: threading.Lock
    ) -> None:
        """``connection``: the store's (it may change: a full disk moves it into memory); ``later``:
        its query of the messages counted in an earlier file (``WITH ...``)."""
        self._connection = connection
        self._made = MADE.format(with_net=later + NET, sums=_SUMS_NAMED)
        self._lock = lock
        self._ready = False
        self._generation: int | None = None
        """The store's generation these answers are of (read when first asked; -1: the rows changed
        between two questions, nothing kept then)."""
        self._groups: list[UsageRecord] | None = None
        self._pages: dict[tuple[UsageFilter, int, int], SessionPage] = {}

    def _now(self, conn: sqlite3.Connection) -> int:
        now = int(conn.execute("SELECT n FROM generation").fetchone()[0])
        if self._generation is None:
            self._generation = now
        elif now != self._generation:
            self._generation = -1
        return now

    def _made_now(self, conn: sqlite3.Connection) -> bool:
        """Whether the TEMP tables are made (under the lock): once a copied message is stored."""
        if not self._ready:
            self._now(conn)
            if conn.execute("SELECT 1 FROM dup_keys LIMIT 1").fetchone() is None:
                return False
            conn.executescript(self._made)
            self._ready = True
        return True

    def _rows(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            conn = self._connection()
            made = self._made_now(conn)
            return conn.execute(sql if made else DIRECT + sql.replace("usage_net", "net"), args).fetchall()

    def _ranked(self) -> bool:
        with self._lock:
            return self._made_now(self._connection())

    def _kept(self, name: str) -> Any:
        """What was kept under ``name`` for the store's rows as they are (None: not kept)."""
        with self._lock:
            conn = self._connection()
            if not self._ready:
                self._now(conn)
            return read_kept(conn, self._generation, name).get(name)

    def _keep(self, name: str, data: object) -> None:
        """Keep an answer with its generation, unless the rows changed since it was made."""
        with self._lock:
            self._connection().execute(KEEP, (name, json.dumps(data), self._generation))

    def groups(self) -> list[UsageRecord]:
        if self._groups is None:
            kept = self._kept("groups")
            if kept is not None:
                self._groups = kept_groups(kept)
                return self._groups
            starts: dict[str, int] = {}
            found = []
            sql = f"SELECT project, agent, quarter, model, {SUMS} FROM usage_net WHERE messages > 0 "
            sql += "GROUP BY project, agent, quarter, model"
            for project, agent, quarter, model, *sums in self._rows(sql):
                start = starts.get(str(quarter))
                if start is None:
                    start = starts[str(quarter)] = midnight_of(str(quarter)) if quarter else 0
                name = bytes(model).decode("utf-8", "surrogatepass")
                found.append(_group((project, agent, start, name), sums))
            self._groups = sorted(found, key=lambda g: (g.cwd, g.agent, g.usage.ts, g.usage.model))
            self._keep("groups", [(g.cwd, g.agent, astuple(g.usage)) for g in self._groups])
        return self._groups

    def sessions(self, where: UsageFilter, offset: int, limit: int) -> SessionPage:
        at = (where, offset, limit)
        made = self._pages.get(at)
        if made is not None:
            return made
        kept_as = kept_name(where, offset, limit)
        kept = None if kept_as is None else self._kept(kept_as)
        if kept is not None:
            made = self._pages[at] = kept_page(kept, offset)
            return made
        clause, args = where_sql(where)
        if where == UsageFilter() and self._ranked():  # the default: a walk of the ranked table's index
            count = self._rows("SELECT count(*) FROM usage_ranked")[0][0]
            ranked = self._rows(
                RANKED.format(sums=_SUMS_OF_RANKED)
                + " ORDER BY spent DESC, tokens DESC, path LIMIT ? OFFSET ?",
                [limit, offset],
            )
        else:
            count = self._rows(f"SELECT count(DISTINCT session) FROM usage_net WHERE {clause}", args)[0][0]
            ranked = self._rows(
                f"SELECT session, path, title, cwd, agent, {SUMS} FROM usage_net WHERE {clause} "
                "GROUP BY session "
                "ORDER BY total(cost) DESC, sum(input + output + cache_read + cache_write) DESC, path "
                "LIMIT ? OFFSET ?",
                [*args, limit, offset],
            )
        free_models = zero_models(self.groups())
        named: dict[object, tuple[set[str], set[str]]] = {row[0]: (set(), set()) for row in ranked}
        if named:
            marks = ", ".join("?" for _ in named)
            sql = (
                f"SELECT session, model, sum(unpriced), total(cost), sum(costed) FROM usage_net "
                f"WHERE {clause} AND session IN ({marks}) GROUP BY session, model"
            )
            for session, model, unpriced, cost, costed in self._rows(sql, [*args, *named]):
                name = bytes(model).decode("utf-8", "surrogatepass")
                if unpriced:
                    named[session][0].add(name)
                if name in free_models and costed and cost == 0:
                    named[session][1].add(name)
        sessions = []
        for session, path, title, cwd, agent, *sums in ranked:
            shown = bytes(path).decode("utf-8", "surrogatepass")
            record = UsageRecord(Usage("", 0, 0, 0, 0, 0, None), shown, title, cwd, agent)
            unpriced, free = named[session]
            sessions.append(
                SessionTotal(_session(record, sums), tuple(sorted(unpriced)), tuple(sorted(free)))
            )
        page = SessionPage(count, offset, sessions)
        if len(self._pages) > 256:
            self._pages.clear()
        self._pages[at] = page
        if kept_as is not None:
            self._keep(kept_as, [count, [_packed(s) for s in sessions]])
        return page


def kept_name(where: UsageFilter, offset: int, limit: int) -> str | None:
    """The name a page of sessions is kept under (the default filter's alone), or None."""
    return f"sessions {offset} {limit}" if where == UsageFilter() else None


def kept_groups(kept: list[Any]) -> list[UsageRecord]:
    return [UsageRecord(Usage(*u), "", None, cwd, agent) for cwd, agent, u in kept]


def _packed(total: SessionTotal) -> list[Any]:
    r = total.record
    return [astuple(r.usage), r.path, r.title, r.cwd, r.agent, total.unpriced, total.free]


def kept_page(kept: list[Any], offset: int) -> SessionPage:
    sessions = []
    for usage, path, title, cwd, agent, unpriced, free in kept[1]:
        record = UsageRecord(Usage(*usage), path, title, cwd, agent)
        sessions.append(SessionTotal(record, tuple(unpriced), tuple(free)))
    return SessionPage(kept[0], offset, sessions)
