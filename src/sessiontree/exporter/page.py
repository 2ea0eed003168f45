"""Assemble the one-file HTML page (the exporter <-> viewer contract of docs/contracts.md)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from typing import Any

from markupsafe import Markup

from sessiontree.errors import ExportError
from sessiontree.exporter.csp import build_csp, csp_hash
from sessiontree.exporter.fragments import (
    FragmentPacker,
    json_for_script,
    pack_fragments,
    unpack_fragments,
)
from sessiontree.exporter.highlight import theme_css
from sessiontree.exporter.images import ImageFile, image_file, image_url
from sessiontree.exporter.options import THEMES, PageOptions, PageShell, RenderedSession, check_theme
from sessiontree.exporter.stats import SessionStats
from sessiontree.exporter.templating import get_template, read_asset

DATA_VERSION = 1
# Where the st-data JSON goes in the rendered template; split on its last occurrence, after
# which only our own scripts follow, so session text can never fake it.
_DATA_SLOT = "\x00st-data\x00"
_PREVIEW_SLOT = "\x00st-preview\x00"
_LATE_SLOT = "\x00st-late\x00"
_SCRIPT_SLOT = re.compile("\x00st-script-([0-9]+)\x00")

# The viewer's modules in the order they are joined into its one inline script: the pure data
# modules (no DOM; each also loads under node for its tests) first, then the DOM modules.
VIEWER_MODULES = tuple(
    f"viewer/{name}.js"
    for name in (
        "entry-index",
        "search-text",
        "tree-rows",
        "shown-messages",
        "fragment-stream",
        "link-query",
        "outline",
        "local-time",
        "base",
        "tree-view",
        "messages",
        "navigation",
        "reading",
        "chrome",
        "boot",
    )
)
LIVE_SCRIPT = "viewer/live.js"


def content_security_policy(
    script: str | Sequence[str], options: PageOptions | None = None, *, css: str | Sequence[str] | None = None
) -> str:
    """Return the page's CSP: nothing from the network, only the page's own inline scripts and style.

    ``script`` is the viewer's script (or every inline script of the page); the extra scripts
    and sources of ``options`` are added to it. ``css`` is the text of the page's one
    ``<style>`` (default: the viewer's; several for a page that writes another in its place, the
    sealed page); only that stylesheet applies (``style-src-elem`` with its
    hash, ``style-src`` the same for browsers without the CSP3 split) and no ``style=``
    attribute does (the page has none: ANSI colours are classes; the viewer positions rows
    through the CSSOM, which CSP does not govern).
    """
    opts = options or PageOptions()
    scripts = [script] if isinstance(script, str) else list(script)
    scripts += [s for s in (*opts.early_scripts, *opts.extra_scripts) if s not in scripts]
    styles = [viewer_assets()[0] + opts.extra_css] if css is None else [css] if isinstance(css, str) else css
    style = [f"'{csp_hash(text)}'" for text in styles]
    more: dict[str, list[str]] = {"connect-src": list(opts.connect_src)}
    for directive, sources in opts.csp_sources.items():
        more.setdefault(directive, []).extend(sources)
    directives = {
        "img-src": ["data:"] + (["'self'"] if opts.image_prefix is not None else []),
        "style-src": style,
        "style-src-elem": list(style),
        "style-src-attr": ["'none'"],
        "script-src": [f"'{csp_hash(s)}'" for s in scripts],
    }
    return build_csp(directives, more)


@cache
def viewer_script() -> str:
    """Return the viewer's one inline script: its modules joined in order inside one closure."""
    parts = [read_asset(name) for name in VIEWER_MODULES]
    return "(() => {\n'use strict';\n" + "\n".join(parts) + "})();\n"


def live_script() -> str:
    """Return the live page's script (``appendEntry`` and its queue), for ``PageOptions.extra_scripts``."""
    return read_asset(LIVE_SCRIPT)


@cache
def viewer_assets() -> tuple[str, str]:
    """Return (css, js) inlined into every page: palette, viewer.css and Pygments CSS; the viewer
    script (one copy, shared by every page a process makes)."""
    css = read_asset("palette.css") + read_asset("viewer.css") + "\n" + theme_css()
    js = viewer_script()
    # Our own files, but a stray "</" would end the element early and break the page.
    if "</script" in js.lower() or "</style" in css.lower():
        raise ExportError("the viewer's JS and CSS must not contain '</script' or '</style'")
    return css, js


def image_files(rendered: RenderedSession) -> Iterator[ImageFile]:
    """Yield each distinct image of a render as (sha256, ext, bytes): what a page under an
    ``image_prefix`` refers to as ``prefix + sha256 + "." + ext`` (a server serves, a site writes them).
    """
    for sha, data_url in rendered.images.items():
        yield image_file(sha, data_url)


def _page_images(images: Mapping[str, str], prefix: str | None) -> Iterator[tuple[str, str]]:
    for sha, data_url in images.items():
        yield sha, data_url if prefix is None else image_url(prefix, sha, data_url)


def iter_page_data(rendered: RenderedSession, options: PageOptions) -> Iterator[str]:
    """Yield the ``st-data`` JSON in chunks (large values are never joined into one string)."""
    entries = rendered.entries
    if rendered.frags.count != len(entries):
        raise ExportError(f"{rendered.frags.count} fragments for {len(entries)} entries; they must align")
    yield f'{{"v":{DATA_VERSION},"session":{json_for_script(dict(rendered.session_meta))}'
    yield f',"leafId":{json_for_script(rendered.leaf_id)},"entries":['
    for start in range(0, len(entries), 1024):
        chunk = json_for_script(list(entries[start : start + 1024]))[1:-1]
        yield ("," if start else "") + chunk
    yield '],"images":{'
    for i, (sha, url) in enumerate(_page_images(rendered.images, options.image_prefix)):
        yield ("," if i else "") + json_for_script(sha) + ":" + json_for_script(url)
    yield '},"frags":'
    yield from rendered.frags.iter_json(options.compress)
    yield "}"


