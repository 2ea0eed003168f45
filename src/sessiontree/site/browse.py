"""What a built site adds for browsing many sessions: the pages' links and the search page."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from sessiontree import __version__
from sessiontree.archive.catalog import CatalogNode, ProjectGroup
from sessiontree.archive.usage import UsageRecord
from sessiontree.pages.index_rows import IndexRows
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.sessions_data import PART_ROWS
from sessiontree.site import layout
from sessiontree.site.manifest import PageRecord
from sessiontree.store.discovery import SessionInfo

INDEX_PAGE = "index.html"
SEARCH_PAGE = "search.html"
SESSIONS_DATA = "sessions.json"
"""The sessions pane's list (``pages.sessions_data``), fetched by every session page of the site:
its newest ``CHUNK_ROWS`` sessions, and the names of the files holding the rest (``more``,
``MORE_DATA`` named after their records)."""
CHUNK_ROWS = PART_ROWS
"""Sessions per file of the pane's list."""
MORE_DATA = "sessions-{}.json"
INDEX_CHUNK = "index-rows-{}.json"
"""The index's rows after its first window, about ``pages.index_rows.CHUNK_ROWS`` a file, named
after their rows (16 hex digits)."""
PAGEFIND_CSP: dict[str, tuple[str, ...]] = {"script-src": ("'self'", "'wasm-unsafe-eval'")}
"""What a page running Pagefind needs: its module from the site and its WebAssembly."""


def site_nav(*, usage: bool, search: bool) -> NavLinks:
    """The links of a site's pages, site-relative (``relative_to`` for a page in a folder)."""
    return NavLinks(
        index=INDEX_PAGE,
        usage=layout.USAGE_PAGE if usage else None,
        search=SEARCH_PAGE if search else None,
    )


def search_source(site: Path, bundles: Sequence[str]) -> tuple[str, ...]:
    """The scripts of a page's message search over ``bundles`` (the shared view, then Pagefind with
    the routes of the router in ``site``)."""
    from sessiontree.pages.search_page import search_scripts
    from sessiontree.site.search_router import read_routes
    from sessiontree.site.search_script import search_script

    return (*search_scripts(), search_script(bundles, read_routes(site, bundles)))


def write_search_page(site: Path, nav: NavLinks, bundles: Sequence[str], theme: str) -> None:
    """Write ``search.html``: the collection's search page over the site's Pagefind bundles."""
    from sessiontree.pages.nav import browse_scripts
    from sessiontree.pages.search_page import SearchPageOptions, render_search_page

    options = SearchPageOptions(
        nav=nav,
        theme=theme,
        extra_scripts=(search_source(site, bundles)[-1], *browse_scripts({})),
        connect_src=("'self'",),
        csp_sources=PAGEFIND_CSP,
    )
    layout.write_atomic(site / SEARCH_PAGE, render_search_page(options).encode("utf-8", "replace"))


def _pane_line(entry: SessionInfo, href: str, models: Sequence[str]) -> str:
    """What a session's record in the pane's list is made of (``pages.sessions_data.session_record``)."""
    e = entry
    made = f"{e.display_title}\0{e.id}\0{e.agent}\0{e.cwd}\0{e.message_count}\0{e.prompt_count}"
    return f"{e.key}\0{e.modified!r}\0{href}\0{made}\0{' '.join(models)}\n"


