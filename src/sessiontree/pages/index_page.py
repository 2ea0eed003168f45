"""The index page of a sessions folder: one group per project, newest first, a filter box.

Shared by ``serve`` (live) and the static site builder: links come from a caller's link
builder, serve-only scripts and CSP sources from ``IndexOptions``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup

from sessiontree.archive.catalog import CatalogNode, ProjectGroup, group_by_project
from sessiontree.archive.keep.roots import kept_label
from sessiontree.exporter.templating import MacroSet, get_template, read_asset
from sessiontree.pages.index_rows import (
    IndexRows,
    RowQuery,
    search_text,
    shown_title,
    sort_value,
)
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.shell import shell_fields
from sessiontree.readers import agent_label
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name
from sessiontree.store.times import parse_iso, time_millis, utc_datetime

LinkBuilder = Callable[[SessionInfo], "str | None"]
"""Return the href of a session's page (None: not linked, e.g. an unreadable file)."""

MACROS = MacroSet("index_macros.html.j2")


@dataclass(frozen=True, slots=True)
class IndexOptions:
    """How the index page differs between callers (serve adds a live script and connect-src)."""

    title: str = "Sessions"
    theme: str = "auto"
    extra_scripts: tuple[str, ...] = ()
    """Inline scripts added after the index script (each hashed into the CSP)."""
    connect_src: tuple[str, ...] = ()
    """CSP ``connect-src`` sources, e.g. ``("'self'",)`` for a served page's event stream."""
    csp_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """More CSP sources by directive, e.g. ``{"script-src": ("'wasm-unsafe-eval'",)}`` for a search engine."""
    now: float | None = None
    """The time the live dots are computed against (default: now)."""
    nav: NavLinks | None = None
    """Where the collection's other pages are (usage, search), shown under the title."""
    rows_url: str | None = None
    """Where the rows after the first window come from (``index_rows``); None: every row in the page."""
    chunks: str | None = None
    """A built site's files of the rows after the first window (``{}`` for a file's name in
    ``chunk_names``), when there are more rows than ``FIRST_ROWS``; None: every row in the page."""
    chunk_names: tuple[str, ...] = ()
    """What fills ``{}`` for each of those files, in the order the page fetches them
    (``pages.index_rows.row_chunks``)."""
    state: str = ""
    """What the listing was when the page was made (a live page compares it with the feed's)."""


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _moment(when: datetime) -> dict[str, str]:
    """A time as the page's ``<time>``: its UTC ISO form, and the UTC text shown until the
    script puts it in the reader's zone."""
    utc = when.astimezone(UTC)
    return {
        "iso": utc.isoformat(timespec="seconds").replace("+00:00", "Z"),
        "text": utc.strftime("%Y-%m-%d %H:%M UTC"),
    }


def _created(text: str | None) -> dict[str, str]:
    when = parse_iso(text) if text else None
    if when is None or time_millis(text) is None:
        return {"iso": "", "text": (text or "")[:40] or "?"}
    return _moment(when)


def _item(node: CatalogNode, link_for: LinkBuilder, now: float) -> dict[str, Any]:
    e = node.entry
    title = shown_title(e)
    count = e.message_count
    return {
        "key": shown_name(e.key),  # a file name's bytes that are not UTF-8 shown as \xff
        "href": None if e.error else link_for(e),
        "title": title,
        "search": search_text(e, title),
        "agent": agent_label(e.agent),
        "agent_key": e.agent,
        "kept": kept_label(e.machine, e.kept),
        "prompts": ""
        if e.prompt_count is None
        else f"{e.prompt_count} prompt{'s' if e.prompt_count != 1 else ''}",
        "prompt_count": sort_value(e, "prompts"),
        "created_ms": sort_value(e, "created"),
        "bytes": e.size,
        "mtime_ms": sort_value(e, "mtime"),
        "live": e.is_live(now),
        "error": e.error,
        "size": _size(e.size),
        "messages": "messages pending" if count is None else f"{count} message{'s' if count != 1 else ''}",
        "created": _created(e.created),
        "modified": _moment(utc_datetime(e.modified)),
        "children": [_item(child, link_for, now) for child in node.children],
    }


