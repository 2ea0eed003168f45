"""Build a static site from a sessions folder: render what changed, in parallel, then index it."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path

from sessiontree import __version__
from sessiontree.archive.catalog import CatalogEntry
from sessiontree.archive.collection import Filters, Sources, default_cache_dir, is_inside, select
from sessiontree.errors import BuildError, SearchError, SearchIndexError
from sessiontree.exporter.options import check_theme
from sessiontree.site import layout
from sessiontree.site.layout import USAGE_PAGE
from sessiontree.site.manifest import Failure, Manifest, PageRecord, load_manifest, save_manifest
from sessiontree.site.pagefind_index import (
    BUNDLE_PREFIX,
    IndexedPage,
    remove_old_bundles,
    write_search_bundle,
)
from sessiontree.site.sources import file_sha256
from sessiontree.site.worker import RenderJob, RenderOutcome, init_worker, render_job

Progress = Callable[[int, int, str], None]
"""Called after each rendered session with (done, total, key)."""


@dataclass(frozen=True)
class BuildOptions:
    """What ``sessiontree build`` was asked for."""

    root: Path
    site: Path
    more_roots: tuple[Path, ...] = ()
    """Further sessions folders (other agents' too); several roots prefix page keys with their agent."""
    jobs: int = 0
    """Worker processes; 0 means one per CPU core."""
    force: bool = False
    filters: Filters = field(default_factory=Filters)
    shared_assets: bool = False
    search: bool = True
    theme: str = "auto"
    title: str = "Sessions"
    usage: bool = True
    """Write usage.html (cost and tokens per day, top sessions) from the archive index."""
    cache_dir: Path | None = None
    """Where rendered fragments are cached (the renderer's fragment cache); None: the user cache dir."""


@dataclass
class BuildResult:
    """What a build did, for the summary line and the exit code."""

    rendered: list[str] = field(default_factory=list)
    kept: int = 0
    removed: list[str] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)
    search_records: int | None = None
    index_written: bool = False
    usage_written: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures


def _settings(options: BuildOptions) -> dict[str, object]:
    # What changes every page: a different value re-renders the whole site.
    return {"theme": options.theme, "sharedAssets": options.shared_assets}


def _check_paths(root: Path, site: Path) -> None:
    if not root.is_dir():
        raise BuildError(f"Not a folder: {root}; pass the sessions folder to build")
    if is_inside(site, root):
        raise BuildError(f"The site {site} is inside the sessions folder {root}; choose an output outside it")
    if is_inside(root, site):
        raise BuildError(f"The sessions folder {root} is inside the site {site}; choose another output")
    if site.exists() and not site.is_dir():
        raise BuildError(f"Not a folder: {site}; choose a folder for the site")


def _workers(jobs: int, todo: int) -> int:
    return max(1, min(jobs or os.cpu_count() or 1, todo))


def run_jobs(
    jobs: list[RenderJob],
    workers: int,
    progress: Progress | None,
    render: Callable[[RenderJob], RenderOutcome] = render_job,
) -> Iterable[RenderOutcome]:
    """Render jobs in a pool of ``workers`` processes (here when 1), yielding outcomes as they end."""
    if workers == 1:
        init_worker()
        for i, job in enumerate(jobs, 1):
            outcome = render(job)
            if progress:
                progress(i, len(jobs), job.key)
            yield outcome
        return
    context = multiprocessing.get_context("forkserver" if os.name == "posix" else "spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=init_worker)
    done_count = 0
    unfinished: list[RenderJob] = []
    try:
        futures = {pool.submit(render, job): job for job in jobs}
        pending: set[Future[RenderOutcome]] = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    unfinished.append(futures[future])
                    continue
                done_count += 1
                if progress:
                    progress(done_count, len(jobs), outcome.key)
                yield outcome
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    # A worker died (killed for memory, a crash in a library): the pool is gone with every job
    # it held. Each of those runs again alone, so only the session that kills its worker fails.
    for job in unfinished:
        with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=init_worker) as alone:
            try:
                outcome = alone.submit(render, job).result()
            except BrokenProcessPool:
                outcome = RenderOutcome(job.key, error="the worker rendering it died (out of memory?)")
        done_count += 1
        if progress:
            progress(done_count, len(jobs), outcome.key)
        yield outcome


