"""The index page's rows in windows: sorted and filtered as ``index.js`` sorts and filters a page's
rows, so a served index carries its first rows and fetches the rest on demand (``/api/index-rows``).

The order: rows in each project by the sort chosen (larger first; ties keep the listing's order,
newest first), projects by their first row. A row shows when it or one of its subagents matches
every term (in its search text or its project's folder) and the agent chosen.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from sessiontree.archive.catalog import CatalogNode, ProjectGroup, group_by_project
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name
from sessiontree.store.times import time_millis

T = TypeVar("T")

SORTS = ("mtime", "created", "size", "prompts")
FIRST_ROWS = 100
"""The rows a served index page carries (the rest come as the reader scrolls)."""
MAX_ROWS = 500
CHUNK_ROWS = 200
"""The rows of each file a built site's index fetches after its first window, on average (as
serve's next windows; ``row_chunks``)."""


@dataclass(frozen=True, slots=True)
class RowQuery:
    """Which rows of the index: the page's sort and filters, and a window of the rows they give."""

    sort: str = "mtime"
    agent: str = ""
    project: str | None = None
    """A project's folder ("" is the group of sessions with no working directory); None: every one."""
    terms: tuple[str, ...] = ()
    offset: int = 0
    limit: int = FIRST_ROWS

    @classmethod
    def of(cls, params: Mapping[str, str]) -> RowQuery:
        """The query of a request's parameters (sort, agent, project, q, offset, limit); bad numbers
        and unknown sorts fall back to the defaults."""

        def number(name: str, default: int, high: int) -> int:
            try:
                return min(high, max(0, int(params.get(name) or default)))
            except ValueError:
                return default

        sort = params.get("sort") or "mtime"
        return cls(
            sort=sort if sort in SORTS else "mtime",
            agent=params.get("agent") or "",
            project=params.get("project"),
            terms=tuple(params.get("q", "").lower().split()),
            offset=number("offset", 0, 10_000_000),
            limit=max(1, number("limit", FIRST_ROWS, MAX_ROWS)),
        )


@dataclass(frozen=True, slots=True)
class RowWindow:
    """The rows of one window, grouped by project as the page shows them."""

    groups: list[ProjectGroup]
    total: int
    """Rows (top-level sessions) the query matches, in every window."""
    next: int | None
    """The offset of the next window, or None after the last."""


def search_text(entry: SessionInfo, title: str) -> str:
    """What the filter box looks in: title, first prompt, folder, key, agent and the machine a kept
    session came from, lower case."""
    words = (title, entry.first_message or "", entry.cwd, shown_name(entry.key), entry.agent)
    return " ".join((*words, entry.machine) if entry.machine else words).lower()


def shown_title(entry: SessionInfo) -> str:
    """A row's title: the session's, or its file's name when unreadable, or its id."""
    key = shown_name(entry.key)
    return entry.display_title or (key.rsplit("/", 1)[-1] if entry.error else entry.id)


def sort_value(entry: SessionInfo, by: str) -> int:
    """A row's value for a sort (as the page's ``data-mtime``, ``-created``, ``-size``, ``-prompts``)."""
    if by == "created":
        return time_millis(entry.created) or 0
    if by == "size":
        return entry.size
    if by == "prompts":
        return -1 if entry.prompt_count is None else entry.prompt_count
    return int(entry.modified * 1000)


def _matches(node: CatalogNode, terms: tuple[str, ...], cwd: str, agent: str) -> bool:
    entry = node.entry
    text = search_text(entry, shown_title(entry))
    own = (not agent or entry.agent == agent) and all(t in cwd or t in text for t in terms)
    return own or any(_matches(child, terms, cwd, agent) for child in node.children)


def _ordered(groups: Iterable[ProjectGroup], query: RowQuery) -> list[CatalogNode]:
    """Every row a query matches in the page's order (its project's folder is its own ``cwd``):
    the nodes of ``groups`` (``group_by_project``), shared by every order made of them."""
    ordered: list[tuple[int, int, ProjectGroup]] = []
    for place, group in enumerate(groups):
        if query.project is not None and group.cwd != query.project:
            continue
        cwd = group.cwd.lower()
        nodes = [
            n
            for n in group.nodes
            if not (query.terms or query.agent) or _matches(n, query.terms, cwd, query.agent)
        ]
        if not nodes:
            continue
        keyed = sorted(enumerate(nodes), key=lambda n: (-sort_value(n[1].entry, query.sort), n[0]))
        nodes = [n for _, n in keyed]
        ordered.append((-sort_value(nodes[0].entry, query.sort), place, ProjectGroup(group.cwd, nodes)))
    ordered.sort(key=lambda g: (g[0], g[1]))
    return [node for _, _, group in ordered for node in group.nodes]


