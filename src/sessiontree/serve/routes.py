"""The server's routes: index, session page, downloads, blobs, artifacts, event streams. All read-only."""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import threading
from asyncio import Queue
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any

import anyio
from sse_starlette import EventSourceResponse, ServerSentEvent
from starlette.background import BackgroundTask
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Route

from sessiontree.archive.catalog_read import check_readable, why_unreadable
from sessiontree.errors import ArtifactError, SessiontreeError
from sessiontree.exporter.options import RelatedPages
from sessiontree.pages.index_rows import RowQuery
from sessiontree.pages.related import related_pages
from sessiontree.readers.claude_layout import AGENT_ID, subagent_file
from sessiontree.serve import archive_routes, pages, pane_routes
from sessiontree.serve.followed import topic_of
from sessiontree.serve.hub import Event
from sessiontree.serve.index_feed import INDEX_TOPIC, USAGE_TOPIC
from sessiontree.serve.kept_index import FIRST_PAGE_SECONDS, GLIMPSE_AFTER_SECONDS
from sessiontree.serve.security import clean_key, contained
from sessiontree.serve.state import ServeState
from sessiontree.store.parts import split_part
from sessiontree.store.paths import artifacts_dir_for
from sessiontree.store.storage import open_regular, read_reason
from sessiontree.store.surrogates import shown_name
from sessiontree.store.urls import resolve_internal_url

log = logging.getLogger(__name__)

_BLOB_NAME = re.compile(r"([0-9a-f]{64})\.(png|jpg|gif|webp)")
_IMAGE_TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
NOT_FOUND = "Not found"
PING_SECONDS = 15


class _KeyConvertor(Convertor[str]):
    """A session key in a route: any file path, newlines included (``path`` stops at one)."""

    regex = "(?s:.*)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("key", _KeyConvertor())


def _state(request: Request) -> ServeState:
    state: ServeState = request.app.state.serve
    return state


def _not_found() -> Response:
    return PlainTextResponse(NOT_FOUND, status_code=404)


async def _session_path(request: Request) -> tuple[str, Path] | None:
    """The key and file a session route names, or None for anything outside the served folders."""
    route = request.scope["route"].name
    others = {name: value for name, value in request.path_params.items() if name != "key"}
    prefix = request.app.url_path_for(route, key="k", **others).removesuffix("k")
    key = clean_key(request.scope.get("raw_path") or b"", prefix)
    if key is None:
        return None
    path = await _state(request).listing.path_of(key)
    return None if path is None else (key, path)


SessionHandler = Callable[[Request, str, Path], Awaitable[Response]]


def session_route(handler: SessionHandler) -> Callable[[Request], Awaitable[Response]]:
    """A route over one listed session: the handler gets its key and file, anything else a 404."""

    @functools.wraps(handler)
    async def route(request: Request) -> Response:
        found = await _session_path(request)
        return _not_found() if found is None else await handler(request, *found)

    return route


async def index(request: Request) -> Response:
    """The index page with its first window of rows (the rest from ``index_rows``). A fresh
    server's first one, while its first listing is not made yet, is the page kept from the last
    run (``serve.kept_index``), else a glimpse of the folders (``archive.glimpse``), corrected
    over the event stream once it is."""
    state = _state(request)
    viewing = asyncio.ensure_future(state.listing.view())
    if not state.listing.listed():
        kept = await anyio.to_thread.run_sync(state.kept_index.read)
        done, _ = await asyncio.wait({viewing}, timeout=FIRST_PAGE_SECONDS if kept else GLIMPSE_AFTER_SECONDS)
        if not done and kept is not None:
            viewing.add_done_callback(_heard)
            return pages.html_response(kept)
        if not done:  # a folder never seen: what a walk finds in a moment, unless listed first
            args = (pages.render_glimpsed_index, state.listing.roots, state.config, state.urls, viewing.done)
            glimpsing = asyncio.ensure_future(anyio.to_thread.run_sync(pages.in_foreground, *args))
            await asyncio.wait({viewing, glimpsing}, return_when=asyncio.FIRST_COMPLETED)
            if not viewing.done():
                viewing.add_done_callback(_heard)
                return pages.html_response(await glimpsing)
            glimpsing.add_done_callback(_heard)
    view = await viewing
    html = await anyio.to_thread.run_sync(
        pages.in_foreground, pages.render_served_index, view, state.config, state.urls
    )
    response = pages.html_response(html)
    # The next run's first page, written (and synced) once the answer is sent, not before.
    response.background = BackgroundTask(state.kept_index.keep, view.state, html)
    return response