def _bundle_id(pages: dict[str, PageRecord]) -> str:
    digest = hashlib.sha256(__version__.encode())
    for key, rec in sorted(pages.items()):
        digest.update(f"{key}\0{rec.sha256}\0{rec.title}\n".encode("utf-8", "replace"))
    return digest.hexdigest()[:12]


def _plan(
    entries: list[CatalogEntry], manifest: Manifest, options: BuildOptions, full: bool, sources: Sources
) -> tuple[list[RenderJob], Manifest]:
    """Split the selected sessions into pages to render and pages to keep; carry remembered failures."""
    site = options.site
    new = Manifest(version=__version__, settings=_settings(options), search_bundle=manifest.search_bundle)
    jobs: list[RenderJob] = []
    for entry in entries:
        if entry.error:
            continue
        key = entry.key
        old = None if full else manifest.pages.get(key)
        if old is not None and _still_made(site, old, sources.path_of(key)):
            if old.size == entry.size and old.mtime == entry.mtime:
                new.pages[key] = old
                continue
            if old.size == entry.size and file_sha256(sources.path_of(key)) == old.sha256:
                new.pages[key] = replace(old, mtime=entry.mtime)  # touched, not changed
                continue
        failed = None if full else manifest.failures.get(key)
        if failed is not None and failed.size == entry.size and failed.mtime == entry.mtime:
            new.failures[key] = failed
            continue
        jobs.append(
            RenderJob(
                path=sources.path_of(key),
                key=key,
                site=site,
                page=layout.page_path(key),
                records=layout.records_path(key),
                theme=options.theme,
                shared_assets=options.shared_assets,
                cache_dir=options.cache_dir or default_cache_dir(),
            )
        )
    return jobs, new


def _still_made(site: Path, rec: PageRecord, path: Path) -> bool:
    """Tell whether a page's files are all there and its subagents' transcripts unchanged."""
    from sessiontree.readers.claude import subagent_file

    if not ((site / rec.page).is_file() and (site / rec.records).is_file()):
        return False
    for agent_id, sub in rec.subagents.items():
        found = subagent_file(path, agent_id)
        try:
            stat = found.stat() if found is not None else None
        except OSError:
            stat = None
        if stat is None or (stat.st_size, stat.st_mtime) != (sub.get("size"), sub.get("mtime")):
            return False
        if not (site / str(sub["page"])).is_file():
            return False
    return True


def _subpages(rec: PageRecord) -> set[str]:
    return {str(sub["page"]) for sub in rec.subagents.values()}


def _remove_page(site: Path, rec: PageRecord, keep: Iterable[str] = ()) -> None:
    """Remove a page's files (its subagent pages too), except those in ``keep``."""
    for rel in {rec.page, rec.records, *_subpages(rec)} - set(keep):
        (site / rel).unlink(missing_ok=True)


def _remove_unused_assets(site: Path, pages: Iterable[PageRecord]) -> None:
    used = {name for rec in pages for name in rec.assets}
    folder = site / layout.ASSETS_DIR
    if folder.is_dir():
        for path in folder.iterdir():
            if path.is_file() and path.name not in used:
                path.unlink(missing_ok=True)


