"""Serve's search API over the archive index kept in the cache dir, and the usage page (the routes
table, `serve.routes.routes`, names these handlers with the rest).

The index is brought up to date before each search (a stat pass over the folder; only appended
bytes and changed files are read), so hits follow growing sessions. The usage page and the
pane's model filter never wait for it: they read the listing's usage rows
(``archive.session_usage``), made by the line pass that counts messages. Nor do they wait for
that pass: while serve's background pass still reads files listed from their prefixes, they
answer with what is counted so far (the usage page says so and reloads itself until the count is
done; the pane asks for the models again as the listing changes).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from sessiontree.archive.index_db import UpdateReport
from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit, SearchIndex
from sessiontree.archive.usage_query import RecordsAnswers, UsageAnswers, UsageFilter
from sessiontree.errors import SearchError
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.sessions_data import (
    DATA_VERSION,
    PART_ROWS,
    models_by_path,
    pane_order,
    session_record,
)
from sessiontree.pages.usage_data import PAGE_SIZE, listed_json
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.serve.pages import html_response, render_served_search
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name
from sessiontree.store.titles import cut_title

log = logging.getLogger(__name__)

MAX_LIMIT = 100
FIRST_ANSWER_SECONDS = 1.2
"""How long a search indexes before it answers with what is indexed so far (and how much is not)."""
ANSWER_SECONDS = 1.0
"""A search whose update is still walking and stat'ing the folders this long after it was asked (a
fresh server at 100,000 files: seconds) answers from the index as it is, the update going on."""
MAX_OFFSET = 10_000_000
NO_STORE = {"Cache-Control": "no-store"}

LinkFor = Callable[[str | Path, str | None], str | None]
"""The served page of a session file at an entry, or None for a file outside the served folders."""
UsageSoFar = Callable[[], tuple[UsageAnswers, int]]
"""The usage counted so far and how many files are still to count (serve: ``Listing.usage_so_far``)."""


class ArchiveService:
    """One search index per server, opened on first use; requests take turns updating it."""

    def __init__(
        self,
        roots: Sequence[Path],
        cache_dir: Path | None,
        keep_out: tuple[Path, ...] = (),
        *,
        theme: str = "auto",
        link_for: LinkFor,
        usage_so_far: UsageSoFar,
        usage_api: str | None = None,
        usage_events: str | None = None,
        nav: NavLinks | None = None,
        on_pending: Callable[[], None] | None = None,
        file_count: Callable[[], int] | None = None,
    ):
        self.roots = list(roots)
        self.nav = nav
        self.link_for = link_for
        self.cache_dir = cache_dir
        self.keep_out = keep_out
        self.theme = theme
        self.usage_so_far = usage_so_far
        self.usage_api = usage_api
        """Where the usage page asks for the sessions of a filter (``/api/usage-sessions``)."""
        self.usage_events = usage_events  # where it hears how many files are left (``/usage/events``)
        self.on_pending = on_pending
        """Told (from a worker thread) when a search left files to index: wakes serve's updates."""
        self.file_count = file_count
        """How many files the listing knows (what a search tells as left while its update still walks)."""
        self._index: SearchIndex | None = None
        self._open_lock = threading.Lock()
        self._lock = threading.Lock()
        """Held by the update that runs (one at a time); searches never wait for it."""
        self._progress = threading.Condition()
        """Guards the next four; notified as an update starts, reads a file and ends."""
        self._started = 0
        """Updates started: one numbered above a search's count saw the files as they are since."""
        self._ended = 0
        self._running: UpdateReport | None = None
        self._error: SearchError | None = None
        """Why the last update failed (a search waiting for it says so)."""
        self._watched = False
        self._changes = 0
        """Changes the watcher reported (``changed``)."""
        self.indexing = False
        """Set while serve's background updates run (``update_if_open`` woken by ``on_pending``): a
        search with files left to index then answers from the index as it is, no stat pass of its
        own (at 100,000 files each search's pass held the index for seconds and read one file)."""
        self._left = 0
        """Files the last update left to index."""
        self._clean: int | None = None
        """``_changes`` as of the last update that left nothing to index, while watched: equal, no
        file can have changed since, and a search skips the stat of every file (260 ms at 10,000)."""
        self._usage_page: tuple[UsageAnswers, int, str] | None = None
        self._models: tuple[UsageAnswers, bytes] | None = None
        self._usage_lock = threading.Lock()

    def _open(self) -> SearchIndex:
        with self._open_lock:
            if self._index is None:
                self._index = SearchIndex(self.roots, self.cache_dir, keep_out=self.keep_out)
            return self._index

    def watched(self, on: bool) -> None:
        """Say whether the watcher reports every change under the roots from now on (then an index
        brought up to date stays so until it reports one)."""
        self.changed()
        self._watched = on

    def changed(self) -> None:
        """Something under the roots changed (the watcher): the next search or update looks again."""
        self._changes += 1  # in the event loop alone; a worker thread only reads it

    def _update(self, index: SearchIndex, deadline: float | None = None, budget: float | None = None) -> int:
        """Bring the index up to date (until ``deadline``): how many changed files are left. Under
        ``_lock``. Nothing to do while the watcher reported no change since an update that left
        nothing (a warm search's cost: its query, not a stat of the archive)."""
        mark = self._changes
        if self._watched and self._clean == mark:
            return 0
        report = UpdateReport()
        with self._progress:
            self._started += 1
            self._running = report
            self._progress.notify_all()
        error: SearchError | None = None
        try:
            pending = index.update(
                deadline=deadline, budget=budget, report=report, on_progress=self._told
            ).pending
        except SearchError as exc:
            error = exc
            raise
        finally:
            with self._progress:
                self._running = None
                self._ended = self._started
                self._error = error
                self._progress.notify_all()
        self._left = pending
        self._clean = mark if pending == 0 and self._watched else None
        return pending

    def _told(self) -> None:
        with self._progress:
            self._progress.notify_all()

    def _update_for_search(self, index: SearchIndex, asked: float) -> int:
        """Files left to index for a search asked at ``asked``: an update that starts after it (in a
        thread of its own, which goes on when the search has answered) reads the newest files until
        ``FIRST_ANSWER_SECONDS`` (one at least); the search answers when it ends, or from the index
        as it is when an update still runs ``ANSWER_SECONDS`` after (walking the folders: seconds
        at 100,000 files). Never waits for a background slice longer than that."""
        deadline = asked + FIRST_ANSWER_SECONDS
        with self._progress:
            need = self._started  # an update numbered above this one saw the files as they are now
        while True:
            if self._lock.acquire(blocking=False):
                threading.Thread(target=self._search_update, args=(index, deadline), daemon=True).start()
            with self._progress:
                while True:
                    if self._ended > need:
                        if self._error is not None:
                            raise self._error
                        return self._left
                    running, now = self._running, time.monotonic()
                    if running is not None and now >= asked + ANSWER_SECONDS:
                        return self._left_now(index, running, self._started > need)
                    if running is None:
                        break  # the update before this search ended: start one
                    self._progress.wait(max(0.01, asked + ANSWER_SECONDS - now))

    def _left_now(self, index: SearchIndex, running: UpdateReport, fresh: bool) -> int:
        """Files left while an update runs: its count once its stat pass ended, else an estimate (at
        least 1): the files the listing or the walk knows so far, less those the index holds."""
        if fresh and running.left >= 0:
            return running.left
        listed = self.file_count() if self.file_count is not None else 0
        return max(1, self._left, max(listed, running.walked) - index.session_count())

    def _search_update(self, index: SearchIndex, deadline: float) -> None:
        """A search's update (``_lock`` held by the search that started it; that search wakes the
        background updates when it answers with files left: they start when this one ends)."""
        try:
            self._update(index, deadline)
        except SearchError as exc:
            log.debug("search index not updated: %s", exc)  # the search waiting for it says why
        finally:
            self._lock.release()

    def hit_json(self, hit: SearchHit) -> dict[str, Any]:
        """What the index page's script shows of a hit (its link made here, not in the page)."""
        return {
            "title": hit.title or "",
            "shortTitle": cut_title(hit.title) if hit.title else "",
            "time": hit.time,
            "role": hit.role,
            "snippet": hit.snippet.text,
            "marks": [list(m) for m in hit.snippet.marks],
            "href": self.link_for(hit.path, hit.entry_id),
            "session": self.link_for(hit.path, None),
            "cwd": hit.cwd or "",
        }

    def search(self, query: str, filters: SearchFilters) -> dict[str, Any]:
        """Update the index, then search it: a page of hits, and on the first page the exact total."""
        asked = time.monotonic()
        index = self._open()
        # A fresh server's first search answers from what is indexed within the budget (the
        # newest files first) and says how many are left; the page asks again until none is.
        if self._watched and self._clean == self._changes:
            pending = 0  # in step, and the watcher reported no change since
        elif self.indexing and self._left:
            with self._progress:  # the background updates index the rest: as far as they are
                running = self._running
                pending = self._left_now(index, running, True) if running is not None else self._left
            if self.on_pending is not None:
                self.on_pending()
        else:
            pending = self._update_for_search(index, asked)
            if pending and self.on_pending is not None:
                self.on_pending()  # the background updates index the rest meanwhile
        found: dict[str, Any] = {"offset": filters.offset, "pending": pending}
        if filters.offset == 0:
            count = index.count(query, filters)
            found |= {"total": count.hits, "sessions": count.sessions}
        found["hits"] = [self.hit_json(h) for h in index.search(query, filters)]
        return found

    def session_models(self, key_of: Callable[[str], str | None]) -> bytes:
        """``{"models": {key: [model, ...]}}``, the models each listed session used, as JSON, from the
        listing's usage rows counted so far (the pane asks again when the listing changes, as the
        background pass counts). Made again only when the rows did: a new list of rows (the
        listing's, one per version) is the only change that gives other bytes."""
        answers, _ = self.usage_so_far()
        records = answers.records if isinstance(answers, RecordsAnswers) else []
        with self._usage_lock:
            made = self._models
            if made is not None and made[0] is answers:
                return made[1]
            models = {
                shown_name(key): found
                for path, found in models_by_path(records).items()
                if (key := key_of(path)) is not None
            }
            body = bytes(JSONResponse({"models": models}).body)
            self._models = (answers, body)
            return body

    def usage_page(self) -> str:
        """Render the usage page of every served folder from the listing's usage answers counted so
        far (``UsagePageOptions.uncounted``: the files the background pass has still to read): the
        totals per project, agent, quarter hour and model and the first page of the top sessions.

        The page is made again only when the answers changed since (the listing makes them once per
        version: the same answers, the same bytes; never a comparison of every row).
        """
        with self._usage_lock:
            records, uncounted = self.usage_so_far()
            made = self._usage_page
            if made is not None and made[0] is records and made[1] == uncounted:
                return made[2]
            html = render_usage_page(
                records,
                UsagePageOptions(
                    title="Usage",
                    link_for=lambda path: self.link_for(path, None),
                    theme=self.theme,
                    nav=self.nav,
                    uncounted=uncounted,
                    api=self.usage_api,
                    events=self.usage_events,
                ),
            )
            self._usage_page = (records, uncounted, html)
            return html

    def usage_sessions(self, where: UsageFilter, offset: int, limit: int) -> bytes:
        """The sessions a filter keeps, counted, a page of them ranked (the usage page's API), as JSON."""
        answers, uncounted = self.usage_so_far()
        page = answers.sessions(where, offset, limit)
        found = listed_json(page, lambda path: self.link_for(path, None)) | {"uncounted": uncounted}
        return bytes(JSONResponse(found).body)

    def update_if_open(self) -> None:
        """Index what changed, if a search has opened the index already: in slices that read for
        ``FIRST_ANSWER_SECONDS`` after their stat pass (or twice its time), so that a search waits
        for one slice at most, never for the rest."""
        while True:
            with self._lock:
                if self._index is None or not self._update(self._index, budget=FIRST_ANSWER_SECONDS):
                    return

    def close(self) -> None:
        """Close the index (idempotent); left open while a search still holds it (shutdown never waits)."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._index is not None:
                self._index.close()
                self._index = None
        finally:
            self._lock.release()


def _service(request: Request) -> ArchiveService:
    service: ArchiveService = request.app.state.serve.archive
    return service


def _number(text: str | None, default: int, low: int, high: int) -> int:
    try:
        return min(high, max(low, int(text or default)))
    except ValueError:
        return default


def _filters(request: Request) -> SearchFilters:
    params = request.query_params
    limit = _number(params.get("limit"), 20, 1, MAX_LIMIT)
    offset = _number(params.get("offset"), 0, 0, MAX_OFFSET)
    role = params.get("role") or None
    if role is not None and role not in ROLE_CHOICES:
        raise SearchError(f"role must be one of {', '.join(ROLE_CHOICES)}")
    return SearchFilters(role=role, limit=limit, offset=offset, newest=params.get("order") == "newest")


async def search_api(request: Request) -> Response:
    """``/api/search?q=...&limit=N&offset=M&role=user|assistant|tool&order=newest``: a page of hits as JSON
    (best matches first, or the newest).

    The first page (offset 0) carries ``total`` and ``sessions``: every hit of the query, which
    the next pages (``offset`` = hits seen so far) reach to the last one.
    """
    query = request.query_params.get("q", "")
    try:
        filters = _filters(request)
        found = await anyio.to_thread.run_sync(_service(request).search, query, filters)
    except SearchError as exc:
        return JSONResponse({"error": str(exc), "hits": []}, status_code=400, headers=NO_STORE)
    return JSONResponse({"query": query, **found}, headers=NO_STORE)


async def sessions_api(request: Request) -> Response:
    """``/api/sessions?part=N``: the sessions pane's list (``pages.sessions_data``), from the
    listing, in parts: the first (no ``part``) holds the newest sessions and names the others (its
    JSON made again only when the listing changed since), with the listing's ``state``."""
    state = request.app.state.serve
    view = await state.listing.view()
    # The sessions in the list's order once per version; each part's records when it is asked for
    # (as ``in_parts`` of ``sessions_data`` cuts them: serve's links are never None). Every part
    # made at once was 4.9 s at 100,000 sessions before the first could go out.
    ordered = await anyio.to_thread.run_sync(view.made, "pane order", pane_order)
    count = max(1, math.ceil(len(ordered) / PART_ROWS))
    part = _number(request.query_params.get("part"), 1, 1, count)

    def make(_: list[SessionInfo]) -> bytes:
        at = (part - 1) * PART_ROWS
        shown = ordered[at : at + PART_ROWS]
        # Each part carries its sessions' models (one query for its keys, from the usage store),
        # so the pane's model filter asks for no list of every session's models.
        models = state.listing.session_models([e.key for e in shown])
        found = models or {}
        rows = [session_record(e, state.urls.session(e.key), found.get(e.key, ())) for e in shown]
        data: dict[str, Any] = {"v": DATA_VERSION, "sessions": rows}
        if part == 1:
            more = [f"{state.urls.sessions_api()}?part={n}" for n in range(2, count + 1)]
            # ``state``: what a session stream's ``sessions`` events name.
            data = {
                **{"v": DATA_VERSION, "models": models is not None, "sessions": rows, "more": more},
                "state": view.state,
            }
        return bytes(JSONResponse(data).body)

    body = await anyio.to_thread.run_sync(view.made, f"pane part {part}", make)
    return Response(body, media_type="application/json", headers=NO_STORE)


