"""What a built site adds for browsing many sessions: the pages' links and the search page."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from sessiontree.archive.collection import Sources
from sessiontree.errors import SearchError
from sessiontree.pages.nav import NavLinks
from sessiontree.site import layout
from sessiontree.site.manifest import PageRecord
from sessiontree.store.discovery import SessionInfo

INDEX_PAGE = "index.html"
SEARCH_PAGE = "search.html"
SESSIONS_DATA = "sessions.json"
"""The sessions pane's list (``pages.sessions_data``), fetched by every session page of the site."""
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
    site: Path,
    entries: Sequence[SessionInfo],
    pages: dict[str, PageRecord],
    sources: Sources,
    cache_dir: Path | None = None,
) -> None:
    """Write ``sessions.json`` for the pane: the built sessions, with their models when the index has them."""
    from sessiontree.archive.search import SearchIndex
    from sessiontree.pages.sessions_data import models_by_path, sessions_data

    models: dict[str, list[str]] | None
    try:
        bases = [Path(os.path.abspath(r)) for r in sources.roots]
        with SearchIndex(bases, cache_dir, keep_out=[site]) as index:
            index.update()
            models = models_by_path(index.usage())
    except SearchError:
        models = None

    def link_for(entry: SessionInfo) -> str | None:
        rec = pages.get(entry.key)
        return rec.page if rec is not None else None

    data = sessions_data(entries, link_for, models)
    layout.write_atomic(
        site / SESSIONS_DATA, json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode()
    )