def iter_page(rendered: RenderedSession, options: PageOptions | None = None) -> Iterator[str]:
    """Yield the page of a rendered session in chunks (a file writer or a response streams them).

    The same ``rendered`` can make any number of pages (each with its own options).
    """
    shell = PageShell(
        rendered.title, rendered.stats, rendered.header_html, rendered.system_html, rendered.leaf_id
    )
    return iter_streamed_page(shell, lambda: rendered, options)


def page_csp(options: PageOptions) -> str:
    """The CSP of a session page made with ``options`` (its meta tag; a server's header too)."""
    css, js = viewer_assets()
    return content_security_policy(js, options, css=css + options.extra_css)


def iter_streamed_page(
    shell: PageShell,
    render: Callable[[], RenderedSession],
    options: PageOptions | None = None,
    *,
    preview: str = "",
    after_data: Callable[[], str] | None = None,
) -> Iterator[str]:
    """Yield a page whose head, header and ``preview`` go out before ``render()`` is called.

    ``preview`` is trusted HTML (fragments of our renderer) shown in the messages area until
    the viewer boots and draws the messages in its place: a server streams a big session's
    first screen at once and the rest when rendered. A rendered header that differs from the
    one sent first (a server's first header has no statistics) follows the data, for the viewer
    to put in its place (``#st-header-late``), and so does ``after_data()`` (trusted HTML).
    """
    opts = options or PageOptions()
    # The first chunk is handed out, not kept: a generator suspended while its session renders
    # holds only the page's small tail (fifty clients at once held fifty copies of the head's
    # ~80 kB of CSS and scripts, three times over: the template's text, its head and the chunk).
    pieces = _streamed_pieces(shell, opts, preview)
    yield pieces.pop()
    data_end, parts = pieces
    rendered = render()
    yield from iter_page_data(rendered, opts)
    late = ""
    if rendered.header_html != shell.header_html:
        late = f'<template id="st-header-late">{rendered.header_html}</template>'
    late += after_data() if after_data is not None else ""
    scripts = (viewer_assets()[1], *opts.extra_scripts)
    yield data_end + late + "".join(scripts[int(p)] if k % 2 else p for k, p in enumerate(parts))


def _streamed_pieces(shell: PageShell, opts: PageOptions, preview: str) -> list[Any]:
    """A streamed page's markup around its data: ``[data_end, script_parts, first_chunk]`` (the
    first chunk last, for the caller to pop and hand out)."""
    css = viewer_assets()[0] + opts.extra_css
    page = get_template("page.html.j2").render(
        theme=opts.theme,
        csp=Markup(page_csp(opts)),
        title=shell.title,
        css=Markup(css),
        nav_html=Markup(opts.nav_html),
        header_html=Markup(shell.header_html),
        system_html=Markup(shell.system_html),
        preview=Markup(_PREVIEW_SLOT),
        data_json=Markup(_DATA_SLOT),
        late=Markup(_LATE_SLOT),
        early=[Markup(s) for s in opts.early_scripts],  # our own scripts: before the data, in the first chunk
        scripts=[Markup(_script_slot(i)) for i in range(1 + len(opts.extra_scripts))],
    )
    head, _, tail = page.rpartition(_DATA_SLOT)
    # Only our own markup lies between the preview's slot and the data's: its last occurrence is ours.
    before, _, after = head.rpartition(_PREVIEW_SLOT)
    data_end, _, tail = tail.partition(_LATE_SLOT)
    # The scripts go in after the split, in one pass: their text may hold anything, even a marker.
    return [data_end, _SCRIPT_SLOT.split(tail), before + preview + after]


def _script_slot(i: int) -> str:
    return f"\x00st-script-{i}\x00"


def assemble_page(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: Sequence[str] | FragmentPacker,
    images: Mapping[str, str],
    header_html: str,
    system_html: str,
    theme: str = "auto",
    *,
    leaf_id: str | None = None,
    compress: bool = True,
    options: PageOptions | None = None,
) -> str:
    """Return the complete page from hand-made parts (tests, benchmarks, tools).

    ``session_meta`` holds id, title, cwd, timestamp; ``entries_meta`` and ``frags`` are aligned;
    ``images`` maps the sha256 of raw bytes to a ``data:`` URL. ``options`` (if given) wins
    over ``theme`` and ``compress``.
    """
    opts = options or PageOptions(theme=check_theme(theme), compress=compress)
    if isinstance(frags, FragmentPacker):
        packer = frags
    else:
        packer = FragmentPacker(compress=compress)
        for html in frags:
            packer.add(html)
    rendered = RenderedSession(
        title=str(session_meta.get("title") or session_meta.get("id") or "Session"),
        stats=SessionStats(),
        session_meta=dict(session_meta),
        entries=[dict(m) for m in entries_meta],
        frags=packer,
        images=dict(images),
        header_html=header_html,
        system_html=system_html,
        leaf_id=leaf_id,
    )
    return "".join(iter_page(rendered, opts))


__all__ = [
    "THEMES",
    "FragmentPacker",
    "PageOptions",
    "RenderedSession",
    "assemble_page",
    "content_security_policy",
    "image_files",
    "iter_page",
    "iter_streamed_page",
    "json_for_script",
    "live_script",
    "pack_fragments",
    "unpack_fragments",
    "viewer_assets",
]
