"""The exporter's public API: a session to an HTML string, a session file to an HTML file."""

from __future__ import annotations

import os
import tempfile
import webbrowser
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.errors import EntryNotFound, ExportError, SessionNotFound
from sessiontree.exporter.page import THEMES, FragmentPacker, iter_page
from sessiontree.exporter.parallel import render_all
from sessiontree.exporter.render import Meta, RenderContext, one_line, render_entry
from sessiontree.exporter.sections import (
    ToolSpec,
    normalise_tools,
    render_header,
    render_system,
)
from sessiontree.exporter.stats import compute_stats, cumulative_by_turn
from sessiontree.store import Session, load_session
from sessiontree.store.surrogates import SURROGATES


@dataclass
class RenderedSession:
    """Everything a page is assembled from (a site builder may assemble its own pages from it)."""

    session_meta: dict[str, Any]
    entries: list[Meta]
    frags: FragmentPacker
    images: dict[str, str]
    header_html: str
    system_html: str
    leaf_id: str | None


def _title(session: Session) -> str:
    if session.title:
        return session.title
    for entry in session.entries:
        message = entry.get("message")
        if entry.get("type") == "message" and isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            text = content if isinstance(content, str) else ""
            if isinstance(content, list):
                text = next(
                    (b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)), ""
                )
            if text.strip():
                return one_line(text, 80)
    return session.id or "Session"


def _resolve_leaf(session: Session, leaf_id: str | None) -> str | None:
    if leaf_id is None:
        return session.leaf_id
    if leaf_id not in session.tree.by_id:
        raise EntryNotFound(f"Entry not found: {leaf_id}; pass an entry id of this session to --leaf")
    return leaf_id


def render_session(
    session: Session,
    *,
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    compress: bool = True,
) -> RenderedSession:
    """Render every entry of a session to (meta, fragment) plus the header and system sections.

    Fragments go straight into a ``FragmentPacker`` (gzip on the fly unless ``compress`` is off).
    """
    tree = session.tree
    leaf = _resolve_leaf(session, leaf_id)
    ctx = RenderContext.for_entries(session.entries, tree.labels)
    # A duplicated id: the tree keeps the last entry; so does the page.
    by_id = tree.by_id
    todo = [e for e in session.entries if isinstance(e.get("id"), str) and by_id.get(e["id"]) is e]

    def render_one(index: int) -> tuple[Meta, str]:
        entry = todo[index]
        return render_entry(entry, ctx, parent_id=tree.parent_of(entry["id"]))

    metas: list[Meta] = []
    frags = FragmentPacker(compress=compress)
    try:
        for meta, html in render_all(len(todo), render_one, images=lambda: ctx.images.images):
            metas.append(meta)
            frags.add(html)
    except BaseException:
        frags.close()
        raise
    init = session.session_init(leaf) or {}
    prompt = system_prompt if system_prompt is not None else init.get("systemPrompt")
    tool_specs: list[ToolSpec] = normalise_tools(list(tools) if tools is not None else init.get("tools"))
    title = _title(session)
    header = render_header(
        title=title,
        session_id=session.id or "",
        cwd=session.cwd or "",
        date=session.timestamp or "",
        stats=compute_stats(session.entries),
        chart_points=cumulative_by_turn(tree.path_to(leaf)) if leaf else [],
    )
    return RenderedSession(
        session_meta={"id": session.id, "title": title, "cwd": session.cwd, "timestamp": session.timestamp},
        entries=metas,
        frags=frags,
        images=ctx.images.images,
        header_html=str(header),
        system_html=str(render_system(prompt if isinstance(prompt, str) else "", tool_specs)),
        leaf_id=leaf,
    )


def render_session_html(
    session: Session,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    compress: bool = True,
) -> str:
    """Return the self-contained HTML page of a loaded session.

    ``system_prompt`` and ``tools`` (tool names or schemas) replace what the session's
    ``session_init`` entry holds; ``leaf_id`` picks the active leaf (default: the last entry).
    """
    return "".join(
        iter_session_page(
            session, theme=theme, leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, compress=compress
        )
    )


def iter_session_page(
    session: Session,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    compress: bool = True,
) -> Iterator[str]:
    """Yield the page of a session in chunks (for writing without one giant string)."""
    if theme not in THEMES:
        raise ExportError(f"Unknown theme {theme!r}; use one of: {', '.join(THEMES)}")
    r = render_session(session, leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, compress=compress)
    del session  # only the rendered parts are needed from here on (frees the entries when we own them)
    yield from iter_page(
        r.session_meta, r.entries, r.frags, r.images, r.header_html, r.system_html, theme, leaf_id=r.leaf_id
    )


def load_for_export(input_path: str | Path, *, blobs_dir: Path | None = None) -> Session:
    """Load a session file for export (read-only), refusing missing files and non-sessions."""
    path = Path(input_path)
    if not path.exists():
        raise SessionNotFound(f"File not found: {path}")
    session = load_session(path, blobs_dir=blobs_dir)
    if session.is_empty:
        why = "it is empty" if path.stat().st_size == 0 else "its first line is not a session header"
        raise ExportError(f"Not a session file: {path} ({why})")
    return session


def default_output_path(input_path: str | Path) -> Path:
    """Return ``session-<file stem>.html`` in the current directory (the reference's default)."""
    return Path.cwd() / f"session-{Path(input_path).stem}.html"


def write_text_atomic(path: Path, chunks: str | Iterable[str]) -> None:
    """Write a file through a temp file and rename, so a reader never sees half a page."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file 0600; a page is meant to be read, so use the usual mode.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "w", encoding="utf-8", errors=SURROGATES, newline="\n") as fh:
            if isinstance(chunks, str):
                fh.write(chunks)
            else:
                fh.writelines(chunks)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def export_to_file(
    input_path: str | Path,
    output_path: str | Path | None = None,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    blobs_dir: Path | None = None,
) -> Path:
    """Export a session file to a self-contained HTML file and return its path (input untouched)."""
    session = load_for_export(input_path, blobs_dir=blobs_dir)
    out = Path(output_path) if output_path is not None else default_output_path(input_path)
    if out.is_dir():
        out = out / default_output_path(input_path).name
    if out.exists() and out.resolve() == Path(input_path).resolve():
        raise ExportError(f"Output {out} is the session file itself; choose another output path")
    if not out.parent.is_dir():
        raise ExportError(f"Directory not found: {out.parent}; create it or choose another output path")
    chunks = iter_session_page(
        session, theme=theme, leaf_id=leaf_id, system_prompt=system_prompt, tools=tools
    )
    # The generator drops the entries once they are rendered; holding them here would keep
    # the whole session alive while the page is written.
    del session
    write_text_atomic(out, chunks)
    return out


def open_in_browser(path: Path) -> None:
    """Open an exported page in the default browser."""
    webbrowser.open(path.resolve().as_uri())


__all__ = [
    "RenderedSession",
    "default_output_path",
    "export_to_file",
    "load_for_export",
    "open_in_browser",
    "render_session",
    "render_session_html",
]
