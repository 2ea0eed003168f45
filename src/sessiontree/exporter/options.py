"""The options of the renderer seam (export, serve and build differ only in these) and its result."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.errors import ExportError
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.exporter.fragments import FragmentPacker
from sessiontree.exporter.stats import SessionStats

THEMES = ("auto", "light", "dark")

# A CSP source is one token: a keyword ('self', 'wasm-unsafe-eval'), a scheme (data:), a host or
# URL. Anything with a space, quote-less punctuation that ends a directive, or a control
# character could smuggle in another directive.
_SOURCE = re.compile(r"(?:'[a-z0-9+/=-]+'|[A-Za-z0-9*][A-Za-z0-9+.*:/_%\-\[\]]*)")
_DIRECTIVE = re.compile(r"[a-z]+(?:-[a-z]+)*")
# What an image prefix may be: a path, absolute ("/blobs/") or relative ("assets/"), no scheme.
_PREFIX = re.compile(r"(?:/|\.{0,2}/)?(?:[A-Za-z0-9._~-]+/)*")


def check_theme(theme: str) -> str:
    """Return ``theme`` if the page knows it, else raise ExportError naming the choices."""
    if theme not in THEMES:
        raise ExportError(f"Unknown theme {theme!r}; use one of: {', '.join(THEMES)}")
    return theme


def check_csp_sources(sources_by_directive: Mapping[str, tuple[str, ...]]) -> None:
    """Raise ExportError unless each directive and source is one well-formed CSP token."""
    for directive, sources in sources_by_directive.items():
        if not _DIRECTIVE.fullmatch(directive):
            raise ExportError(f"Bad CSP directive {directive!r}")
        if isinstance(sources, str):
            raise ExportError(f"CSP sources for {directive} must be a tuple of strings, not one string")
        for source in sources:
            if not _SOURCE.fullmatch(source):
                raise ExportError(f"Bad CSP source {source!r} for {directive}")


@dataclass(frozen=True)
class ExportOptions:
    """What the user chose for a session's page, the same wherever it goes (``make_page``).

    ``theme``: ``auto``, ``light`` or ``dark``; ``leaf_id`` picks the active leaf (default: the
    session's last entry); ``system_prompt`` and ``tools`` (names or schemas) replace what the
    ``session_init`` entry holds; ``compress`` packs the fragments (gzip + base64). For a file
    (``export_to_file``): ``blobs_dir`` is where its images' blobs are, ``agent`` forces the
    reader (claude, codex, pi; by default the content decides).
    """

    theme: str = "auto"
    leaf_id: str | None = None
    system_prompt: str | None = None
    tools: Sequence[Any] | None = None
    compress: bool = True
    blobs_dir: Path | None = None
    agent: str | None = None

    def __post_init__(self) -> None:
        check_theme(self.theme)

    def cache_key(self) -> list[Any]:
        """What of these options a whole page's cache key holds."""
        blobs = None if self.blobs_dir is None else str(self.blobs_dir)
        return [self.theme, self.leaf_id, self.system_prompt, self.tools, blobs, self.agent, self.compress]


@dataclass(frozen=True)
class RelatedPages:
    """The pages of the sessions a session is linked with (serve, build: where each has one).

    ``parent``: the page of the session that spawned it (a Codex subagent thread's parent, an
    OpenCode or Crush sub-session's); ``children``: (session id, label, page) of each it spawned.
    """

    parent: str | None = None
    children: tuple[tuple[str, str, str], ...] = ()
    parent_id: str = ""
    """The parent's id shown where the session's header names none (a Claude Code subagent's
    transcript: its page links back to the session that ran it)."""

    def child_page(self, session_id: str) -> str | None:
        """The page of the spawned session of this id (a task result links to it), or None."""
        return next((page for sid, _, page in self.children if sid == session_id), None)


@dataclass(frozen=True)
class RenderOptions:
    """How a session is rendered to fragments (the same for every page made from the result).

    ``leaf_id`` picks the active leaf (default: the session's last entry); ``system_prompt`` and
    ``tools`` (names or schemas) replace what the ``session_init`` entry holds. ``compress``
    says how fragments are held while rendering: gzip on the fly (small memory; what a page
    usually wants) or a plain list; a page of the other form converts. ``parallel`` lets a big
    session render on two cores (a forked worker): turn it off in a server or any process that
    runs other threads. ``subagent_href`` gives the URL of a subagent's own page (serve, build)
    by agent id: its task result then links there; an export has none and keeps the subagent
    inline only. ``cache`` (a ``FragmentCache``) gives fragments rendered before for the
    same inputs and keeps the new ones. ``cancelled`` is asked before each entry: True stops
    the render with ``concurrent.futures.CancelledError`` (a server's client left). ``related``
    links the header to the pages of the sessions this one spawned or was spawned by.
    """

    leaf_id: str | None = None
    system_prompt: str | None = None
    tools: Sequence[Any] | None = None
    compress: bool = True
    parallel: bool = True
    subagent_href: Callable[[str], str | None] | None = None
    cache: FragmentCache | None = None
    cancelled: Callable[[], bool] | None = None
    related: RelatedPages | None = None


@dataclass(frozen=True)
class PageOptions:
    """How a rendered session becomes one page (what export, serve and build set differently).

    - ``theme``: ``auto``, ``light`` or ``dark``.
    - ``compress``: ``frags`` as ``gz:<base64>`` (default) or a plain JSON array.
    - ``extra_scripts``: JavaScript sources, each appended after the viewer as its own inline
      ``<script>`` (for example ``live_script()`` for a live page); the CSP lists the hash of
      every inline script, so nothing else runs.
    - ``connect_src``: sources a script may fetch or open an EventSource to (``'self'``, a URL).
    - ``csp_sources``: more sources for any directive, e.g. ``{"script-src": ("'wasm-unsafe-eval'",)}``.
    - ``image_prefix``: ``None`` embeds each image as a ``data:`` URL; a path prefix (``/blobs/``
      for a server, ``assets/`` for a static site) makes each image the URL
      ``prefix + sha256 + "." + ext``, where sha256 is the hex digest of the image's bytes and ext
      follows its mime type (``png``, ``jpg``, ``gif``, ``webp``); the files themselves come from
      ``image_files(rendered)``. The CSP then allows images from ``'self'``.
    - ``extra_css``: CSS appended to the page's one ``<style>`` (hashed with it), for what the
      extra scripts or ``nav_html`` draw.
    - ``early_scripts``: like ``extra_scripts``, but placed before the page's data, so a
      streamed page runs them with its first chunk (before the entries are rendered) and before
      the viewer boots (which redraws the sidebar: an early script re-inserts what it put there).
    - ``nav_html``: trusted markup (our templates') shown above the header, e.g. the links of a
      collection's pages when serve or a site makes the page; an exported file has none.
    """

    theme: str = "auto"
    compress: bool = True
    extra_scripts: tuple[str, ...] = ()
    connect_src: tuple[str, ...] = ()
    csp_sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    image_prefix: str | None = None
    extra_css: str = ""
    nav_html: str = ""
    early_scripts: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_theme(self.theme)
        check_csp_sources({"connect-src": self.connect_src, **self.csp_sources})
        for script in (*self.extra_scripts, *self.early_scripts):
            if "</script" in script.lower():
                raise ExportError("An extra script must not contain '</script'")
        if "</style" in self.extra_css.lower():
            raise ExportError("Extra CSS must not contain '</style'")
        if self.image_prefix is not None and not _PREFIX.fullmatch(self.image_prefix):
            raise ExportError(
                f"Bad image prefix {self.image_prefix!r}; use a path such as '/blobs/' or 'assets/'"
            )


@dataclass(frozen=True)
class PageShell:
    """What a page shows around its entries (trusted HTML from our templates) and its active leaf."""

    title: str
    stats: SessionStats
    header_html: str
    system_html: str
    leaf_id: str | None


@dataclass
class RenderedSession:
    """A session rendered once: what any number of pages (or a site builder's own) are made from.

    ``entries`` and ``frags`` are aligned (one meta dict and one ``<article>`` fragment per entry,
    file order); ``images`` maps the sha256 of an image's bytes to its ``data:`` URL;
    ``header_html`` and ``system_html`` are trusted HTML from our templates.
    """

    title: str
    stats: SessionStats
    session_meta: dict[str, Any]
    entries: list[dict[str, Any]]
    frags: FragmentPacker
    images: dict[str, str]
    header_html: str
    system_html: str
    leaf_id: str | None
