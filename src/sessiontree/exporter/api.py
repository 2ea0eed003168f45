"""A loaded session rendered: its entries to fragments (cached by content), its header and system sections."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from concurrent.futures import CancelledError
from typing import Any

from sessiontree.errors import EntryNotFound
from sessiontree.exporter.context import RenderContext
from sessiontree.exporter.fragment_cache import Record, iter_keys
from sessiontree.exporter.fragments import FragmentPacker
from sessiontree.exporter.options import PageOptions, PageShell, RenderedSession, RenderOptions
from sessiontree.exporter.parallel import render_all, warm_count
from sessiontree.exporter.render import Meta, entry_inputs, render_entry
from sessiontree.exporter.sections import (
    ToolSpec,
    normalise_tools,
    render_header,
    render_system,
)
from sessiontree.exporter.stats import SessionStats, UsageMemo, compute_stats, cumulative_by_turn
from sessiontree.store import Session, SessionTree
from sessiontree.store.kinds import typed_prompt
from sessiontree.store.pricing import within_lookup_budget
from sessiontree.store.titles import FULL_TITLE_CHARS, cut_title


def _title(session: Session) -> str:
    """The session's title, else its first typed prompt (wrapper markup and context left out)."""
    if session.title:
        return cut_title(session.title, FULL_TITLE_CHARS)
    for entry in session.entries:
        typed = typed_prompt(entry)
        if typed:
            return cut_title(typed, FULL_TITLE_CHARS)
    return session.id or "Session"


def _resolve_leaf(session: Session, leaf_id: str | None) -> str | None:
    if leaf_id is None:
        return session.leaf_id
    if leaf_id not in session.tree.by_id:
        raise EntryNotFound(f"Entry not found: {leaf_id}; pass an entry id of this session to --leaf")
    return leaf_id


@within_lookup_budget
def render_session(
    session: Session, options: RenderOptions | None = None, *, shell: PageShell | None = None
) -> RenderedSession:
    """Render every entry of a session to (meta, fragment), its title, stats, header and system sections.

    Fragments go straight into a ``FragmentPacker`` (gzip on the fly unless ``options.compress``
    is off). Pass the result to ``iter_page`` with ``PageOptions`` for a page. ``shell`` is
    ``render_shell``'s result for the same session and options when the caller already has it.
    """
    opts = options or RenderOptions()
    tree = session.tree
    _resolve_leaf(session, opts.leaf_id)  # an unknown --leaf fails before any work
    ctx = RenderContext.for_session(session)
    ctx.subagent_href = opts.subagent_href
    ctx.child_page = opts.related.child_page if opts.related is not None else None
    # A duplicated id: the tree keeps the last entry; so does the page.
    by_id = tree.by_id
    todo = [e for e in session.entries if isinstance(e.get("id"), str) and by_id.get(e["id"]) is e]

    cancelled = opts.cancelled

    def render_one(index: int) -> Record:
        if cancelled is not None and cancelled():
            raise CancelledError  # every client of this render left: drop what it made
        entry = todo[index]
        meta, html = render_entry(entry, ctx, parent_id=tree.parent_of(entry["id"]))
        return meta, html, ctx.images.take_seen()

    metas: list[Meta] = []
    # Images in the order entries first show them, whichever process rendered which entry.
    images: dict[str, str] = {}
    frags: FragmentPacker | None = None
    try:
        records = _render_records(todo, ctx, tree, render_one, opts)
        # No thread may run when the renderer forks: the packer holds what comes before the fork.
        frags = FragmentPacker(compress=opts.compress, hold=next(records))
        for meta, html, seen in records:
            metas.append(meta)
            frags.add(html)
            for sha, url in seen.items():
                images.setdefault(sha, url)
    except BaseException:
        if frags is not None:
            frags.close()
        raise
    shell = shell or render_shell(session, opts)
    return RenderedSession(
        title=shell.title,
        stats=shell.stats,
        session_meta={
            "id": session.id,
            "title": shell.title,
            "cwd": session.cwd,
            "timestamp": session.timestamp,
        },
        entries=metas,
        frags=frags,
        images=images,
        header_html=shell.header_html,
        system_html=shell.system_html,
        leaf_id=shell.leaf_id,
    )