def _heard(task: asyncio.Future[Any]) -> None:
    """A listing no request waits for any more: its failure is logged, not left unheard."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("first listing failed: %s", task.exception())


async def index_rows(request: Request) -> Response:
    """``/api/index-rows?sort=&agent=&project=&q=&offset=&limit=``: a window of the index's rows
    (sorted and filtered as the page does) as HTML, the offset of the next one, and how many match."""
    state = _state(request)
    view = await state.listing.view()
    query = RowQuery.of(request.query_params)
    found = await anyio.to_thread.run_sync(pages.in_foreground, pages.index_window, view, query, state.urls)
    return JSONResponse(found, headers=pages.PAGE_HEADERS)


@session_route
async def session_page(request: Request, key: str, path: Path) -> Response:
    state = _state(request)
    listed = state.listing.get(key)
    if listed is not None and listed.error:
        # Listed, not hidden, and never a server error: say what is wrong with it.
        return PlainTextResponse(f"{shown_name(key)}: {listed.error}", headers=pages.PAGE_HEADERS)
    live = state.followed.live(key, path)
    query = request.query_params
    gone = threading.Event()
    make = functools.partial(
        pages.live_page,
        live,
        key,
        state.config,
        state.urls,
        leaf_id=query.get("leafId"),
        target_id=query.get("targetId"),
        renders=state.renders,
        gone=gone,
        related=related_pages(*state.listing.family(key), state.urls.session),
    )
    # Head, header and the path's first screen go out at once, made while the server's
    # background passes pause (store.foreground); the rest as it is rendered. Each later step
    # runs in a thread of the page streams' own limiter (the render itself is shared and
    # limited by serve.renders), so other clients and routes are served meanwhile.
    page, chunks, first = await anyio.to_thread.run_sync(pages.first_chunk, make, limiter=state.render_limit)
    unsent = [first]  # handed out, not held while the rest is made (its ~80 kB per client)
    del first

    async def rest() -> AsyncIterator[str]:
        try:
            yield unsent.pop()
            while (
                chunk := await anyio.to_thread.run_sync(
                    next, chunks, None, limiter=state.stream_limit, abandon_on_cancel=True
                )
            ) is not None:
                yield chunk
        except CancelledError:
            return  # this client left while its render was shared: nothing more to send
        finally:
            gone.set()  # a client that left: the render it waits for may stop (serve.renders)

    headers = {**pages.PAGE_HEADERS, "Content-Security-Policy": page.csp}
    return StreamingResponse(rest(), media_type="text/html", headers=headers)


async def subagent_page(request: Request) -> Response:
    """A Claude Code subagent's transcript as its own page: the agent id, under its listed parent."""
    if AGENT_ID.fullmatch(request.path_params.get("agent", "")) is None:
        return _not_found()
    found = await _session_path(request)
    if found is None:
        return _not_found()
    state = _state(request)
    agent = await anyio.to_thread.run_sync(subagent_file, found[1], request.path_params["agent"])
    if agent is None:
        return _not_found()
    back = RelatedPages(parent=state.urls.session(found[0]), parent_id=found[1].stem)  # linked both ways
    page = await anyio.to_thread.run_sync(
        pages.standalone_page, agent, state.config, back, limiter=state.render_limit
    )
    return await anyio.to_thread.run_sync(pages.page_response, page, limiter=state.render_limit)


