"""Build a static site from a sessions folder: render what changed, in parallel, then index it.

A build is all or nothing per step: pages first, then search bundles (each whole, through the
atomic writer) beside the pane's list and usage page (they link pages only), then the router and
index page that name the bundles, then the manifest, and only then are old files deleted. A build
killed at any moment leaves a site whose every link works; the next build finishes the work.
"""

from __future__ import annotations

import errno
import gc
import os
import posixpath
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from stat import S_ISREG

from sessiontree import __version__
from sessiontree.archive.collection import Filters, Sources, default_cache_dir, is_inside, select
from sessiontree.archive.usage import UsageRecord
from sessiontree.errors import BuildError, SearchError
from sessiontree.exporter.options import check_theme
from sessiontree.pages.nav import NavLinks
from sessiontree.pages.related import related_by_key, related_signature
from sessiontree.site import layout
from sessiontree.site.browse import (
    SEARCH_PAGE,
    SESSIONS_DATA,
    remove_index_chunks,
    site_nav,
    write_search_page,
    write_sessions_data,
)
from sessiontree.site.index_write import write_index
from sessiontree.site.layout import USAGE_PAGE
from sessiontree.site.lock import site_lock
from sessiontree.site.manifest import (
    Failure,
    Manifest,
    PageRecord,
    load_manifest,
    page_files,
    remove_files,
    remove_unused_assets,
    save_manifest,
)
from sessiontree.site.pagefind_index import (
    IndexedPage,
    bundles_present,
    remove_old_bundles,
    remove_staging,
    router_order,
    update_bundles,
)
from sessiontree.site.pool import DIED, Spare, run_jobs
from sessiontree.site.progress import BuildProgress, Silent
from sessiontree.site.records import FORMAT as RECORDS_FORMAT
from sessiontree.site.search_router import remove_old_lists, router_written, write_router
from sessiontree.site.sources import file_sha256
from sessiontree.site.worker import RenderJob
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.storage import read_reason


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
    warnings: list[str] = field(default_factory=list)
    index_written: bool = False
    usage_written: bool = False

    @property
    def ok(self) -> bool:
        return not self.failures


def _settings(options: BuildOptions) -> dict[str, object]:
    # What changes every page: a different value re-renders the whole site.
    return {
        "theme": options.theme,
        "sharedAssets": options.shared_assets,
        "nav": [options.usage, options.search],
        "records": RECORDS_FORMAT,
    }


def _nav(options: BuildOptions) -> NavLinks:
    return site_nav(usage=options.usage, search=options.search)


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


def _page_link(here: str, there: str) -> str:
    """The link from one session's page to another's."""
    return posixpath.relpath(layout.page_path(there), posixpath.dirname(layout.page_path(here)))


def _plan(
    entries: list[SessionInfo],
    manifest: Manifest,
    options: BuildOptions,
    full: bool,
    sources: Sources,
    sizes: dict[str, int],
) -> tuple[list[RenderJob], Manifest]:
    """Split the selected sessions into pages to render and pages to keep; carry remembered failures.
    ``sizes`` gets each kept page's records file's size (the search batches' weights)."""
    site = options.site
    new = Manifest(version=__version__, settings=_settings(options), bundles=dict(manifest.bundles))
    new.loaded = manifest.loaded  # kept records written as read
    jobs: list[RenderJob] = []
    related = related_by_key(entries, _page_link)
    for entry in entries:
        if entry.error:
            continue
        key = entry.key
        old = None if full else manifest.pages.get(key)
        links = related_signature(related.get(key))
        if old is not None and old.related == links and _still_made(site, old, sources, key, sizes):
            if old.size == entry.size and old.mtime == entry.modified:
                new.pages[key] = old
                continue
            if old.size == entry.size and file_sha256(sources.path_of(key)) == old.sha256:
                new.pages[key] = replace(old, mtime=entry.modified)  # touched, not changed
                continue
        failed = None if full else manifest.failures.get(key)
        if failed is not None and failed.size == entry.size and failed.mtime == entry.modified:
            new.failures[key] = failed
            continue
        sizes.pop(layout.records_path(key), None)  # written again: the search stats it then
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
                nav=_nav(options),
                related=related.get(key),
            )
        )
    return jobs, new


def _still_made(site: Path, rec: PageRecord, sources: Sources, key: str, sizes: dict[str, int]) -> bool:
    """Tell whether a page's files are all there and its subagents' transcripts unchanged (the
    records file's size into ``sizes``)."""
    from sessiontree.readers.claude_layout import subagent_file

    # os.path, not pathlib: two of these a session on every build (0.3 s at 10,000 through pathlib).
    if not os.path.isfile(os.path.join(site, rec.page)):
        return False
    try:
        records = os.stat(os.path.join(site, rec.records))
    except OSError:
        return False
    if not S_ISREG(records.st_mode):
        return False
    sizes[rec.records] = records.st_size  # the search's batches weigh it: no second stat
    if not rec.subagents:
        return True
    path = sources.path_of(key)
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


