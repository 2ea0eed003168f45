"""The served pages: the index and a session page, made by the same renderers as export and build."""

from __future__ import annotations

import contextlib
import functools
import html
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import CancelledError
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from starlette.responses import HTMLResponse

from sessiontree.exporter.api import render_shell
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.exporter.fragments import json_for_script
from sessiontree.exporter.options import (
    ExportOptions,
    PageOptions,
    PageShell,
    RelatedPages,
    RenderOptions,
)
from sessiontree.exporter.page import image_files, live_script
from sessiontree.exporter.preview import render_preview
from sessiontree.exporter.recipe import Page, PageTarget, make_page
from sessiontree.exporter.templating import read_asset
from sessiontree.pages.index_page import IndexOptions, render_groups, render_index
from sessiontree.pages.index_rows import FIRST_ROWS, IndexRows, RowQuery
from sessiontree.pages.nav import PANE_SCRIPTS, browse_scripts, nav_css, pane_css
from sessiontree.pages.search_page import SearchPageOptions, render_search_page, search_scripts
from sessiontree.readers import load_any
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.first_screen import first_screen
from sessiontree.serve.kept_index import GLIMPSE_SECONDS
from sessiontree.serve.listing import ListingView
from sessiontree.serve.live import LiveSession, Snapshot
from sessiontree.serve.renders import Renders
from sessiontree.serve.urls import Urls
from sessiontree.store import Session
from sessiontree.store.foreground import FOREGROUND
from sessiontree.store.jsonl import paused_gc
from sessiontree.store.subagents import subagent_key
from sessiontree.store.surrogates import shown_name

PAGE_HEADERS = {"Cache-Control": "no-store"}
WHOLE_READS = threading.BoundedSemaphore(2)
"""Sessions read whole at once for the rest of their pages (a load holds several times its file;
two, as renders run, so that one big read does not hold up every other page): fifty clients
leaving fifty pages after the first screen had up to 32 read at once (the page streams'
threads); a client that leaves while waiting has nothing read for it."""
_WAIT_POLL = 0.05  # how often a page waiting to read its session looks whether its client left
# What a quoted header parameter cannot hold as it is (controls, non-ASCII, quote, backslash).
_NOT_HEADER_SAFE = re.compile(r'[^\x20-\x7e]|["\\?]')
_PAGE_CSP = re.compile(
    r'<!doctype html>\s*<html[^>]*>\s*<head>\s*<meta charset="utf-8">\s*'
    r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">',
    re.IGNORECASE,
)

T = TypeVar("T")


def page_headers(head: str) -> dict[str, str]:
    """Headers of a page: never cached, and its CSP (the meta tag's) as a header too.

    ``head`` is the page's start (the first chunk will do): the CSP is read from the meta tag our
    templates put right after the charset, before anything from a session.
    """
    match = _PAGE_CSP.match(head)
    if match is None:
        return dict(PAGE_HEADERS)
    return {**PAGE_HEADERS, "Content-Security-Policy": html.unescape(match.group(1))}


def html_response(page: str, headers: Mapping[str, str] | None = None) -> HTMLResponse:
    """A page response that is never cached (it changes as the folder does), its CSP in a header."""
    return HTMLResponse(page, headers={**page_headers(page), **(headers or {})})


def attachment(name: str) -> str:
    """A Content-Disposition value for a download (the name as given, encoded per RFC 6266; its
    bytes that are not UTF-8 written ``\\xff``; no control character reaches the header)."""
    shown = shown_name(name)
    ascii_name = _NOT_HEADER_SAFE.sub("_", shown)
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(shown, safe='')}"


def _search_settings(urls: Urls) -> str:
    settings = {"events": urls.index_events(), "search": urls.search_api(), "sessions": urls.session_prefix()}
    return "window.sessiontreeServe = " + json_for_script(settings) + ";"


def render_served_index(view: ListingView, config: ServeConfig, urls: Urls) -> str:
    """The index page (its first window of rows) with the live scripts (index events, message
    search) and their URLs added; the rows' order, summary and choices as the view has them."""
    options = IndexOptions(
        rows_url=urls.index_rows(),
        state=view.state,
        title="Sessions",
        theme=config.theme,
        extra_scripts=(
            _search_settings(urls),
            read_asset("serve/index-live.js"),
            *search_scripts(),
            read_asset("serve/index-search.js"),
            *browse_scripts({"search": urls.search_page()}),
        ),
        connect_src=("'self'",),
        nav=urls.nav(),
    )
    return render_index(view.rows, lambda entry: urls.session(entry.key), options)