@session_route
async def raw_download(request: Request, key: str, path: Path) -> Response:
    path = split_part(path)[0]  # one session of a file that holds several: the file (``store.parts``)
    try:
        # Opened before any header is sent: a file that cannot be read gets an answer, not a
        # response cut off after its headers.
        await anyio.to_thread.run_sync(check_readable, path)
    except OSError as exc:
        return PlainTextResponse(f"{shown_name(key)}: {why_unreadable(exc)}", status_code=403)
    return FileResponse(
        path,
        media_type="application/x-ndjson",
        headers={
            "Cache-Control": "no-store",
            "Content-Disposition": pages.attachment(key.rsplit("/", 1)[-1]),
        },
    )


@session_route
async def export_download(request: Request, key: str, path: Path) -> Response:
    state = _state(request)
    page = await anyio.to_thread.run_sync(
        pages.standalone_page, path, state.config, limiter=state.render_limit
    )
    name = "session-" + key.rsplit("/", 1)[-1].removesuffix(".jsonl") + ".html"
    headers = {"Content-Disposition": pages.attachment(name)}
    return await anyio.to_thread.run_sync(pages.page_response, page, headers, limiter=state.render_limit)


async def blob(request: Request) -> Response:
    match = _BLOB_NAME.fullmatch(request.path_params.get("name", ""))
    if match is None or b"%" in (request.scope.get("raw_path") or b""):
        return _not_found()
    sha, ext = match.groups()
    state = _state(request)
    data = state.followed.image_bytes(sha)
    headers = {"Cache-Control": "public, max-age=31536000, immutable"}
    if data is not None:
        return Response(data, media_type=_IMAGE_TYPES[ext], headers=headers)
    path = contained_blob(state, sha)
    if path is None:
        return _not_found()
    try:  # read before the headers go: an unreadable blob is a 403 that says why, never a cut
        data = await anyio.to_thread.run_sync(_read_blob, path)
    except OSError as exc:
        return PlainTextResponse(f"blob {sha}: unreadable: {read_reason(exc)}", status_code=403)
    return Response(data, media_type=_IMAGE_TYPES[ext], headers=headers)


def _read_blob(path: Path) -> bytes:
    with open_regular(path, path.parent) as fh:
        return fh.read()


def contained_blob(state: ServeState, sha: str) -> Path | None:
    """The blob file of a digest in one of the server's blob stores."""
    for directory in state.config.blob_dirs:
        found = contained(directory / sha, [directory])
        if found is not None:
            return found
    return None


@session_route
async def artifact(request: Request, _key: str, path: Path) -> Response:
    url = request.query_params.get("u", "")
    folder = artifacts_dir_for(path)
    state = _state(request)
    if contained(folder, state.config.roots) is None and not folder.is_dir():
        return _not_found()
    try:
        resource = await anyio.to_thread.run_sync(lambda: resolve_internal_url(url, folder))
    except (ArtifactError, OSError, SessiontreeError):
        return _not_found()
    if contained(resource.path, state.config.roots) is None:
        return _not_found()
    return PlainTextResponse(
        resource.content,
        media_type="text/plain; charset=utf-8",
        headers={"Cache-Control": "no-store", "Content-Security-Policy": "default-src 'none'; sandbox"},
    )


def _sse(
    state: ServeState, topic: str, queue: Queue[Event | None], first: list[Event]
) -> EventSourceResponse:
    async def encoded() -> AsyncIterator[ServerSentEvent]:
        async for event in state.hub.stream(topic, queue, first):
            yield ServerSentEvent(data=event.encode(), event=event.name)

    return EventSourceResponse(
        encoded(),
        ping=PING_SECONDS,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        send_timeout=10,
        # A client gone before its stream started never runs the stream's own clean-up.
        background=BackgroundTask(state.hub.unsubscribe, topic, queue),
    )


