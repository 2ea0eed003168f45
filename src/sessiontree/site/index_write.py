"""A built site's index page: its first window of rows, the rest in row files it fetches."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sessiontree.pages.nav import NavLinks, browse_scripts
from sessiontree.site import layout
from sessiontree.site.browse import INDEX_CHUNK, PAGEFIND_CSP, chunk_id, search_source, write_index_chunks
from sessiontree.site.manifest import Manifest
from sessiontree.store.discovery import SessionInfo


def write_index(
    site: Path,
    entries: list[SessionInfo],
    manifest: Manifest,
    nav: NavLinks,
    bundles: Sequence[str],
    *,
    title: str,
    theme: str,
    again: bool = False,
) -> list[str]:
    """Write ``index.html``: the shared index page, plus full-text search over ``bundles``; past its
    first window of rows, the rest in files it fetches (``browse.write_index_chunks``, their
    names returned; ``again``: every file written anew)."""
    from sessiontree.pages.index_page import IndexOptions, render_index
    from sessiontree.pages.index_rows import IndexRows

    pages = manifest.pages

    def link_for(entry: SessionInfo) -> str | None:
        rec = pages.get(entry.key)
        return rec.page if rec is not None else None

    extra = browse_scripts({"search": nav.search})
    csp: dict[str, tuple[str, ...]] = {}
    rows = IndexRows(entries)  # one order of the rows for the page's window and the files
    chunks = write_index_chunks(site, rows, link_for, again=again)
    connect: tuple[str, ...] = ("'self'",) if chunks else ()
    if bundles:
        extra = (*search_source(site, bundles), *extra)
        # The index and search pages run Pagefind: its module from the site, its WebAssembly, its fetches.
        csp = PAGEFIND_CSP
        connect = ("'self'",)
    html = render_index(
        rows,
        link_for,
        IndexOptions(
            nav=nav,
            title=title,
            theme=theme,
            extra_scripts=extra,
            connect_src=connect,
            csp_sources=csp,
            chunks=INDEX_CHUNK if chunks else None,
            chunk_names=tuple(chunk_id(name) for name in chunks),
        ),
    )
    layout.write_atomic(site / "index.html", html.encode("utf-8", "replace"))
    return chunks
