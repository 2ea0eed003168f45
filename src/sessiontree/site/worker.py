"""Render one session of a site (in a pool worker): its page, its search records, its assets."""

from __future__ import annotations

import gzip
import json
import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.errors import SessiontreeError
from sessiontree.site.layout import ASSETS_DIR, page_path, subagent_page_path, write_atomic
from sessiontree.site.sources import file_sha256
from sessiontree.store.subagents import subagent_key

if TYPE_CHECKING:
    from sessiontree.exporter.fragment_cache import FragmentCache
    from sessiontree.exporter.options import RelatedPages
    from sessiontree.pages.nav import NavLinks
    from sessiontree.store.session import Session


@dataclass(frozen=True, slots=True)
class RenderJob:
    """What a worker needs to render one session (small and picklable)."""

    path: Path
    key: str
    site: Path
    page: str
    records: str
    theme: str
    shared_assets: bool = False
    cache_dir: Path | None = None
    """The fragment cache's folder (None: render everything afresh)."""
    nav: NavLinks | None = None
    """The site's pages (site-relative), linked at the top of each session page."""
    related: RelatedPages | None = None
    """The pages of the sessions it spawned or was spawned by, relative to its own."""


@dataclass(frozen=True, slots=True)
class RenderOutcome:
    """What a worker sends back: the session's title and assets, or why it was skipped."""

    key: str
    sha256: str = ""
    """Of the bytes the page was made from (hashed before loading, so a later append shows as a change)."""
    title: str = ""
    assets: list[str] = field(default_factory=list)
    subagents: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Claude Code subagent pages written beside the page (``PageRecord.subagents``)."""
    error: str | None = None


def _asset_prefix(page: str) -> str:
    # Pages sit in sessions/<folder>/...; assets/ is at the site's top.
    return "../" * page.count("/") + ASSETS_DIR + "/"


def _subagent_page(key: str, page: str, agent_id: str) -> str:
    """The link from a session's page to its subagent's page (both built from the listing)."""
    return posixpath.relpath(page_path(subagent_key(key, agent_id)), posixpath.dirname(page))


def render_job(job: RenderJob) -> RenderOutcome:
    """Load, render and write one session; a session that cannot be read is an outcome, not a crash."""
    # The renderer loads here, in the worker: a build with nothing to render never pays for it.
    from sessiontree.exporter.fragment_cache import FragmentCache
    from sessiontree.readers import load_for_export
    from sessiontree.site.records import session_records

    try:
        sha = file_sha256(job.path)
        session = load_for_export(job.path)
        records = session_records(session)
        embedded = session.subagents.embedded
        linked: dict[str, None] = {}

        def href(agent_id: str) -> str:
            if not embedded:  # Claude Code's: not listed, an extra page beside this one
                linked[agent_id] = None
                return posixpath.basename(subagent_page_path(job.page, agent_id))
            return _subagent_page(job.key, job.page, agent_id)

        # One session per pool worker already: no nested two-core render, no fork in a worker.
        cache = FragmentCache(job.cache_dir) if job.cache_dir is not None else None
        try:
            session_id = session.id
            title, assets = _write_page(job, session, job.page, cache, href)
            del session
            subagents = _write_subagent_pages(job, list(linked), session_id, cache)
        finally:
            if cache is not None:
                cache.close()
        for sub in subagents.values():
            assets.extend(a for a in sub.pop("assets") if a not in assets)
        payload = json.dumps(records, ensure_ascii=True).encode("ascii")
        write_atomic(job.site / job.records, gzip.compress(payload, 6, mtime=0))
        return RenderOutcome(job.key, sha256=sha, title=title, assets=assets, subagents=subagents)
    except SessiontreeError as exc:
        return RenderOutcome(job.key, error=str(exc))
    except (OSError, ValueError, RecursionError, MemoryError) as exc:
        return RenderOutcome(job.key, error=f"{type(exc).__name__}: {exc}")


def _write_page(
    job: RenderJob,
    session: Session,
    page_name: str,
    cache: FragmentCache | None,
    href: Callable[[str], str] | None = None,
) -> tuple[str, list[str]]:
    """Write one session's page (its images in assets/ when shared); return its title and assets."""
    from sessiontree.exporter.options import ExportOptions, PageOptions, RenderOptions
    from sessiontree.exporter.page import image_files
    from sessiontree.exporter.recipe import PageTarget, make_page
    from sessiontree.pages.nav import PANE_SCRIPTS, browse_scripts, nav_css, pane_css
    from sessiontree.site.browse import SESSIONS_DATA
    from sessiontree.store.surrogates import shown_name

    look = PageOptions(image_prefix=_asset_prefix(page_name) if job.shared_assets else None)
    if job.nav is not None:
        links = job.nav.relative_to(page_name)
        settings = {
            "search": links.search,
            "data": posixpath.relpath(SESSIONS_DATA, posixpath.dirname(page_name)),
            "current": shown_name(job.key),
        }
        look = replace(
            look,
            nav_html=links.html(),
            extra_css=nav_css() + pane_css(),
            early_scripts=browse_scripts(settings, *PANE_SCRIPTS),
            connect_src=("'self'",),  # the pane's list, from the site itself
        )
    render = RenderOptions(subagent_href=href, related=job.related, cache=cache, parallel=False)
    target = PageTarget(page=look, render=render)
    page = make_page(session, ExportOptions(theme=job.theme), target)
    assets: list[str] = []
    if job.shared_assets:
        for image in image_files(page.render()):
            name = f"{image.sha256}.{image.ext}"
            target_file = job.site / ASSETS_DIR / name
            if not target_file.exists():  # content-addressed: an existing file already holds these bytes
                write_atomic(target_file, image.data)
            assets.append(name)
    write_atomic(job.site / page_name, page.chunks)
    return page.title, assets


def _write_subagent_pages(
    job: RenderJob, agent_ids: list[str], session_id: str | None, cache: FragmentCache | None
) -> dict[str, dict[str, Any]]:
    """Write the page of each Claude Code subagent the session's page links to, beside it."""
    from sessiontree.exporter.options import RelatedPages
    from sessiontree.readers import load_for_export
    from sessiontree.readers.claude_layout import subagent_file

    written: dict[str, dict[str, Any]] = {}
    for agent_id in agent_ids:
        path = subagent_file(job.path, agent_id, session_id)
        if path is None:
            continue
        stat = path.stat()  # before loading: a later append shows as a change
        page = subagent_page_path(job.page, agent_id)
        # Its page links back to the session's, beside it (as the session's links to it).
        back = RelatedPages(parent=posixpath.basename(job.page), parent_id=job.path.stem)
        _, assets = _write_page(replace(job, related=back), load_for_export(path), page, cache)
        written[agent_id] = {"page": page, "size": stat.st_size, "mtime": stat.st_mtime, "assets": assets}
    return written


def init_worker() -> None:
    """Pool worker start-up: the render of a big session stays on this worker's core; what a render
    imports is imported now (a worker started ahead of its first job, ``pool.prestart``, does it
    while the build lists the sessions: ~0.3 s of a one-session build)."""
    os.environ.setdefault("SESSIONTREE_RENDER_WORKERS", "1")
    import sessiontree.exporter.fragment_cache
    import sessiontree.exporter.page
    import sessiontree.exporter.recipe
    import sessiontree.readers
    import sessiontree.site.records  # noqa: F401