def build_site(options: BuildOptions, progress: Progress | None = None) -> BuildResult:
    """Build or update the site at ``options.site`` from the sessions folder ``options.root``.

    Reads the sessions folder only. Every file of the site is written atomically and the
    manifest last, so an interrupted build leaves a readable site and the next one finishes.
    """
    check_theme(options.theme)
    for root in (options.root, *options.more_roots):
        _check_paths(root, options.site)
    site = options.site
    site.mkdir(parents=True, exist_ok=True)
    layout.remove_stale_temps(site, recursive=True)
    manifest = load_manifest(site)
    full = options.force or manifest.version != __version__ or manifest.settings != _settings(options)
    catalog = Sources((options.root, *options.more_roots), site / layout.STATE_DIR / "catalog")
    entries = select(catalog.scan(), options.filters)
    jobs, new = _plan(entries, manifest, options, full, catalog)
    by_key = {job.key: job for job in jobs}
    result = BuildResult(kept=len(new.pages))

    for outcome in run_jobs(jobs, _workers(options.jobs, len(jobs)), progress):
        job = by_key[outcome.key]
        entry = catalog.get(job.key)
        size, mtime = (entry.size, entry.mtime) if entry else (0, 0.0)
        if outcome.error is not None:
            new.failures[job.key] = Failure(size=size, mtime=mtime, reason=outcome.error)
            old = manifest.pages.get(job.key)
            if old is not None:  # the session broke: its old page goes
                _remove_page(site, old)
            continue
        new.pages[job.key] = PageRecord(
            size=size,
            mtime=mtime,
            sha256=outcome.sha256,
            page=job.page,
            records=job.records,
            title=outcome.title,
            assets=outcome.assets,
            subagents=outcome.subagents,
        )
        old = manifest.pages.get(job.key)
        if old is not None:  # subagent pages this render no longer wrote
            _remove_page(site, old, keep={job.page, job.records, *_subpages(new.pages[job.key])})
        result.rendered.append(job.key)

    for key, rec in manifest.pages.items():
        if key not in new.pages and key not in new.failures:
            _remove_page(site, rec)
            result.removed.append(key)

    for entry in entries:
        if entry.error:
            result.failures[entry.key] = entry.error
    result.failures.update({key: f.reason for key, f in new.failures.items()})

    changed = bool(
        full or result.rendered or result.removed or new.failures.keys() != manifest.failures.keys()
    )
    bundle: str | None = None
    if options.search:
        bundle_id = _bundle_id(new.pages)
        bundle = BUNDLE_PREFIX + bundle_id
        if manifest.search_bundle != bundle or not (site / bundle).is_dir():
            pages = [IndexedPage(rec.page, rec.records, rec.title) for rec in new.pages.values()]
            try:
                result.search_records = write_search_bundle(site, pages, bundle_id)
            except SearchIndexError as exc:
                result.failures["(search index)"] = str(exc)
                bundle = None
            changed = True
    elif manifest.search_bundle is not None:
        changed = True  # the index page loses its search box
    new.search_bundle = bundle

    index = site / "index.html"
    if changed or not index.is_file():
        shown = [_shown(e, new) for e in entries]
        write_index(site, shown, new, options, bundle)
        result.index_written = True
    if options.usage and (changed or not (site / USAGE_PAGE).is_file()):
        from sessiontree.site.usage import write_usage_page

        try:
            result.usage_written = write_usage_page(site, catalog, new.pages, theme=options.theme)
        except SearchError as exc:
            result.failures["(usage page)"] = str(exc)
    if changed or new.to_json() != manifest.to_json():
        save_manifest(site, new)
    remove_old_bundles(site, bundle)
    if options.shared_assets or full:
        _remove_unused_assets(site, new.pages.values())
    return result


def _shown(entry: CatalogEntry, manifest: Manifest) -> CatalogEntry:
    failed = manifest.failures.get(entry.key)
    if failed is not None and entry.error is None:
        return replace(entry, error=failed.reason)
    rec = manifest.pages.get(entry.key)
    if rec is not None and rec.title and not entry.title:
        return replace(entry, title=rec.title)
    return entry


def write_index(
    site: Path, entries: list[CatalogEntry], manifest: Manifest, options: BuildOptions, bundle: str | None
) -> None:
    """Write ``index.html``: the shared index page, plus full-text search when a bundle exists."""
    from sessiontree.pages.index_page import IndexOptions, render_index
    from sessiontree.site.search_script import search_script

    pages = manifest.pages

    def link_for(entry: CatalogEntry) -> str | None:
        rec = pages.get(entry.key)
        return rec.page if rec is not None else None

    extra: tuple[str, ...] = ()
    csp: dict[str, tuple[str, ...]] = {}
    connect: tuple[str, ...] = ()
    if bundle is not None:
        extra = (search_script(bundle),)
        # Only the index page runs Pagefind: its module from the site, its WebAssembly, its fetches.
        csp = {"script-src": ("'self'", "'wasm-unsafe-eval'")}
        connect = ("'self'",)
    html = render_index(
        entries,
        link_for,
        IndexOptions(
            links=(("Usage: tokens and cost", USAGE_PAGE),) if options.usage else (),
            title=options.title,
            theme=options.theme,
            extra_scripts=extra,
            connect_src=connect,
            csp_sources=csp,
        ),
    )
    layout.write_atomic(site / "index.html", html.encode("utf-8", "replace"))