def render_glimpsed_index(
    roots: Sequence[Path], config: ServeConfig, urls: Urls, listed: Callable[[], bool]
) -> str:
    """A fresh server's first index page while its first listing is not made and no page was kept
    from a last run (``serve.kept_index``): the first window of what a walk finds of the folders
    in ``GLIMPSE_SECONDS``, newest first (``archive.glimpse``). Its state is not the listing's:
    the page's event stream, once the listing is made, has it ask for its rows again. Given up
    (a page of no rows) once ``listed()``: the request answers from the listing then."""
    from sessiontree.archive.glimpse import glimpse

    now = time.monotonic()
    found = glimpse(roots, now + GLIMPSE_SECONDS / 2, now + GLIMPSE_SECONDS, FIRST_ROWS, listed)
    return render_served_index(ListingView((), IndexRows(found)), config, urls)


def index_window(view: ListingView, query: RowQuery, urls: Urls) -> dict[str, Any]:
    """A window of the index's rows as the page fetches it: their HTML, the next window's offset,
    how many rows match, and the listing's state (the rows in order from the view's, made once)."""
    window = view.rows.select(query)
    return {
        "html": render_groups(window.groups, lambda entry: urls.session(entry.key)),
        "next": window.next,
        "total": window.total,
        "state": view.state,
    }


def render_served_search(config: ServeConfig, urls: Urls) -> str:
    """The search page over the server's index (its search API)."""
    options = SearchPageOptions(
        nav=urls.nav(),
        theme=config.theme,
        extra_scripts=(_search_settings(urls), read_asset("serve/index-search.js"), *browse_scripts({})),
        connect_src=("'self'",),
    )
    return render_search_page(options)


# The header and system sections of each followed session as of its last page: a second visit of
# an unchanged session sends them without going over its entries again.
_SHELLS: weakref.WeakKeyDictionary[LiveSession, tuple[tuple[str, int, RelatedPages | None], PageShell]] = (
    weakref.WeakKeyDictionary()
)
_SHELLS_LOCK = threading.Lock()


def _shell_of(live: LiveSession, snap: Snapshot, related: RelatedPages | None) -> PageShell:
    state = (snap.generation, snap.count, related)
    with _SHELLS_LOCK:
        known = _SHELLS.get(live)
    if known is not None and known[0] == state:
        return known[1]
    shell = render_shell(snap.session, RenderOptions(related=related))
    with _SHELLS_LOCK:
        _SHELLS[live] = (state, shell)
    return shell


def render_live_page(live: LiveSession, key: str, config: ServeConfig, urls: Urls) -> str:
    """A session's page as export makes it, plus the live scripts; images served by URL."""
    return "".join(live_page(live, key, config, urls).chunks)


def live_page(
    live: LiveSession,
    key: str,
    config: ServeConfig,
    urls: Urls,
    *,
    leaf_id: str | None = None,
    target_id: str | None = None,
    renders: Renders | None = None,
    gone: threading.Event | None = None,
    related: RelatedPages | None = None,
) -> Page:
    """A session's live page: head, header and the first screen of the path (for the link's
    ``leaf_id`` / ``target_id``) at once, then the data of every entry once rendered.

    The first screen comes from a quick scan of the file, kept per file state
    (``serve.first_screen``: the header without statistics), where it applies; the session is
    read whole after it went out, and the whole header follows the data.
    With ``renders``, clients of one session state share one render, and ``gone`` (set when this
    client leaves) lets a render nobody waits for any more stop and free what it holds.
    ``related`` links the header to the listed sessions it spawned or was spawned by."""
    settings = {
        "key": shown_name(key),  # text for the page: no lone surrogate in an inline script
        "events": urls.session_events(key),
        "raw": urls.raw(key),
        "export": urls.export(key),
        "artifacts": urls.artifacts(key),
        "index": urls.index(),
        "imagePrefix": live.image_prefix,
    }
    look = PageOptions(
        image_prefix=live.image_prefix,
        extra_scripts=(
            live_script(),
            "window.sessiontreeServe = " + json_for_script(settings) + ";",
            read_asset("serve/session-live.js"),
        ),
        connect_src=("'self'",),
        # The pane's scripts go out with the first chunk: the list shows before the entries are rendered.
        early_scripts=browse_scripts(
            {
                "search": urls.search_page(),
                "data": urls.sessions_api(),
                "window": urls.sessions_window_api(),  # the pane asks for what it shows
                "current": shown_name(key),
            },
            *PANE_SCRIPTS,
        ),
        nav_html=urls.nav().html(),
        extra_css=nav_css() + pane_css(),
    )
    render = _render_options(live, key, urls, related)

    def loaded() -> tuple[Session, PageTarget]:
        if quick is None:  # the first screen itself (made at most two at a time: the render limiter)
            snap = live.snapshot()
        else:  # the rest of a page whose first screen went out
            with _reading_whole(gone):
                snap = live.snapshot()
        if gone is not None and gone.is_set():
            raise CancelledError  # the client left while the session was read: nothing more to make
        # The first screen before the collector's passes over a session just loaded (its millions
        # of objects, walked at the first allocations after the load): 0.55 → 0.41 s of CPU for the
        # 2,000-turn session's load, header and first entries. They come with the rest of the page.
        with paused_gc():
            shell = _shell_of(live, snap, related)
            preview = (
                ""
                if quick is not None
                else render_preview(snap.session, leaf_id=leaf_id, target_id=target_id)
            )
        state = {"generation": snap.generation, "count": snap.count, "badLines": len(snap.session.bad_lines)}
        target = PageTarget(
            page=look,
            render=render,
            open_cache=_cache_opener(config),
            shell=shell,
            preview=preview,
            on_rendered=lambda rendered: live.keep_images(image_files(rendered)),
            share=None
            if renders is None
            else functools.partial(
                renders.render,
                (key, snap.generation, snap.count),
                _size(live),
                gone=gone or threading.Event(),
            ),
            after_data=lambda: (
                '<script type="application/json" id="st-serve-state">' + json_for_script(state) + "</script>"
            ),
        )
        return snap.session, target

    # Even for a session read already: the kept first screen of an unchanged file costs nothing,
    # where a snapshot's first screen builds its tree again (60-100 ms for the 2,000-turn session).
    quick = first_screen(
        live.path, agent_dir=live.agent_dir, leaf_id=leaf_id, target_id=target_id, related=related
    )
    if quick is None:
        session, target = loaded()
        return make_page(session, ExportOptions(theme=config.theme), target)
    target = PageTarget(page=look, render=render, shell=quick.shell, preview=quick.preview, load=loaded)
    return make_page(None, ExportOptions(theme=config.theme), target)


