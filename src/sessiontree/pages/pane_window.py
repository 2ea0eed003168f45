"""The sessions pane's windows: a filtered, dated page of the pane's list, counted, from an index.

``PaneIndex`` is made once per listing version from the pane's order (``sessions_data.pane_order``):
the positions of the sessions of each project, agent and both, in that order (newest first). A
window of a filter is then a lookup, two bisects for its days (the order is by time), one for the
session it is fetched around and one for how many changed since a time mark, and a slice: no walk
of every session per request. A model filter's list is made when it is asked from the usage store's
indexed query of that model's sessions (``archive.usage_models``: no dict of every session's models,
+65 MiB at 100,000), and kept while neither the listing nor the store's rows changed.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name

MAX_WINDOW = 500
"""The most sessions one window holds (a part of the full list had as many)."""

Positions = Sequence[int]
ModelLists = Callable[[str | None, str, str], Positions]
"""The positions of a (project or None, agent or "", model)'s sessions (``PaneIndex.model_positions``)."""
KEPT_MODEL_LISTS = 64
"""The model filters' lists kept per usage store generation (each one array, 8 bytes a session)."""


@dataclass(frozen=True)
class PaneQuery:
    """What the pane shows: a project (None: every one; or the project of the session ``of``), an
    agent and a model ("": any), last activity from ``since`` (ms, inclusive) to ``until`` (ms,
    exclusive), ``limit`` sessions from ``offset`` or around the session ``around`` (its key as the
    pane has it), and how many of the kept sessions changed after ``mark`` (ms)."""

    project: str | None = None
    of: str | None = None
    agent: str = ""
    model: str = ""
    since: int | None = None
    until: int | None = None
    offset: int = 0
    limit: int = 100
    around: str | None = None
    mark: int | None = None


@dataclass(frozen=True)
class PaneWindow:
    """A window of the sessions a query keeps: ``total`` kept, the window's first ``offset``, its
    sessions, where ``around`` is among the kept (-1: not kept), and ``fresh`` (changed after the
    mark; 0 without one)."""

    total: int
    offset: int
    sessions: list[SessionInfo]
    at: int
    fresh: int


def _packed(values: Iterable[int]) -> array[int]:
    return array("l", values)


class PaneIndex:
    """The pane's order with its sessions' positions by project, agent and both (made once)."""

    def __init__(self, ordered: list[SessionInfo]) -> None:
        self.ordered = ordered
        self.stamps = _packed(-int(e.modified * 1000) for e in ordered)  # ascending: newest first
        self.position = {shown_name(e.key): n for n, e in enumerate(ordered)}
        lists: dict[tuple[str | None, str], list[int]] = {}
        for n, e in enumerate(ordered):
            agent = e.agent or ""
            for key in {(e.cwd, ""), (None, agent), (e.cwd, agent)}:
                lists.setdefault(key, []).append(n)
        self.lists = {key: _packed(found) for key, found in lists.items()}
        self.projects = sorted({p for p, _ in lists if p})
        self.agents = sorted({a for p, a in lists if p is None and a})
        self._models_tag: object = None
        self._model_lists: dict[tuple[str | None, str, str], array[int]] = {}
        self._lock = threading.Lock()

    def model_positions(
        self, tag: object, model: str, project: str | None, agent: str, keys: Callable[[str], Iterable[str]]
    ) -> Positions:
        """The positions of the sessions of ``model`` (of ``project`` and ``agent`` when given) in
        this order, from ``keys`` (the usage store's indexed query of one model's sessions), kept
        while ``tag`` (the store's generation) stays, for the last ``KEPT_MODEL_LISTS`` asked."""
        with self._lock:
            if self._models_tag != tag:
                self._models_tag, self._model_lists = tag, {}
            found = self._model_lists.get((project, agent, model))
        if found is not None:
            return found
        if project is None and not agent:
            position = self.position.get
            made = _packed(sorted(n for key in keys(model) if (n := position(key)) is not None))
        else:
            every, ordered = self.model_positions(tag, model, None, "", keys), self.ordered
            made = _packed(
                n
                for n in every
                if (project is None or ordered[n].cwd == project)
                and (not agent or (ordered[n].agent or "") == agent)
            )
        with self._lock:
            if self._models_tag == tag:
                if len(self._model_lists) >= KEPT_MODEL_LISTS:
                    self._model_lists.pop(next(iter(self._model_lists)))
                self._model_lists[(project, agent, model)] = made
        return made

    def _kept(self, query: PaneQuery, models: ModelLists | None) -> Positions:
        project = query.project
        if query.of is not None:  # "this project": none kept when the session is not listed
            at = self.position.get(query.of)
            if at is None:
                return ()
            project = self.ordered[at].cwd
        if query.model:
            return () if models is None else models(project, query.agent, query.model)
        if project is None and not query.agent:
            return range(len(self.ordered))
        return self.lists.get((project, query.agent), ())

    def window(self, query: PaneQuery, models: ModelLists | None = None) -> PaneWindow:
        """The sessions ``query`` keeps: counted, and the window it asks for (a few bisects and a slice)."""
        kept = self._kept(query, models)
        stamp = self.stamps.__getitem__
        lo = 0 if query.until is None else bisect_right(kept, -query.until, key=stamp)
        hi = len(kept) if query.since is None else bisect_right(kept, -query.since, lo, key=stamp)
        total = hi - lo
        at = -1
        where = None if query.around is None else self.position.get(query.around)
        if where is not None:
            found = bisect_left(kept, where, lo, hi)
            at = found - lo if found < hi and kept[found] == where else -1
        offset = query.offset
        if at >= 0:  # the window holds the session it is asked around, a third of the way down
            offset = at - query.limit // 3
        offset = max(0, min(offset, total - query.limit)) if at >= 0 else max(0, min(offset, total))
        start = lo + offset
        shown = [self.ordered[n] for n in kept[start : min(hi, start + query.limit)]]
        fresh = 0 if query.mark is None else bisect_left(kept, -query.mark, lo, hi, key=stamp) - lo
        return PaneWindow(total, offset, shown, at, fresh)