def build_site(options: BuildOptions, progress: BuildProgress | None = None) -> BuildResult:
    """Build or update the site at ``options.site`` from the sessions folder ``options.root``.

    Reads the sessions folder only. One build of a site at a time: a second one waits for the
    first (and says so through ``progress.note``).
    """
    check_theme(options.theme)
    for root in (options.root, *options.more_roots):
        _check_paths(root, options.site)
    report = progress or Silent()
    try:
        options.site.mkdir(parents=True, exist_ok=True)
        if not os.access(options.site, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, "permission denied", str(options.site))
    except OSError as exc:
        raise BuildError(f"Cannot write the site folder {options.site}: {read_reason(exc)}") from None
    with site_lock(options.site, report.note) as held:
        collecting = gc.isenabled()
        gc.disable()  # see _build
        spare = Spare()  # a render worker starting up while the sessions are listed
        try:
            result = _build(options, report, held.unfinished, collecting, spare)
        finally:
            spare.close()
            gc.unfreeze()  # what the listing held is collectable again
            if collecting:
                gc.enable()
        held.whole = DIED not in result.failures.values()
        return result


def _build(
    options: BuildOptions, report: BuildProgress, unfinished: bool, collecting: bool, spare: Spare
) -> BuildResult:
    site = options.site
    layout.remove_stale_temps(site, recursive=unfinished)  # a killed build's temps: see site.lock
    remove_staging(site)
    manifest = load_manifest(site)
    remove_files(site, manifest.stale)  # what a build stopped before its last step left to delete
    full = options.force or manifest.version != __version__ or manifest.settings != _settings(options)
    roots = (options.root, *options.more_roots)
    report.begin("Listing sessions")
    try:
        catalog = Sources(roots, site / layout.STATE_DIR / "catalog")
        entries = select(catalog.scan(), options.filters)
    finally:
        report.end()
    sizes: dict[str, int] = {}
    jobs, new = _plan(entries, manifest, options, full, catalog, sizes)
    if jobs or full or new.pages.keys() != manifest.pages.keys():  # the lists' usage rows: frozen too
        for one in catalog.catalogs:  # made after the freeze, each collection walked them (+0.3 s CPU)
            one.parse_passes()
    # The listing and the manifest (millions of objects at 10,000 sessions, loaded with the cyclic
    # collector off: each of its full collections walked them all, 0.55 s of an incremental
    # build's CPU at 10,000 sessions) live until the build ends: frozen, out of its sight, it is on
    # again for what the later steps make.
    gc.freeze()
    if collecting:
        gc.enable()
    usage = _Usage(catalog)
    side = ThreadPoolExecutor(max_workers=1, thread_name_prefix="site-side")
    try:
        return _made(options, report, manifest, new, entries, catalog, jobs, full, sizes, usage, side, spare)
    finally:
        side.shutdown(cancel_futures=True)


