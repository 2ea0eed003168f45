"""One page for one session: export, share, serve and build make it the same way, from memory.

``make_page(session, options, target)`` takes the loaded session, what the user chose
(``ExportOptions``) and where the page goes (``PageTarget``: links for subagents and images,
extra scripts, cache, how the CSP is delivered), and returns the page's chunks and its CSP.
The callers keep only what is theirs (serve's live scripts and first screen, a site's assets,
an export's file and whole-page cache).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sessiontree.exporter.api import render_session, render_shell
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.exporter.options import (
    ExportOptions,
    PageOptions,
    PageShell,
    RenderedSession,
    RenderOptions,
)
from sessiontree.exporter.page import iter_streamed_page, page_csp
from sessiontree.store import Session


@dataclass(frozen=True)
class PageTarget:
    """What differs between the places a session's page goes (export, share, serve, site).

    - ``page``: how the page is made for this place (``PageOptions``; its ``theme`` and
      ``compress`` come from the user's ``ExportOptions``): ``image_prefix`` None embeds images
      as ``data:`` URLs, a path prefix makes each a URL (``/blobs/`` served, ``assets/`` of a
      site); a served page's live scripts (``extra_scripts``) and where they connect
      (``connect_src``); the sessions pane's ``early_scripts``, run with a streamed page's first
      chunk; the collection's links above the header (``nav_html``) and their CSS.
    - ``render``: how the entries are rendered for this place (``RenderOptions``; the leaf, the
      system prompt, the tools and ``compress`` come from the user's ``ExportOptions``):
      ``subagent_href`` (agent id -> URL of that subagent's own page, serve and build; None keeps
      subagents inline only), ``related`` (the pages of the sessions it spawned or was spawned
      by), ``cache`` (fragments rendered before, and the new ones kept: the caller's, open),
      ``parallel`` (the render may fork a second process: never in a server or a pool worker).
    - ``open_cache``: opens a fragment cache for the render and closes it after (a server renders
      in threads, each with its own connection), instead of ``render.cache``.
    - ``shell``, ``preview``: what a server has of the page already (its header) and streams
      first (the path's first screen).
    - ``on_rendered``: sees the rendered session before its data goes out (serve keeps its images).
    - ``share``: a server's shared renders (``serve.renders``): given ``make(cancelled)``, the
      rendered session, made here or by the client already making it; ``cancelled`` stops a
      render every client of which left.
    - ``load``: a session read only once the first chunk is out (a server's first visit; the
      page is made with no session): the first chunk is ``shell`` and ``preview`` (a quick
      scan's), then ``load()`` gives the whole session and the target it is rendered for (its
      shell's header, with the statistics, follows the data and takes the first one's place).
    - ``after_data``: trusted HTML put after the page's data, made once it is rendered.
    """

    page: PageOptions = field(default_factory=PageOptions)
    render: RenderOptions = field(default_factory=RenderOptions)
    open_cache: Callable[[], FragmentCache] | None = None
    shell: PageShell | None = None
    preview: str = ""
    on_rendered: Callable[[RenderedSession], None] | None = None
    share: Callable[[Callable[[Callable[[], bool] | None], RenderedSession]], RenderedSession] | None = None
    load: Callable[[], tuple[Session, PageTarget]] | None = None
    after_data: Callable[[], str] | None = None


class Page:
    """A session's page: its CSP (the meta tag's, for a header too), title, and chunks (iterate once)."""

    def __init__(self, session: Session | None, options: ExportOptions, target: PageTarget) -> None:
        self._session = session
        self._target = target
        self._rendered: RenderedSession | None = None
        self.page_options = dataclasses.replace(target.page, theme=options.theme, compress=options.compress)
        self.render_options = dataclasses.replace(
            target.render,
            leaf_id=options.leaf_id,
            system_prompt=options.system_prompt,
            tools=options.tools,
            compress=options.compress,
        )
        if session is None:
            if target.shell is None or target.load is None:
                raise ValueError("a page made before its session is loaded needs a shell and a load")
            self.shell = target.shell
        else:
            # Options and the leaf are checked before anything is rendered (a bad --leaf fails at once).
            self.shell = target.shell or render_shell(session, self.render_options)
        self.csp = page_csp(self.page_options)
        self.title = self.shell.title

    def render(self) -> RenderedSession:
        """The session's entries rendered (once): what the page's data and a site's assets come from."""
        if self._rendered is None:
            session, self._session = self._session, None  # the entries are freed once rendered
            target, shell = self._target, self.shell
            if session is None:
                assert target.load is not None
                session, target = self._target.load()  # type: ignore[misc]
                shell = target.shell or render_shell(session, self.render_options)
                self._target = target
            self._rendered = self._render(session, target, shell)
        return self._rendered

    def _render(self, session: Session, target: PageTarget, shell: PageShell) -> RenderedSession:

        def make(cancelled: Callable[[], bool] | None) -> RenderedSession:
            options = dataclasses.replace(self.render_options, cancelled=cancelled)
            cache = target.open_cache() if target.open_cache is not None else None
            try:
                if cache is not None:
                    options = dataclasses.replace(options, cache=cache)
                rendered = render_session(session, options, shell=shell)
            finally:
                if cache is not None:
                    cache.close()
            if target.share is not None:
                rendered.frags.finish()  # read by every client sharing it
            if target.on_rendered is not None:
                target.on_rendered(rendered)
            return rendered

        return make(None) if target.share is None else target.share(make)

    def _after_data(self) -> str:
        after = self._target.after_data
        return after() if after is not None else ""

    @property
    def chunks(self) -> Iterator[str]:
        """The page in chunks: the head and header (and preview) before the entries are rendered."""
        return iter_streamed_page(
            self.shell,
            self.render,
            self.page_options,
            preview=self._target.preview,
            after_data=self._after_data,
        )


def make_page(
    session: Session | None, options: ExportOptions | None = None, target: PageTarget | None = None
) -> Page:
    """Make the page of a session for a target (export when none is given; no session: ``target.load``)."""
    return Page(session, options or ExportOptions(), target or PageTarget())


def render_session_html(
    session: Session,
    *,
    theme: str = "auto",
    leaf_id: str | None = None,
    system_prompt: str | None = None,
    tools: Sequence[Any] | None = None,
    compress: bool = True,
) -> str:
    """Return the self-contained HTML page of a loaded session (an export's page, as a string).

    ``system_prompt`` and ``tools`` (tool names or schemas) replace what the session's
    ``session_init`` entry holds; ``leaf_id`` picks the active leaf (default: the last entry).
    """
    options = ExportOptions(
        theme=theme, leaf_id=leaf_id, system_prompt=system_prompt, tools=tools, compress=compress
    )
    return "".join(make_page(session, options).chunks)


__all__ = ["Page", "PageTarget", "make_page", "render_session_html"]