def render_groups(groups: Iterable[ProjectGroup], link_for: LinkBuilder, now: float | None = None) -> str:
    """Return the HTML of these project groups (a window of the index, or the rows a live index
    swaps in on a change)."""
    moment = time.time() if now is None else now
    shown = [{"cwd": g.cwd, "sessions": [_item(n, link_for, moment) for n in g.nodes]} for g in groups]
    return str(MACROS.groups(shown))


def render_index_groups(
    entries: Iterable[SessionInfo], link_for: LinkBuilder, now: float | None = None
) -> str:
    """Return the HTML of every project group."""
    return render_groups(group_by_project(entries), link_for, now)


def _choices(listed: list[SessionInfo]) -> dict[str, list[tuple[str, str]]]:
    """The agents and projects the list's filters offer: (value, label), sorted by label."""
    readable = [e for e in listed if not e.error]
    agents = {e.agent: agent_label(e.agent) for e in readable}
    projects = {e.cwd: e.cwd or "(no working directory)" for e in readable if not _folder_unknown(e)}
    return {
        "agents": sorted(agents.items(), key=lambda a: a[1].lower()),
        "projects": sorted(projects.items(), key=lambda p: p[1]),
    }


def _folder_unknown(e: SessionInfo) -> bool:
    """Listed from its stat alone (a fresh server's files it had no time to read yet): its folder is
    not known, which is not "(no working directory)"."""
    return e.pending and e.title is None and e.first_message is None and not e.cwd


def index_summary(entries: Iterable[SessionInfo]) -> str:
    """One line: how many sessions, projects and unreadable files, and how many are still being
    read (a fresh server lists what it had no time to read from its stat: its folder not known
    yet is no project of its own, not "(no working directory)")."""
    listed = list(entries)
    bad = sum(1 for e in listed if e.error)
    unread = sum(1 for e in listed if e.pending and not e.error)
    projects = len({e.cwd for e in listed if not e.error and not _folder_unknown(e)})
    text = f"{len(listed) - bad} sessions in {projects} project{'s' if projects != 1 else ''}"
    return text + (f", {bad} unreadable" if bad else "") + (f", {unread} still being read" if unread else "")


def render_index(
    entries: Iterable[SessionInfo] | IndexRows, link_for: LinkBuilder, options: IndexOptions | None = None
) -> str:
    """Return the whole index page of a catalog's records (given as ``IndexRows``: its order, summary
    and filter choices made once for every page made of the same listing)."""
    opts = options or IndexOptions()
    rows = entries if isinstance(entries, IndexRows) else IndexRows(entries)
    listed = rows.entries
    window = rows.select(RowQuery())
    if opts.rows_url is not None:
        groups_html = render_groups(window.groups, link_for, opts.now)
        paging = {
            "url": opts.rows_url,
            "chunks": None,
            "next": "" if window.next is None else str(window.next),
        }
    elif opts.chunks is not None and opts.chunk_names and window.next is not None:
        groups_html = render_groups(window.groups, link_for, opts.now)
        names = " ".join(opts.chunk_names)
        paging = {"url": None, "chunks": opts.chunks, "next": opts.chunk_names[0], "names": names}
    else:
        groups_html, paging = render_index_groups(listed, link_for, opts.now), None
    scripts = (
        read_asset("viewer/local-time.js"),
        read_asset("index-choices.js"),
        read_asset("index.js"),
        *opts.extra_scripts,
    )
    return get_template("index.html.j2").render(
        **shell_fields(
            opts.theme, opts.title, "index.css", scripts, connect_src=opts.connect_src, more=opts.csp_sources
        ),
        summary=rows.made("summary", index_summary),
        choices=rows.made("choices", _choices),
        groups_html=Markup(groups_html),
        paging=paging,
        state=opts.state,
        nav_html=opts.nav.html("index") if opts.nav is not None else "",
    )
