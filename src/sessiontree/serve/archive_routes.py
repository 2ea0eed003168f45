"""Serve's search API and usage page, over the archive index kept in the cache dir.

The index is brought up to date before each search and each usage page (a stat pass over the
folder; only appended bytes and changed files are read), so hits follow growing sessions.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from sessiontree.archive.search import ROLE_CHOICES, SearchFilters, SearchHit, SearchIndex
from sessiontree.errors import SearchError
from sessiontree.exporter.usage_page import UsagePageOptions, render_usage_page

MAX_LIMIT = 100
NO_STORE = {"Cache-Control": "no-store"}


class ArchiveService:
    """One search index per server, opened on first use; requests take turns updating it."""

    def __init__(
        self,
        root: Path,
        cache_dir: Path | None,
        keep_out: tuple[Path, ...] = (),
        theme: str = "auto",
        more_roots: tuple[Path, ...] = (),
        key_of: Callable[[str], str | None] | None = None,
    ):
        self.root = root
        self.roots = [root, *more_roots]
        self.key_of = key_of  # several roots: the listing's (prefixed) key of a file
        self.cache_dir = cache_dir
        self.keep_out = keep_out
        self.theme = theme
        self._index: SearchIndex | None = None
        self._lock = threading.Lock()

    def _open(self) -> SearchIndex:
        if self._index is None:
            self._index = SearchIndex(self.roots, self.cache_dir, keep_out=self.keep_out)
        return self._index

    def href(self, path: str | Path, entry_id: str | None = None) -> str | None:
        """The served page of a session file (at an entry), or None outside the served folder."""
        if self.key_of is not None:
            found = self.key_of(str(path))
            if found is None:
                return None
            key = found
        else:
            try:
                key = Path(path).relative_to(self.root).as_posix()
            except ValueError:
                return None
        link = "/s/" + quote(key)
        return link + "?targetId=" + quote(entry_id, safe="") if entry_id else link

    def hit_json(self, hit: SearchHit) -> dict[str, Any]:
        """What the index page's script shows of a hit (its link made here, not in the page)."""
        return {
            "title": hit.title or "",
            "time": hit.time,
            "role": hit.role,
            "snippet": hit.snippet.text,
            "marks": [list(m) for m in hit.snippet.marks],
            "href": self.href(hit.path, hit.entry_id),
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
            records, UsagePageOptions(title="Usage", link_for=self.href, theme=self.theme)
        )

    def update_if_open(self) -> None:
        """Index what changed, if a search or usage page has opened the index already."""
        with self._lock:
            if self._index is not None:
                self._index.update()

    def close(self) -> None:
        """Close the index (idempotent)."""
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None


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
    """``/usage``: cost and tokens per day by model, top sessions by cost."""
    try:
        html = await anyio.to_thread.run_sync(_service(request).usage_page)
    except SearchError as exc:
        return PlainTextResponse(str(exc), status_code=500, headers=NO_STORE)
    return Response(html, media_type="text/html; charset=utf-8", headers=NO_STORE)


def archive_routes() -> list[Route]:
    """The search API and the usage page (GET only)."""
    get: Any = ["GET", "HEAD"]
    return [Route("/api/search", search_api, methods=get), Route("/usage", usage_page, methods=get)]
