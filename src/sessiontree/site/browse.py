"""What a built site adds for browsing many sessions: the pages' links and the search page."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sessiontree.archive.collection import Sources
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.sessions_data import PART_ROWS
from sessiontree.site import layout
from sessiontree.site.manifest import PageRecord
from sessiontree.store.discovery import SessionInfo

INDEX_PAGE = "index.html"
SEARCH_PAGE = "search.html"
SESSIONS_DATA = "sessions.json"
"""The sessions pane's list (``pages.sessions_data``), fetched by every session page of the site:
its newest ``CHUNK_ROWS`` sessions, and the names of the files holding the rest (``more``)."""
CHUNK_ROWS = PART_ROWS
"""Sessions per file of the pane's list."""
MORE_DATA = "sessions-{}.json"
INDEX_CHUNK = "index-rows-{}.json"
"""The index's rows after its first window, ``CHUNK_ROWS`` of ``pages.index_rows`` a file, from 1."""
PAGEFIND_CSP: dict[str, tuple[str, ...]] = {"script-src": ("'self'", "'wasm-unsafe-eval'")}
"""What a page running Pagefind needs: its module from the site and its WebAssembly."""


def site_nav(*, usage: bool, search: bool) -> NavLinks:
    """The links of a site's pages, site-relative (``relative_to`` for a page in a folder)."""
    return NavLinks(
        index=INDEX_PAGE,
        usage=layout.USAGE_PAGE if usage else None,
        search=SEARCH_PAGE if search else None,
    )


def search_source(bundles: Sequence[str]) -> tuple[str, ...]:
    """The scripts of a page's message search over ``bundles`` (the shared view, then Pagefind)."""
    from sessiontree.pages.search_page import search_scripts
    from sessiontree.site.search_script import search_script

    return (*search_scripts(), search_script(bundles))


def write_search_page(site: Path, nav: NavLinks, bundles: Sequence[str], theme: str) -> None:
    """Write ``search.html``: the collection's search page over the site's Pagefind bundles."""
    from sessiontree.pages.nav import browse_scripts
    from sessiontree.pages.search_page import SearchPageOptions, render_search_page

    options = SearchPageOptions(
        nav=nav,
        theme=theme,
        extra_scripts=(search_source(bundles)[-1], *browse_scripts({})),
        connect_src=("'self'",),
        csp_sources=PAGEFIND_CSP,
    )
    layout.write_atomic(site / SEARCH_PAGE, render_search_page(options).encode("utf-8", "replace"))


def write_sessions_data(
    site: Path, entries: Sequence[SessionInfo], pages: dict[str, PageRecord], sources: Sources
) -> None:
    """Write ``sessions.json`` (and ``sessions-N.json`` past ``CHUNK_ROWS``) for the pane: the built
    sessions with their models, from the listing's usage rows (no full-text index)."""
    from sessiontree.pages.sessions_data import in_parts, models_by_path, sessions_data

    models = models_by_path(sources.usage_records())

    def link_for(entry: SessionInfo) -> str | None:
        rec = pages.get(entry.key)
        return rec.page if rec is not None else None

    first, parts = in_parts(sessions_data(entries, link_for, models), MORE_DATA.format, CHUNK_ROWS)
    for name, part in parts:
        _write_json(site / name, part)
    _write_json(site / SESSIONS_DATA, first)
    names = first["more"]
    for old in site.glob(MORE_DATA.format("*")):
        if old.name not in names:
            old.unlink(missing_ok=True)  # a larger list's chunks an earlier build wrote


def write_index_chunks(
    site: Path, entries: Sequence[SessionInfo], link_for: Callable[[SessionInfo], str | None]
) -> list[str]:
    """Write the index's rows after its first window (``pages.index_page.index_chunks``) and remove
    an earlier build's files past them; return the names written (none: every row fits the page)."""
    from sessiontree.pages.index_page import index_chunks

    names = []
    for n, chunk in enumerate(index_chunks(entries, link_for), 1):
        names.append(INDEX_CHUNK.format(n))
        _write_json(site / names[-1], chunk)
    for old in site.glob(INDEX_CHUNK.format("*")):
        if old.name not in names:
            old.unlink(missing_ok=True)
    return names


def _write_json(path: Path, data: dict[str, Any]) -> None:
    layout.write_atomic(path, json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode())