async def session_models_api(request: Request) -> Response:
    """``/api/session-models``: the models of each session by key (from the listing's usage rows
    counted so far)."""
    state = request.app.state.serve
    view = await state.listing.view()
    generation = state.listing.usage_generation()
    if generation is not None:  # the usage store's query, its body made once per version and generation

        def make(_: list[SessionInfo]) -> bytes:
            return state.listing.models_json() or b'{"models":{}}'

        body = await anyio.to_thread.run_sync(view.made_once, "session models", generation, make)
        return Response(body, media_type="application/json", headers=NO_STORE)
    try:
        body = await anyio.to_thread.run_sync(_service(request).session_models, state.listing.key_of)
    except SearchError as exc:
        return JSONResponse({"error": str(exc), "models": {}}, status_code=500, headers=NO_STORE)
    return Response(body, media_type="application/json", headers=NO_STORE)


def _usage_filter(request: Request) -> tuple[UsageFilter, int, int]:
    """The filter, offset and page size of ``/api/usage-sessions``'s query (ValueError when bad)."""
    params = request.query_params

    def number(name: str, default: int | None, low: int, high: int) -> int | None:
        text = params.get(name)
        if text is None or text == "":
            return default
        value = int(text)
        if not low <= value <= high:
            raise ValueError(name)
        return value

    since = number("since", None, 0, 2**53)
    until = number("until", None, 0, 2**53)
    offset = number("offset", 0, 0, MAX_OFFSET) or 0
    limit = number("limit", PAGE_SIZE, 1, MAX_LIMIT) or PAGE_SIZE
    texts = {name: params.get(name, "") for name in ("project", "agent", "model")}
    if any(len(text) > 4096 for text in texts.values()):
        raise ValueError("too long")
    return UsageFilter(since, until, **texts), offset, limit