def write_sessions_data(
    site: Path, entries: Sequence[SessionInfo], pages: dict[str, PageRecord], usage: Iterable[UsageRecord]
) -> None:
    """Write ``sessions.json`` for the pane: the newest ``CHUNK_ROWS`` built sessions with their
    models (from the listing's ``usage`` rows, no full-text index), naming the files of the rest:
    about ``CHUNK_ROWS`` each (``content_cuts``), named after what their records are made of, so a
    file already there is kept; an earlier build's other files go once ``sessions.json`` is in place."""
    from sessiontree.pages.index_rows import content_cuts
    from sessiontree.pages.sessions_data import DATA_VERSION, models_by_path, pane_order, session_record

    models = models_by_path(usage)
    listed = [(e, rec.page) for e in pane_order(entries) if (rec := pages.get(e.key)) is not None]

    def records(rows: list[tuple[SessionInfo, str]]) -> list[dict[str, Any]]:
        return [session_record(e, href, models.get(str(e.path), ())) for e, href in rows]

    names = []
    for part in content_cuts(listed[CHUNK_ROWS:], lambda row: row[0].key, CHUNK_ROWS):
        digest = hashlib.sha256(f"{__version__}\0{DATA_VERSION}\n".encode())
        for entry, href in part:
            line = _pane_line(entry, href, models.get(str(entry.path), ()))
            digest.update(line.encode("utf-8", "surrogatepass"))
        names.append(MORE_DATA.format(digest.hexdigest()[:16]))
        if not (site / names[-1]).is_file():
            _write_json(site / names[-1], {"v": DATA_VERSION, "sessions": records(part)})
    first = {"v": DATA_VERSION, "models": True, "sessions": records(listed[:CHUNK_ROWS]), "more": names}
    _write_json(site / SESSIONS_DATA, first)
    for old in site.glob(MORE_DATA.format("*")):
        if old.name not in names:
            old.unlink(missing_ok=True)


def _row_line(node: CatalogNode, link: str | None) -> str:
    """What a row's HTML is made of, as far as it can change while the version stays: its file
    (size, time), what the build made of it (title, failure, link) and its subagents' rows."""
    e = node.entry
    made = f"{e.error}\0{e.title}\0{e.display_title}\0{link}"
    return f"{e.key}\0{e.size}\0{e.modified!r}\0{made}\0{len(node.children)}\n"


def chunk_id(name: str) -> str:
    """What names a file of the index's rows in ``INDEX_CHUNK`` (its ``{}``)."""
    before, after = INDEX_CHUNK.split("{}")
    return name.removeprefix(before).removesuffix(after)


def _chunk_name(groups: Sequence[ProjectGroup], link_for: Callable[[SessionInfo], str | None]) -> str:
    digest = hashlib.sha256(__version__.encode())
    for group in groups:
        digest.update(f"{group.cwd}\0\n".encode("utf-8", "surrogatepass"))
        stack = list(group.nodes)
        while stack:
            node = stack.pop(0)
            digest.update(_row_line(node, link_for(node.entry)).encode("utf-8", "surrogatepass"))
            stack[:0] = node.children
    return INDEX_CHUNK.format(digest.hexdigest()[:16])


def write_index_chunks(
    site: Path,
    entries: Sequence[SessionInfo] | IndexRows,
    link_for: Callable[[SessionInfo], str | None],
    *,
    again: bool = False,
) -> list[str]:
    """Write the index's rows after its first window (``pages.index_rows.row_chunks``), each file
    named after what its rows are made of, and return their names in order (none: every row fits
    the page). A file already there is kept (``again``: written anew), so one new session writes
    the files around it; the caller removes other files once the index no longer names them
    (``remove_index_chunks``)."""
    from sessiontree.pages.index_page import render_groups
    from sessiontree.pages.index_rows import row_chunks

    names = []
    for groups in row_chunks(entries):
        name = _chunk_name(groups, link_for)
        if again or not (site / name).is_file():
            _write_json(site / name, {"html": render_groups(groups, link_for)})
        names.append(name)
    return names


def remove_index_chunks(site: Path, keep: Iterable[str]) -> None:
    """Delete the index's row files other than ``keep`` (after the page that names them is in place)."""
    kept = set(keep)
    for old in site.glob(INDEX_CHUNK.format("*")):
        if old.name not in kept:
            old.unlink(missing_ok=True)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    layout.write_atomic(path, json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode())