@within_lookup_budget
def render_shell(session: Session, options: RenderOptions | None = None) -> PageShell:
    """Render what a page shows around the entries: title, stats, header and system sections.

    Cheap next to the entries: a server sends these first, before the entries are rendered.
    """
    opts = options or RenderOptions()
    leaf = _resolve_leaf(session, opts.leaf_id)
    title = _title(session)
    memo: UsageMemo = {}  # the chart's messages priced once, by the totals
    stats = compute_stats(session.entries, memo)
    header = render_header(
        session,
        title=title,
        stats=stats,
        chart_points=cumulative_by_turn(session.tree.path_to(leaf), memo, stats.subagents) if leaf else [],
        related=opts.related,
    )
    system = _system_html(session.session_init(leaf), opts)
    return PageShell(title=title, stats=stats, header_html=str(header), system_html=system, leaf_id=leaf)


def render_identity_shell(
    session: Session, init: Mapping[str, Any] | None, leaf_id: str | None, options: RenderOptions
) -> PageShell:
    """Render the shell a server sends before it has read every entry: the header's identity
    (no statistics, span or chart: ``render_header``), the system section of ``init`` (the last
    ``session_init`` entry on the path to ``leaf_id``); ``session`` need hold only the entries
    its title and start time come from (a quick scan's, ``store.quick_scan``)."""
    title = _title(session)
    header = render_header(session, title=title, stats=None, chart_points=[], related=options.related)
    return PageShell(
        title=title,
        stats=SessionStats(),
        header_html=str(header),
        system_html=_system_html(init, options),
        leaf_id=leaf_id,
    )


def _system_html(init: Mapping[str, Any] | None, opts: RenderOptions) -> str:
    found = init or {}
    prompt = opts.system_prompt if opts.system_prompt is not None else found.get("systemPrompt")
    tool_specs: list[ToolSpec] = normalise_tools(
        list(opts.tools) if opts.tools is not None else found.get("tools")
    )
    return str(render_system(prompt if isinstance(prompt, str) else "", tool_specs))


def _render_records(
    todo: list[dict[str, Any]],
    ctx: RenderContext,
    tree: SessionTree,
    render_one: Callable[[int], Record],
    opts: RenderOptions,
) -> Iterator[Any]:
    """Yield how many records to hold before a fork, then each entry's (meta, fragment, images).

    With a cache, found fragments are used and only the others rendered (on two cores when
    they are many), then stored in one transaction.
    """
    cache = opts.cache
    if cache is None:
        yield warm_count(len(todo), parallel=opts.parallel)
        yield from render_all(len(todo), render_one, parallel=opts.parallel)
        return
    keys = list(iter_keys(entry_inputs(e, ctx, parent_id=tree.parent_of(e["id"])) for e in todo))
    have = cache.present([k for k in keys if k is not None])
    misses = [i for i, k in enumerate(keys) if k is None or k not in have]
    warm = warm_count(len(misses), parallel=opts.parallel)
    yield misses[warm] if 0 < warm < len(misses) else 0  # everything before the first miss after the fork
    fresh: Generator[Any, None, None] = render_all(
        len(misses), lambda j: render_one(misses[j]), parallel=opts.parallel
    )
    found: dict[bytes, Record] = {}
    try:
        for index, key in enumerate(keys):
            if key is None or key not in have:
                record: Record = next(fresh)
                if key is not None:
                    cache.add(key, record)  # packed now, written in one transaction at the end
                yield record
                continue
            if key not in found:  # the next batch of hits, read as they are needed (memory stays small)
                found = cache.get_many([k for k in keys[index : index + _READ_BATCH] if k in have])
            hit = found.get(key)
            if hit is None:  # no longer reads back (damaged, or evicted meanwhile): rendered here
                hit = render_one(index)
                cache.add(key, hit)
            yield hit
    finally:
        fresh.close()
        cache.flush()


_READ_BATCH = 400


__all__ = ["PageOptions", "RenderOptions", "RenderedSession", "render_session", "render_shell"]