async def usage_sessions_api(request: Request) -> Response:
    """``/api/usage-sessions``: the sessions the usage page's filters keep (``since``/``until`` in
    epoch ms, ``project``, ``agent``, ``model``), counted, and a page of them most cost first
    (``offset``, ``limit``), with how many files the background pass has still to count."""
    try:
        where, offset, limit = _usage_filter(request)
    except ValueError:
        return JSONResponse({"error": "bad usage filter"}, status_code=400, headers=NO_STORE)
    await request.app.state.serve.listing.scan_async()
    try:
        body = await anyio.to_thread.run_sync(_service(request).usage_sessions, where, offset, limit)
    except SearchError as exc:
        return JSONResponse({"error": str(exc)}, status_code=500, headers=NO_STORE)
    return Response(body, media_type="application/json", headers=NO_STORE)


async def search_page(request: Request) -> Response:
    """``/search?q=...``: one box over every message, hits grouped by session, every one reachable."""
    state = request.app.state.serve
    return html_response(render_served_search(state.config, state.urls))


async def usage_page(request: Request) -> Response:
    """``/usage``: the usage dashboard of every served folder, at once (the totals so far while the
    background pass still counts: the scan here wakes it if a file changed since). Before the
    first listing is made (the server's start: seconds at 100,000 sessions) it waits for it only
    a moment: the totals as the usage store has them, the page saying so (``Listing.until_listed``)."""
    await request.app.state.serve.listing.until_listed()
    try:
        html = await anyio.to_thread.run_sync(_service(request).usage_page)
    except SearchError as exc:
        return PlainTextResponse(str(exc), status_code=500, headers=NO_STORE)
    return html_response(html)