def _with_folders(nodes: Iterable[CatalogNode]) -> Iterator[tuple[str, CatalogNode]]:
    """Each row with its project's folder (a top-level row's is its own ``cwd``)."""
    return ((node.entry.cwd, node) for node in nodes)


def _grouped(rows: Iterable[tuple[str, CatalogNode]]) -> list[ProjectGroup]:
    window: list[ProjectGroup] = []
    for cwd, node in rows:
        if window and window[-1].cwd == cwd:
            window[-1].nodes.append(node)
        else:
            window.append(ProjectGroup(cwd, [node]))
    return window


def select_rows(entries: Iterable[SessionInfo], query: RowQuery) -> RowWindow:
    """The window of rows a query asks for, grouped by project in the page's order."""
    return _window(_ordered(group_by_project(entries), query), query)


def _window(rows: list[CatalogNode], query: RowQuery) -> RowWindow:
    end = query.offset + query.limit
    shown = _grouped(_with_folders(rows[query.offset : end]))
    return RowWindow(shown, len(rows), end if end < len(rows) else None)


KEPT_ORDERS = 16
"""Sorts and filters whose rows an ``IndexRows`` keeps (the oldest made is dropped first)."""


class IndexRows:
    """One listing's rows in the order of each sort and filter asked for, each made once: a window
    of a listing that has not changed costs its slice, not a sort of every session. Thread-safe."""

    def __init__(self, entries: Iterable[SessionInfo]) -> None:
        self.entries = list(entries)
        self._orders: dict[tuple[object, ...], list[CatalogNode]] = {}
        self._made: dict[str, Any] = {}
        self._lock = threading.Lock()

    def made(self, name: str, make: Callable[[list[SessionInfo]], T]) -> T:
        """What ``make`` makes of this listing's entries, made once under ``name``."""
        with self._lock:
            if name in self._made:
                found: T = self._made[name]
                return found
        value = make(self.entries)
        with self._lock:
            return self._made.setdefault(name, value)  # type: ignore[no-any-return]

    def select(self, query: RowQuery) -> RowWindow:
        """``select_rows`` of this listing (the same window, from the rows kept for its sort and filter)."""
        return _window(self._nodes(query), query)

    def ordered(self, query: RowQuery) -> list[tuple[str, CatalogNode]]:
        """Every row of a sort and filter (the window aside), with its project's folder, in order."""
        return list(_with_folders(self._nodes(query)))

    def _nodes(self, query: RowQuery) -> list[CatalogNode]:
        """The rows of a sort and filter, kept: a list of the nodes of one grouping of the listing
        made once (each sort or filter kept costs a reference per row, not a node and a pair)."""
        key = (query.sort, query.agent, query.project, query.terms)
        with self._lock:
            rows = self._orders.get(key)
        if rows is None:
            rows = _ordered(self.made("groups", group_by_project), query)
            with self._lock:
                self._orders[key] = rows
                while len(self._orders) > KEPT_ORDERS:
                    del self._orders[next(iter(self._orders))]
        return rows


def content_cuts(items: Iterable[T], key: Callable[[T], str], size: int) -> list[list[T]]:
    """``items`` in runs of about ``size``: a run ends after an item whose key hashes to 0 mod
    ``size`` (or at twice that many), so the boundaries follow the items, not their places: an
    item added, removed or moved changes the runs around it and leaves the others as they were."""
    runs: list[list[T]] = []
    current: list[T] = []
    for item in items:
        current.append(item)
        if zlib.crc32(key(item).encode("utf-8", "surrogatepass")) % size == 0 or len(current) >= 2 * size:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


def row_chunks(entries: Iterable[SessionInfo] | IndexRows) -> list[list[ProjectGroup]]:
    """The rows after the first window in the default order (no filter), about ``CHUNK_ROWS`` at a
    time (``content_cuts``): what a built site's index fetches as the reader scrolls, or all of it
    to sort or filter; a build writes only the files whose rows changed."""
    rows = entries if isinstance(entries, IndexRows) else IndexRows(entries)
    ordered = rows.ordered(RowQuery())[FIRST_ROWS:]
    return [_grouped(chunk) for chunk in content_cuts(ordered, lambda row: row[1].entry.key, CHUNK_ROWS)]