@contextlib.contextmanager
def _reading_whole(gone: threading.Event | None) -> Iterator[None]:
    """Hold one of ``WHOLE_READS`` (raise ``CancelledError`` if the client left before it came)."""
    while not WHOLE_READS.acquire(timeout=_WAIT_POLL):
        if gone is not None and gone.is_set():
            raise CancelledError
    try:
        if gone is not None and gone.is_set():
            raise CancelledError
        yield
    finally:
        WHOLE_READS.release()


def in_foreground(make: Callable[..., T], *args: Any) -> T:
    """``make(*args)`` while background passes pause (``store.foreground``): a many-session answer
    a reader waits for (the index's first window, its next rows)."""
    with FOREGROUND.serving():
        return make(*args)


def first_chunk(make: Callable[[], Page]) -> tuple[Page, Iterator[str], str]:
    """A page, its chunks and the first of them, made while background passes pause
    (``store.foreground``)."""
    with FOREGROUND.serving():
        page = make()
        chunks = page.chunks
        return page, chunks, next(chunks)


def _render_options(live: LiveSession, key: str, urls: Urls, related: RelatedPages | None) -> RenderOptions:
    def subagent_page(agent_id: str) -> str:
        # Claude Code's transcripts are in the parent's tree (not listed): a route of their own.
        if live.session.subagents.embedded:
            return urls.session(subagent_key(key, agent_id))
        return urls.subagent(key, agent_id)

    return RenderOptions(subagent_href=subagent_page, related=related, parallel=False)  # never forks


def _size(live: LiveSession) -> int:
    try:
        return live.file.stat().st_size
    except OSError:
        return 0


def standalone_page(path: Path, config: ServeConfig, related: RelatedPages | None = None) -> Page:
    """The self-contained export of a session file (what ``sessiontree export`` writes); ``related``:
    the pages it links to (a subagent's transcript: the session that ran it)."""
    session = load_any(path, agent_dir=config.agent_dir)
    render = RenderOptions(parallel=False, related=related)
    target = PageTarget(render=render, open_cache=_cache_opener(config))
    return make_page(session, ExportOptions(theme=config.theme), target)


def page_response(page: Page, headers: Mapping[str, str] | None = None) -> HTMLResponse:
    """A session's whole page, never cached, its CSP in a header too."""
    csp = {"Content-Security-Policy": page.csp}
    return HTMLResponse("".join(page.chunks), headers={**PAGE_HEADERS, **csp, **(headers or {})})


def _cache_opener(config: ServeConfig) -> Callable[[], FragmentCache]:
    # One connection per render: renders run in threads.
    return lambda: FragmentCache(config.cache_dir)
