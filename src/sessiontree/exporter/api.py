"""The exporter's public API: a session to an HTML string, a session file to an HTML file."""

from __future__ import annotations

import webbrowser
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from sessiontree.errors import EntryNotFound, ExportError
from sessiontree.exporter.fragment_cache import FragmentCache, Record, iter_keys, page_key
from sessiontree.exporter.fragments import FragmentPacker
from sessiontree.exporter.options import PageOptions, PageShell, RenderedSession, RenderOptions
from sessiontree.exporter.page import iter_page
from sessiontree.exporter.parallel import render_all, warm_count
from sessiontree.exporter.render import Meta, RenderContext, entry_inputs, render_entry
from sessiontree.exporter.sections import (
    ToolSpec,
    normalise_tools,
    render_header,
    render_system,
)
from sessiontree.exporter.stats import compute_stats, cumulative_by_turn
from sessiontree.readers import load_any
from sessiontree.readers.kinds import typed_prompt
from sessiontree.store import Session, SessionTree
from sessiontree.store.atomic import write_atomic
from sessiontree.store.blobs import describe_missing_blobs
from sessiontree.store.discovery import printable
from sessiontree.store.repair import describe_damage
from sessiontree.store.session import require_header
from sessiontree.store.surrogates import SURROGATES
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
    # A duplicated id: the tree keeps the last entry; so does the page.
    by_id = tree.by_id
    todo = [e for e in session.entries if isinstance(e.get("id"), str) and by_id.get(e["id"]) is e]

    def render_one(index: int) -> Record:
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


def render_shell(session: Session, options: RenderOptions | None = None) -> PageShell:
    """Render what a page shows around the entries: title, stats, header and system sections.

    Cheap next to the entries: a server sends these first, before the entries are rendered.
    """
    opts = options or RenderOptions()
    leaf = _resolve_leaf(session, opts.leaf_id)
    init = session.session_init(leaf) or {}
    prompt = opts.system_prompt if opts.system_prompt is not None else init.get("systemPrompt")
    tool_specs: list[ToolSpec] = normalise_tools(
        list(opts.tools) if opts.tools is not None else init.get("tools")
    )
    title = _title(session)
    stats = compute_stats(session.entries)
    header = render_header(
        session,
        title=title,
        stats=stats,
        chart_points=cumulative_by_turn(session.tree.path_to(leaf)) if leaf else [],
    )
    return PageShell(
        title=title,
        stats=stats,
        header_html=str(header),
        system_html=str(render_system(prompt if isinstance(prompt, str) else "", tool_specs)),
        leaf_id=leaf,
    )


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


def render_session_html(
    session: Session,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    compress: bool = True,
) -> str:
    """Return the self-contained HTML page of a loaded session (``render_session`` + ``iter_page``).

    ``system_prompt`` and ``tools`` (tool names or schemas) replace what the session's
    ``session_init`` entry holds; ``leaf_id`` picks the active leaf (default: the last entry).
    """
    page = PageOptions(theme=theme, compress=compress)
    render = RenderOptions(leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, compress=compress)
    return "".join(_iter_rendered_page(session, render, page))


def _iter_rendered_page(session: Session, render: RenderOptions, page: PageOptions) -> Iterator[str]:
    rendered = render_session(session, render)
    del session  # only the rendered parts are needed from here on (frees the entries when we own them)
    yield from iter_page(rendered, page)


