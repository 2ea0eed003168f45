"""Serve's search API and usage page, over the archive index kept in the cache dir.

The index is brought up to date before each search and each usage page (a stat pass over the
folder; only appended bytes and changed files are read), so hits follow growing sessions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit, SearchIndex
from sessiontree.errors import SearchError
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.serve.pages import html_response

MAX_LIMIT = 100
NO_STORE = {"Cache-Control": "no-store"}

LinkFor = Callable[[str | Path, str | None], str | None]
"""The served page of a session file at an entry, or None for a file outside the served folders."""


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
        home: str = "/",
    ):
        self.home = home
        self.roots = list(roots)
        self.link_for = link_for
        self.cache_dir = cache_dir
        self.keep_out = keep_out
        self.theme = theme
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()

    def _open(self) -> SearchIndex:
        if self._index is None:
            self._index = SearchIndex(self.roots, self.cache_dir, keep_out=self.keep_out)
        return self._index

    def hit_json(self, hit: SearchHit) -> dict[str, Any]:
        """What the index page's script shows of a hit (its link made here, not in the page)."""
        return {
            "title": hit.title or "",
            "time": hit.time,
            "role": hit.role,
            "snippet": hit.snippet.text,
            "marks": [list(m) for m in hit.snippet.marks],
            "href": self.link_for(hit.path, hit.entry_id),
        }

    def search(self, query: str, filters: SearchFilters) -> list[dict[str, Any]]:
        """Update the index, then search it."""
        with self._lock:
            index = self._open()
            index.update()
            return [self.hit_json(h) for h in index.search(query, filters)]

    def usage_page(self) -> str:
        """Update the index, then render the usage page of the whole folder."""
        with self._lock:
            index = self._open()
            index.update()
            records = index.usage()
        return render_usage_page(
            records,
            UsagePageOptions(
                title="Usage",
                link_for=lambda path: self.link_for(path, None),
                theme=self.theme,
                home=self.home,
            ),
        )

    def update_if_open(self) -> None:
        """Index what changed, if a search or usage page has opened the index already."""
        with self._lock:
            if self._index is not None:
                self._index.update()

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


def _filters(request: Request) -> SearchFilters:
    params = request.query_params
    try:
        limit = min(MAX_LIMIT, max(1, int(params.get("limit", "20"))))
    except ValueError:
        limit = 20
    role = params.get("role") or None
    if role is not None and role not in ROLE_CHOICES:
        raise SearchError(f"role must be one of {', '.join(ROLE_CHOICES)}")
    return SearchFilters(role=role, limit=limit)


async def search_api(request: Request) -> Response:
    """``/api/search?q=...&limit=N&role=user|assistant|tool``: hits as JSON."""
    query = request.query_params.get("q", "")
    try:
        filters = _filters(request)
        hits = await anyio.to_thread.run_sync(_service(request).search, query, filters)
    except SearchError as exc:
        return JSONResponse({"error": str(exc), "hits": []}, status_code=400, headers=NO_STORE)
    return JSONResponse({"query": query, "hits": hits}, headers=NO_STORE)


async def usage_page(request: Request) -> Response:
    """``/usage``: the usage dashboard of every served folder."""
    try:
        html = await anyio.to_thread.run_sync(_service(request).usage_page)
    except SearchError as exc:
        return PlainTextResponse(str(exc), status_code=500, headers=NO_STORE)
    return html_response(html)


def archive_routes() -> list[Route]:
    """The search API and the usage page (GET only)."""
    get: Any = ["GET", "HEAD"]
    return [
        Route("/api/search", search_api, methods=get, name="search_api"),
        Route("/usage", usage_page, methods=get, name="usage"),
    ]
