"""The navigation bar of every page of a collection (index, session, usage, search), in serve and a site.

One partial (``templates/nav.html.j2``) and one stylesheet (``templates/nav.css``): each caller
says where the pages are (serve's named routes, a site's relative paths) and which one is shown.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass

from markupsafe import Markup

from sessiontree.exporter.fragments import json_for_script
from sessiontree.exporter.templating import MacroSet, read_asset

MACROS = MacroSet("nav.html.j2")
PANE_SCRIPTS = ("browse/session-list.js", "browse/sessions-pane.js")
"""The sessions pane of a session page (serve, a site): its pure list logic, then its DOM."""
PAGES = ("index", "usage", "search")
LABELS = {"index": "All sessions", "usage": "Usage", "search": "Search"}


@dataclass(frozen=True, slots=True)
class NavLinks:
    """Where a collection's pages are; None for a page it does not have (a site built without usage)."""

    index: str
    usage: str | None = None
    search: str | None = None

    def html(self, current: str | None = None) -> Markup:
        """The bar's markup, the page shown (``index``, ``usage``, ``search`` or None) marked current."""
        items = [
            (name, LABELS[name], href, name == current)
            for name in PAGES
            if (href := getattr(self, name)) is not None
        ]
        return MACROS.nav(items)

    def relative_to(self, page: str) -> NavLinks:
        """The same links seen from a site page at ``page`` (site-relative, ``/`` separated)."""
        folder = posixpath.dirname(page) or "."

        def rel(href: str | None) -> str | None:
            return None if href is None else posixpath.relpath(href, folder)

        return NavLinks(rel(self.index) or self.index, rel(self.usage), rel(self.search))


def nav_css() -> str:
    """The bar's stylesheet (each page adds it to its own one ``<style>``)."""
    return read_asset("nav.css")


def pane_css() -> str:
    """The sessions pane's stylesheet (a session page adds it to its one ``<style>``)."""
    return read_asset("browse/pane.css")


def browse_scripts(settings: Mapping[str, object], *names: str) -> tuple[str, ...]:
    """A collection page's browsing scripts: ``window.sessiontreeBrowse`` (``search``: the search
    page; the pane's ``data``, ``current``, ...), the keys (Ctrl-K), then ``templates/<names>``."""
    head = "window.sessiontreeBrowse = " + json_for_script(dict(settings)) + ";"
    return (head, read_asset("browse/keys.js"), *(read_asset(name) for name in names))
