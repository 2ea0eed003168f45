"""The usage dashboard: totals, cost and tokens over time by project / model / agent, top
sessions, activity by day, filters, CSV and JSON of what is shown.

Served by ``serve`` and written by ``build``; both pass how a session is linked and where home
is. The page carries the totals per (project, agent, quarter hour, model) packed small
(``pages/usage_data.py``) and one CSP-hashed script (``templates/usage/``) that filters and draws
them; the sessions a filter keeps come a page at a time from serve's ``api`` (same origin), or a
built site's page carries the top ones of each filter of one value. Nothing is loaded from
anywhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from markupsafe import Markup

from sessiontree.archive.usage import UsageRecord
from sessiontree.archive.usage_query import UsageAnswers
from sessiontree.exporter.fragments import json_for_script
from sessiontree.exporter.templating import get_template, read_asset
from sessiontree.pages.nav import NavLinks, browse_scripts
from sessiontree.pages.shell import shell_fields
from sessiontree.pages.usage_data import usage_data

PALETTE_SIZE = 8
"""The top groups get colour classes st-m0 .. st-m7 by rank; the rest are drawn as one "other"."""
SCRIPT_MODULES = ("usage/usage-data.js", "usage/usage-chunks.js", "usage/usage-view.js")
COUNTING_SCRIPT = "usage/usage-counting.js"


@dataclass(frozen=True)
class UsagePageOptions:
    """What differs between serve and build: the title, how a session (by its path) is linked, home."""

    title: str = "Usage"
    link_for: Callable[[str], str | None] = field(default=lambda path: None)
    theme: str = "auto"
    extra_note: str | None = None
    home: str = "index.html"
    """The href of the index of sessions (serve: its ``/``), when no ``nav`` is given."""
    nav: NavLinks | None = None
    """Where the collection's pages are (index, search), shown above the title."""
    uncounted: int = 0
    """Sessions whose usage is not counted yet (serve's background pass still reads them): the
    page is marked ``data-counting`` and says so; it follows serve's count over ``events``
    (``COUNTING_SCRIPT``) and loads itself again once the files are listed and once every one is
    counted (the filters in the URL's hash kept); negative: the files are still being listed
    (serve's first listing), how many are to count not known yet."""
    events: str | None = None
    """serve's ``/usage/events``: how many files are left to count, pushed as it changes."""
    api: str | None = None
    """serve's ``/api/usage-sessions``: the page asks it for the sessions of each filter (a built
    site's page carries the top ones of each filter of one value instead)."""
    chunks: tuple[str, ...] = ()
    """A built site's files of sessions by month (``site.usage_chunks``): the page fetches those a
    dated or combined filter covers and ranks their sessions itself."""


def usage_script() -> str:
    """The page's one script: the pure data module, then the view."""
    return "\n".join(read_asset(name) for name in SCRIPT_MODULES)


def render_usage_page(
    records: UsageAnswers | Sequence[UsageRecord], options: UsagePageOptions | None = None
) -> str:
    """Return the whole usage page as HTML (every string from a session escaped or JSON-quoted)."""
    options = options or UsagePageOptions()
    script = usage_script()
    if options.uncounted:  # serve's, while it counts: reloads the page (never in a built site)
        script += "\n" + read_asset(COUNTING_SCRIPT)
    if options.nav is not None and options.nav.search is not None:  # Ctrl-K: the search page, as elsewhere
        script += "\n" + "\n".join(browse_scripts({"search": options.nav.search}))
    return get_template("usage.html.j2").render(
        **shell_fields(
            options.theme,
            options.title,
            "usage.css",
            [script],
            connect_src=("'self'",) if options.api or options.chunks else (),
        ),  # our own files, checked
        script=Markup(script),
        data_json=Markup(
            json_for_script(usage_data(records, options.link_for, api=options.api, chunks=options.chunks))
        ),
        nav_html=(options.nav or NavLinks(index=options.home)).html("usage"),
        note=options.extra_note,
        uncounted=options.uncounted,
        events=options.events or "",
    )
