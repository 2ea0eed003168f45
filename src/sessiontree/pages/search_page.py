"""The search page of a collection: one box over every message, hits grouped by session, to the last.

Shared by ``serve`` (its search API) and the static site (its Pagefind bundles): the page is the
same, the script that finds the hits differs (``SearchPageOptions.extra_scripts``). The query is
read from ``?q=`` so any page can send a reader here (Ctrl-K).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sessiontree.exporter.templating import get_template, read_asset
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.shell import shell_fields

SEARCH_SCRIPTS = ("serve/search-hits.js", "browse/search-view.js")
"""The pure hits module and the results' DOM, before the caller's source script."""


@dataclass(frozen=True, slots=True)
class SearchPageOptions:
    """What serve and a site set differently: where the pages are, the script that finds the hits."""

    nav: NavLinks
    title: str = "Search"
    theme: str = "auto"
    extra_scripts: tuple[str, ...] = ()
    connect_src: tuple[str, ...] = ()
    csp_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def search_scripts() -> tuple[str, ...]:
    """The scripts every message search needs before its source (index page and search page)."""
    return tuple(read_asset(name) for name in SEARCH_SCRIPTS)


QUERY_SCRIPT = """(() => {
  const q = new URLSearchParams(location.search).get('q');
  const box = document.getElementById('st-q');
  if (q && box) box.value = q;
})();"""


def render_search_page(options: SearchPageOptions) -> str:
    """Return the search page."""
    # The index page has local-time.js already; this page adds it for its hits' times.
    scripts = (QUERY_SCRIPT, read_asset("viewer/local-time.js"), *search_scripts(), *options.extra_scripts)
    return get_template("search.html.j2").render(
        **shell_fields(
            options.theme,
            options.title,
            "index.css",
            scripts,
            connect_src=options.connect_src,
            more=options.csp_sources,
        ),
        nav_html=options.nav.html("search"),
    )