def load_for_export(
    input_path: str | Path,
    *,
    blobs_dir: Path | None = None,
    agent: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Session:
    """Load a session file of any agent for export (read-only), refusing missing files and non-sessions.

    ``agent`` forces the reader (claude, codex, pi); by default the file's content decides.
    ``warn`` gets one line when loading repaired or skipped anything (a damaged file), and one
    when images refer to blobs that are not there (a file copied out of its agent folder).
    """
    path = Path(input_path)
    session = require_header(load_any(path, agent, blobs_dir=blobs_dir))
    if warn is not None:
        damage = describe_damage(session.repairs, session.bad_lines)
        if damage is not None:
            warn(printable(f"Warning: {path.name}: {damage}"))
        if session.missing_blobs:
            warn(printable(f"Warning: {path.name}: {describe_missing_blobs(session.missing_blobs)}"))
    return session


def default_output_path(input_path: str | Path) -> Path:
    """Return ``session-<file stem>.html`` in the current directory (the reference's default)."""
    return Path.cwd() / f"session-{Path(input_path).stem}.html"


def write_text_atomic(path: Path, chunks: str | Iterable[str]) -> None:
    """Write a page through a temp file and rename, so a reader never sees half a page."""
    write_atomic(path, chunks)


def export_to_file(
    input_path: str | Path,
    output_path: str | Path | None = None,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    blobs_dir: Path | None = None,
    agent: str | None = None,
    warn: Callable[[str], None] | None = None,
    cache: FragmentCache | None = None,
) -> Path:
    """Export a session file to a self-contained HTML file and return its path (input untouched).

    ``agent`` forces the reader of the file (claude, codex, pi); by default its content decides.
    ``cache`` reuses the page made before from the same file and options (its bytes, kept whole),
    else the fragments rendered before, and keeps what it renders.
    """
    options = [theme, leaf_id, system_prompt, tools, None if blobs_dir is None else str(blobs_dir), agent]
    key = _page_key(Path(input_path), options) if cache is not None else None
    hit = cache.get_page(key) if cache is not None and key is not None else None
    if hit is not None:
        out = _output_path(input_path, output_path)
        PageOptions(theme=theme)
        for line in hit[0]:
            if warn is not None:
                warn(line)
        write_atomic(out, hit[1])
        return out
    warnings: list[str] = []

    def keep_warning(line: str) -> None:
        warnings.append(line)
        if warn is not None:
            warn(line)

    session = load_for_export(input_path, blobs_dir=blobs_dir, agent=agent, warn=keep_warning)
    out = _output_path(input_path, output_path)
    # Options are checked before anything is rendered (a bad theme fails at once).
    page = PageOptions(theme=theme)
    # A page with missing images is not kept whole: it must change when they turn up.
    keep = cache is not None and key is not None and not session.missing_blobs
    chunks = _iter_rendered_page(
        session, RenderOptions(leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, cache=cache), page
    )
    # The generator drops the entries once they are rendered; holding them here would keep
    # the whole session alive while the page is written.
    del session
    if not keep:
        write_text_atomic(out, chunks)
        return out
    kept: list[bytes] = []

    def keeping(chunks: Iterable[str]) -> Iterator[bytes]:
        for chunk in chunks:
            kept.append(chunk.encode("utf-8", SURROGATES))  # as write_atomic encodes text
            yield kept[-1]

    write_atomic(out, keeping(chunks))  # the page held once, as bytes (not as text, then bytes)
    assert cache is not None and key is not None
    cache.put_page(key, warnings, kept)
    return out


def _page_key(path: Path, options: list[Any]) -> bytes | None:
    try:
        return page_key(path, options)
    except OSError:  # a missing or unreadable file: the load below says so in its words
        return None


def _output_path(input_path: str | Path, output_path: str | Path | None) -> Path:
    out = Path(output_path) if output_path is not None else default_output_path(input_path)
    if out.is_dir():
        out = out / default_output_path(input_path).name
    if out.exists() and out.resolve() == Path(input_path).resolve():
        raise ExportError(f"Output {out} is the session file itself; choose another output path")
    if not out.parent.is_dir():
        raise ExportError(f"Directory not found: {out.parent}; create it or choose another output path")
    return out


def open_in_browser(path: Path) -> None:
    """Open an exported page in the default browser."""
    webbrowser.open(path.resolve().as_uri())


__all__ = [
    "PageOptions",
    "RenderOptions",
    "RenderedSession",
    "default_output_path",
    "export_to_file",
    "load_for_export",
    "open_in_browser",
    "render_session",
    "render_session_html",
]