def _made(
    options: BuildOptions,
    report: BuildProgress,
    manifest: Manifest,
    new: Manifest,
    entries: list[SessionInfo],
    catalog: Sources,
    jobs: list[RenderJob],
    full: bool,
    sizes: dict[str, int],
    usage: _Usage,
    side: ThreadPoolExecutor,
    spare: Spare,
) -> BuildResult:
    """A build's steps after its plan; ``side`` runs what waits on nothing beside them."""
    site = options.site
    by_key = {job.key: job for job in jobs}
    result = BuildResult(kept=len(new.pages))
    if not entries:
        where = ", ".join(str(r) for r in (options.root, *options.more_roots))
        result.warnings.append(
            f"No sessions found in {where}" + (" (after filters)" if options.filters != Filters() else "")
        )
    # While the workers render (the main thread waits on them): the known search bundles checked
    # and the usage rows made, neither touched by a render (at 10,000 sessions ~0.3 s and ~0.4 s
    # that came after it).
    present = side.submit(
        bundles_present, site, manifest.bundles if options.search and not options.force else {}
    )
    if jobs or full or new.pages.keys() != manifest.pages.keys():  # the lists will be written
        side.submit(usage.records)
    if jobs:
        report.begin("Rendering", len(jobs))
    try:
        for outcome in run_jobs(
            jobs, _workers(options.jobs, len(jobs)), lambda d, _t, k: report.advance(d, k), spare=spare
        ):
            job = by_key[outcome.key]
            entry = catalog.get(job.key)
            size, mtime = (entry.size, entry.modified) if entry else (0, 0.0)
            if outcome.error is not None:
                new.failures[job.key] = Failure(size=size, mtime=mtime, reason=outcome.error)
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
                related=related_signature(job.related),
            )
            result.rendered.append(job.key)
    finally:
        if jobs:
            report.end()

    # Files no longer built (deleted sessions, sessions that broke, subagent pages a render no
    # longer wrote) go once nothing links them.
    built = {p for rec in new.pages.values() for p in page_files(rec)}
    for key, rec in manifest.pages.items():
        new.stale.extend(p for p in page_files(rec) if p not in built)
        if key not in new.pages and key not in new.failures:
            result.removed.append(key)

    for entry in entries:
        if entry.error:
            result.failures[entry.key] = entry.error
    result.failures.update({key: f.reason for key, f in new.failures.items()})

    pages_changed = bool(
        full or result.rendered or result.removed or new.failures.keys() != manifest.failures.keys()
    )
    # The pane's list and the usage page link pages only, not search bundles: they are made while
    # Pagefind indexes (its own process), not after it (at 10,000 sessions, ~1 s of an
    # incremental build's wall time spent waiting on one or the other).
    lists = side.submit(_write_lists, options, entries, new, usage, result, pages_changed)
    if options.search:
        pages = [IndexedPage(k, r.page, r.records, r.title, r.sha256) for k, r in new.pages.items()]
        search = update_bundles(
            site,
            pages,
            manifest.bundles,
            force=options.force,
            progress=report,
            sizes=sizes,
            present=present.result(),
        )
        new.bundles = search.bundles
        result.search_records = search.records
        for error in search.errors:
            result.failures["(search index)"] = error
    else:
        new.bundles = {}
    lists.result()
    changed = pages_changed or new.bundles.keys() != manifest.bundles.keys()
    order = router_order(new.bundles)  # the router's numbers: a batch keeps its own
    routed = options.search and bool(new.bundles) and (changed or not router_written(site, order))
    if routed:  # the pages carry its shards' names: written again with it (after an earlier router)
        write_router(site, order)  # before the pages that name its digest and carry its routes

    index = site / "index.html"
    new.index_chunks = manifest.index_chunks
    if changed or routed or not index.is_file() or new.index_chunks is None:
        shown = [_shown(e, new) for e in entries]
        new.index_chunks = write_index(
            site,
            shown,
            new,
            _nav(options),
            order,
            title=options.title,
            theme=options.theme,
            again=full,
        )
        result.index_written = True
    if changed and not pages_changed:  # a search bundle changed alone: written as before
        _write_lists(options, entries, new, usage, result, changed, report)
    if options.search and new.bundles and (changed or routed or not (site / SEARCH_PAGE).is_file()):
        write_search_page(site, _nav(options), order, options.theme)
    if changed or new != manifest:  # dataclass equality: no JSON made of 10,000 pages twice
        save_manifest(site, new)
    # Nothing links the old files any more: delete them, then forget them.
    if new.stale:
        remove_files(site, new.stale)
        new.stale = []
        save_manifest(site, new)
    remove_old_bundles(site, new.bundles)
    if new.bundles:
        remove_old_lists(site, order)
    if new.index_chunks is not None:
        remove_index_chunks(site, new.index_chunks)
    if options.shared_assets or full:
        remove_unused_assets(site, new.pages.values())
    return result


def _write_lists(
    options: BuildOptions,
    entries: list[SessionInfo],
    new: Manifest,
    usage: _Usage,
    result: BuildResult,
    changed: bool,
    report: BuildProgress | None = None,
) -> None:
    """Write the pane's list and the usage page when they may have changed or are missing (the
    pages in ``new`` already made)."""
    site = options.site
    if changed or not (site / SESSIONS_DATA).is_file():
        write_sessions_data(site, [_shown(e, new) for e in entries], new.pages, usage.records())
    if options.usage and (changed or not (site / USAGE_PAGE).is_file()):
        result.usage_written = _write_usage(options, new, usage, report or Silent(), result)


class _Usage:
    """The listing's usage rows, made once for the pane's data and the usage page."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self._records: list[UsageRecord] | None = None

    def records(self) -> list[UsageRecord]:
        if self._records is None:
            self._records = self.sources.usage_records()
        return self._records


def _write_usage(
    options: BuildOptions, new: Manifest, usage: _Usage, report: BuildProgress, result: BuildResult
) -> bool:
    from sessiontree.site.usage import write_usage_page

    report.begin("Usage page")
    try:
        return write_usage_page(
            options.site,
            usage.sources,
            new.pages,
            usage.records(),
            theme=options.theme,
            nav=_nav(options),
        )
    except SearchError as exc:
        result.failures["(usage page)"] = str(exc)
        return False
    finally:
        report.end()


def _shown(entry: SessionInfo, manifest: Manifest) -> SessionInfo:
    failed = manifest.failures.get(entry.key)
    if failed is not None and entry.error is None:
        return replace(entry, error=failed.reason)
    rec = manifest.pages.get(entry.key)
    if rec is not None and rec.title and not entry.display_title:
        return replace(entry, title=rec.title)
    return entry