async def _topic_events(state: ServeState, topic: str, first: Callable[[], Awaitable[Event]]) -> Response:
    """A stream of ``topic``, subscribed before its first event is made (none missed between)."""
    queue = state.hub.subscribe(topic)
    try:
        event = await first()
    except BaseException:
        state.hub.unsubscribe(topic, queue)
        raise
    return _sse(state, topic, queue, [event])


async def index_events(request: Request) -> Response:
    # What the listing is first: the page may be older than the stream (a reconnect).
    state = _state(request)
    return await _topic_events(state, INDEX_TOPIC, state.index_feed.first_event)


async def usage_events(request: Request) -> Response:
    """``/usage/events``: how many files serve has still to count, now and whenever it changes
    (``IndexFeed.push_usage_forever``): an open usage page loads itself again when it settles."""
    state = _state(request)
    response = await _topic_events(state, USAGE_TOPIC, state.index_feed.usage_event)
    state.index_feed.usage_dirty.set()  # a change while this stream opened is looked at again
    return response


@session_route
async def session_events(request: Request, key: str, path: Path) -> Response:
    state = _state(request)
    live = state.followed.live(key, path)
    generation = request.query_params.get("g", "")
    try:
        count = int(request.query_params.get("n", "-1"))
    except ValueError:
        count = -1
    topic = topic_of(key)
    # Subscribe first, then read what the page missed: an append in between arrives twice at
    # most, and the client skips entries it already has (events carry the entry count). So for
    # its pane: the listing as it is now (a change since the pane's list went to no stream).
    queue = state.hub.subscribe(topic)
    try:
        for event in await anyio.to_thread.run_sync(live.refresh, limiter=state.render_limit):
            state.hub.publish(topic, event)
        first: list[Event] = await anyio.to_thread.run_sync(live.catch_up, generation, count)
        first.insert(0, await state.index_feed.pane_event())
    except BaseException:
        state.hub.unsubscribe(topic, queue)
        raise
    return _sse(state, topic, queue, first)


async def no_icon(request: Request) -> Response:
    return Response(status_code=204)  # browsers ask for one; a 404 would show as a console error


def routes() -> list[Route]:
    """Every route; only GET (and HEAD): nothing here writes."""
    get: Any = ["GET", "HEAD"]
    return [
        Route("/", index, methods=get, name="index"),
        Route("/api/index-rows", index_rows, methods=get, name="index_rows"),
        Route("/s/{key:key}", session_page, methods=get, name="session"),
        Route("/agent/{agent}/{key:key}", subagent_page, methods=get, name="subagent"),
        Route("/raw/{key:key}", raw_download, methods=get, name="raw"),
        Route("/export/{key:key}", export_download, methods=get, name="export"),
        Route("/a/{key:key}", artifact, methods=get, name="artifact"),
        Route("/blobs/{name}", blob, methods=get, name="blob"),
        Route("/events", index_events, methods=["GET"], name="index_events"),
        Route("/events/s/{key:key}", session_events, methods=["GET"], name="session_events"),
        Route("/favicon.ico", no_icon, methods=get, name="favicon"),
        Route("/api/search", archive_routes.search_api, methods=get, name="search_api"),
        Route("/usage", archive_routes.usage_page, methods=get, name="usage"),
        Route("/usage/events", usage_events, methods=["GET"], name="usage_events"),
        Route(
            "/api/usage-sessions", archive_routes.usage_sessions_api, methods=get, name="usage_sessions_api"
        ),
        Route("/search", archive_routes.search_page, methods=get, name="search"),
        Route("/api/sessions", archive_routes.sessions_api, methods=get, name="sessions_api"),
        Route(
            "/api/sessions/window", pane_routes.sessions_window_api, methods=get, name="sessions_window_api"
        ),
        Route(
            "/api/session-models", archive_routes.session_models_api, methods=get, name="session_models_api"
        ),
    ]
