"""The served folders' listing: one catalog per root, rescanned on demand, keys mapped to files.

A scan lists new files from their prefixes (a cold start answers at once); ``settle_some``, run
by serve's background pass, reads the pending ones whole for their exact counts. ``view`` is the
listing with what the many-session answers make of it (rows in order, state, the pane's list),
kept while the listing's version stays: a request to an unchanged listing makes nothing again.
"""

from __future__ import annotations

import asyncio
import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import anyio

from sessiontree.archive.collection import Sources, key_in, root_labels
from sessiontree.archive.usage import UsageRecord
from sessiontree.archive.usage_query import RecordsAnswers, UsageAnswers
from sessiontree.pages.index_rows import IndexRows
from sessiontree.pages.usage_data import PAGE_SIZE
from sessiontree.serve.security import contained
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.foreground import FOREGROUND

if TYPE_CHECKING:
    from sessiontree.archive.usage_db import UsageDb

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_READ_SECONDS = 0.3
"""A scan reads new files, newest first, for about this long; it lists the rest from their stat,
pending, for the background pass to read (a fresh server's first page answers within a second)."""

SETTLED_LOOK_SECONDS = 1.0
"""While the background pass reads files, what it read is listed at most this often (or every ten
listings' cost, when more): the index feed pushes it then."""

SAVE_SECONDS = 30.0
"""The catalogs' caches are written at most this often while files are read (and once all are,
and at the end): one write of 10,000 records took 0.3 s, at every background batch."""


FIRST_LISTING_WAIT = 0.5
"""A usage page asked of a server with nothing stored yet (a fresh cache) waits this long for its
first listing (a small archive's takes milliseconds), then answers that it is still looking."""

NOTHING_YET = RecordsAnswers([])
"""The usage answers of a fresh cache before its first listing."""

UNLISTED = -1
"""``usage_so_far``'s count of files left before the first listing is made (how many is not known
yet): the usage page answers from the store as the last run left it and says it is still looking."""


def shown_fields(e: SessionInfo) -> tuple[object, ...]:
    """What the pane and the index show of a record (its listing state's part)."""
    return (e.key, e.modified, e.size, e.message_count, e.prompt_count, e.title, e.error)


def listing_state(entries: Iterable[SessionInfo]) -> str:
    """A hash of what the pane and the index show of the listing (a change of it is pushed)."""
    return str(hash(tuple(shown_fields(e) for e in entries)))


@dataclass(frozen=True)
class ListingView:
    """One version of the listing and what the many-session answers made of it so far (each once)."""

    version: tuple[int, ...]
    rows: IndexRows

    @property
    def entries(self) -> list[SessionInfo]:
        """The listing, newest first (shared: never change it)."""
        return self.rows.entries

    @property
    def state(self) -> str:
        """``listing_state`` of this listing."""
        return self.made("state", listing_state)

    def made(self, name: str, make: Callable[[list[SessionInfo]], T]) -> T:
        """What ``make`` makes of this listing, made once under ``name`` (``IndexRows.made``)."""
        return self.rows.made(name, make)

    def made_once(self, name: str, tag: object, make: Callable[[list[SessionInfo]], T]) -> T:
        """``made`` while ``tag`` stays (the usage store's generation): the last one kept only."""
        kept: list[tuple[object, T]] = self.made(name, lambda _: [])
        found = kept[-1] if kept else None
        if found is not None and found[0] == tag:
            return found[1]
        value = make(self.entries)
        kept[:] = [(tag, value)]
        return value

    def family(self, key: str) -> tuple[SessionInfo | None, list[SessionInfo]]:
        """The listed session that spawned this one and those it spawned (``Sources.family``), from
        an index of the listing by key and by parent made once (not a sort of it per page)."""
        by_key, children = self.made("family", _family_index)
        entry = by_key.get(key)
        parent = None if entry is None or entry.parent_key is None else by_key.get(entry.parent_key)
        return parent, list(children.get(key, ()))


def _family_index(
    entries: list[SessionInfo],
) -> tuple[dict[str, SessionInfo], dict[str, list[SessionInfo]]]:
    children: dict[str, list[SessionInfo]] = {}
    for e in entries:
        if e.parent_key is not None:
            children.setdefault(e.parent_key, []).append(e)
    return {e.key: e for e in entries}, children


class Listing:
    """Every session file under the roots; thread-safe (scans run in worker threads)."""

    def __init__(self, roots: Sequence[Path], cache_dir: Path | None) -> None:
        self.roots = list(roots)
        self._cache_dir = cache_dir
        self._sources: Sources | None = None
        self._sources_lock = threading.Lock()
        self._store: UsageDb | None = None
        self._store_lock = threading.Lock()
        self._labels: list[str] | None = None
        self._kept: UsageAnswers | None = None
        """The answers the usage store kept, read before it was opened whole (``KeptAnswers``)."""
        self._early: tuple[int, UsageAnswers] | None = None
        """The store's own usage answers made before the first listing, with the generation they
        are of. Both are let go once the first listing is made (``usage_so_far``)."""
        self._first: asyncio.Future[None] | None = None
        self._lock = threading.Lock()
        self._settling = threading.Lock()
        self._usage: tuple[tuple[int, ...], UsageAnswers, int] | None = None
        """The usage answers last made: the sources' version, the answers, the files then left, and
        when answers of a later version may be made while the pass counts (``usage_so_far``)."""
        self.unsettled = asyncio.Event()
        """Set when a scan left counts pending (the background pass waits on it)."""
        self._watched = False
        self._counting = threading.Lock()
        self._changes = 0
        """Changes reported by the watcher and the background pass (a scan notes it)."""
        self._touched: set[Path] | None = set()
        """The files the changes reported since the last scan name (None: anything may have changed)."""
        self._scanned: tuple[int, tuple[int, ...], list[SessionInfo]] | None = None
        """The last scan: the changes reported before it, the sources' version, its list."""
        self._settles = 0
        """Files the background pass read (``_settled``); a scan lists them anew, no file looked at."""
        self._settles_listed = 0
        self._more = False
        """The background pass's last batch left files to read."""
        self._next_look = 0.0
        """While the pass reads, what it read is listed no sooner than this (``time.monotonic()``)."""
        self._view: ListingView | None = None

    @property
    def sources(self) -> Sources:
        """The catalogs, loaded on first use: by the first scan, in its worker thread (a kept
        catalog of 100,000 sessions takes seconds to load; the server answers meanwhile)."""
        sources = self._sources
        if sources is None:
            with self._sources_lock:
                if self._sources is None:
                    made = Sources(self.roots, self._cache_dir, usage_store=self.usage_store() or True)
                    for catalog in made.catalogs:
                        catalog.save_at_most_every(SAVE_SECONDS)
                    self._sources = made
                sources = self._sources
        return sources

    def usage_store(self) -> UsageDb | None:
        """The usage store in the cache dir (None without one), opened alone: the usage page answers
        from it while the first listing loads the catalogs and looks at every file (seconds at
        100,000 sessions)."""
        if self._cache_dir is None:
            return None
        with self._store_lock:
            if self._store is None:
                from sessiontree.archive.catalog import CACHE_VERSION
                from sessiontree.archive.usage_db import UsageDb

                self._store = UsageDb(self._cache_dir, self.roots, CACHE_VERSION)
            return self._store

    def first_listing(self) -> asyncio.Future[None]:
        """The server's first listing, started once (in the event loop): by serve's start, or by the
        first request that does not wait for it (the usage page). The future holds no result: kept
        for the server's life, the first listing's records would be held beside every later
        version's (+68 MiB of peak RSS at 100,000 sessions, as the counts replaced them)."""
        if self._first is None:
            self._first = asyncio.ensure_future(self._list_first())
        return self._first

    async def _list_first(self) -> None:
        await self.scan_async()

    async def until_listed(self) -> None:
        """Wait for the first listing while it can say something: at once when the usage store
        holds the last run's rows (its answers then come from them), else at most
        ``FIRST_LISTING_WAIT`` (a fresh cache: nothing to say before it). A listing made or
        failed: as ``scan_async`` (its error raised)."""
        if not self.listed():
            first = self.first_listing()
            if await anyio.to_thread.run_sync(self.early_answers) is None:
                await asyncio.wait({first}, timeout=FIRST_LISTING_WAIT)
            if not first.done():
                return
        await self.scan_async()

    def early_answers(self) -> UsageAnswers | None:
        """The usage answers before the first listing, of the store as the last run left it: those
        it kept for its rows (``KeptAnswers``: read while the store is not open whole, with no check
        of the file; made from its rows over a connection of their own and kept when its rows changed
        since), else its own; None with nothing stored (a fresh cache, or no cache dir)."""
        if self._cache_dir is None:
            return None
        from sessiontree.archive.catalog import CACHE_VERSION
        from sessiontree.archive.usage_db import store_path
        from sessiontree.archive.usage_early import KeptAnswers

        store = self._store
        if store is None:  # nothing written since the last run: what it kept holds
            if self._kept is None:
                path = store_path(self._cache_dir, self.roots, CACHE_VERSION)
                self._kept = KeptAnswers.read(path, lambda: self._whole_store().answers(), PAGE_SIZE)
            if self._kept is not None:
                return self._kept
            store = self._whole_store()
        if not store.stored():
            return None
        generation = store.generation()
        if self._early is None or self._early[0] != generation:
            self._early = (generation, store.answers())
        return self._early[1]

    def _whole_store(self) -> UsageDb:
        store = self.usage_store()
        assert store is not None  # a cache dir
        return store

    def listed(self) -> bool:
        """Whether a scan has listed the folders yet (a fresh server's first one may take seconds)."""
        return self._scanned is not None

    def watched(self, on: bool) -> None:
        """Say whether the watcher reports every change under the roots from now on (then a scan
        with no change reported since the last one answers with that one's listing)."""
        self.changed()
        self._watched = on

    def changed(self, paths: Iterable[Path] | None = None) -> None:
        """Something under the roots changed (the watcher): the next scan looks at the files again,
        only at ``paths`` when they are all it names (else every file). Never under the listing's
        lock: the event loop calls it while a scan runs."""
        with self._counting:
            self._changes += 1
            if paths is None:
                self._touched = None
            elif self._touched is not None:
                self._touched.update(paths)

    def scan(self, *, again: bool = False) -> list[SessionInfo]:
        """The listing: the last scan's while the watcher has reported no change since, else a
        rescan of the folders (stat only for unchanged files; new large files from their prefix);
        ``again``: a rescan whatever the watcher said. The list is shared: never change it."""
        return self._scan(again)[1]

    def _scan(self, again: bool) -> tuple[tuple[int, ...], list[SessionInfo]]:
        with self._lock:
            with self._counting:
                mark, touched = self._changes, self._touched
                self._touched = set()
                settles = self._settles
            watched = not again and self._watched and self._scanned is not None
            # Only what the background pass read since: listed at once once it is done, else at
            # most every few listings' cost (at 100,000 sessions each new listing is made again
            # whole by every view: not at each of the pass's half-second batches).
            if (
                watched
                and self._scanned is not None
                and self._scanned[0] == mark
                and (settles == self._settles_listed or (self._more and time.monotonic() < self._next_look))
            ):
                return self._scanned[1], self._scanned[2]
            # Watched: the files the watcher named are all that can have changed since the last scan.
            started = time.monotonic()
            try:
                entries = self.sources.scan(
                    exact=False,
                    touched=touched if watched else None,
                    deadline=started + FIRST_READ_SECONDS,
                )
            except BaseException:
                self.changed(None)  # the files it was to look at: every one, next time
                raise
            self._settles_listed = settles
            self._next_look = time.monotonic() + max(SETTLED_LOOK_SECONDS, 10 * (time.monotonic() - started))
            self._scanned = (mark, self.sources.version(), entries)
            return self._scanned[1], entries

    def _scan_first(self, again: bool) -> tuple[tuple[int, ...], list[SessionInfo]]:
        """``_scan`` for a request: the background pass waits meanwhile (``store.foreground``)."""
        with FOREGROUND.serving():
            return self._scan(again)

    async def scan_async(self, *, again: bool = False) -> list[SessionInfo]:
        return (await self.versioned_scan(again=again))[1]

    async def versioned_scan(self, *, again: bool = False) -> tuple[tuple[int, ...], list[SessionInfo]]:
        """``scan`` (in a worker thread) with the version its list is of: the background pass may
        settle a file between a scan and a later ``version()``, which would name the older list."""
        version, entries = await anyio.to_thread.run_sync(self._scan_first, again)
        if any(e.pending for e in entries):
            self.unsettled.set()
        return version, entries

    async def view(self) -> ListingView:
        """The listing as ``versioned_scan`` finds it, with what was made of it already: the same
        view while the version stays (every listing of one version is the same list of records)."""
        version, entries = await self.versioned_scan()
        view = self._view  # set only here, in the event loop: no lock needed
        if view is None or view.version < version:
            view = self._view = ListingView(version, IndexRows(entries))
        elif view.version != version:  # a scan that returned after a later one: not kept
            view = ListingView(version, IndexRows(entries))
        return view

    def last_view(self) -> ListingView | None:
        """The view ``view`` made last (None before the first)."""
        return self._view

    def settle_some(self, budget: float) -> tuple[bool, bool]:
        """Read pending files whole for about ``budget`` seconds (at least one file), outside the
        lock; return (something was settled, some are still pending). One pass at a time: the
        background one and a usage request never read the same file twice."""
        with self._settling:
            return self._settle_some(budget)

    def _settle_some(self, budget: float) -> tuple[bool, bool]:
        with self._lock:
            todo = self.sources.pending()
        deadline = time.monotonic() + budget
        settled = False
        for catalog, key in todo:
            FOREGROUND.pause()  # a request's listing or page goes first (at 100,000 files: seconds)
            try:
                done = catalog.read_exact(key)
            except Exception as exc:  # a reader's bug must not stop the pass (nor loop on the file)
                log.debug("cannot count %s: %s", key, exc)
                done = catalog.unreadable(key, f"unreadable: {exc}")
            if done is not None:
                with self._lock:
                    catalog.settle(key, done)
                with self._counting:
                    self._settles += 1  # the listing changed, no file: a later scan lists it anew
                settled = True
            if time.monotonic() >= deadline:
                break
        with self._lock:
            more = self._more = bool(self.sources.pending())
            for catalog in self.sources.catalogs:
                catalog.save(force=not more)
            return settled, more

    def save(self) -> None:
        """Write the catalogs' caches now, if anything changed (the server's end)."""
        with self._lock:
            if self._sources is None:
                return  # never loaded: nothing changed
            for catalog in self._sources.catalogs:
                catalog.save(force=True)

    def known(self) -> int:
        """How many sessions the last scan listed (0 before the first): what a search tells as left
        to index while the search index's own walk has not counted them yet."""
        scanned = self._scanned
        return 0 if scanned is None else len(scanned[2])

    def usage_records(self) -> list[UsageRecord]:
        """Every listed session's usage per (day, model): the listing, the pending files read first."""
        self.scan()
        self.settle_some(math.inf)
        with self._lock:
            return self.sources.usage_records()

    def usage_so_far(self) -> tuple[UsageAnswers, int]:
        """The usage page's answers over the sessions counted so far (``archive.usage_query``), and
        how many listed files still wait for the background pass (their usage not in yet): never
        waits for that pass. While it counts, the answers made first are kept, with the count of
        files left then, and made again only once the count settled (each making was ~0.85 s at
        100,000 sessions, taken from the pass it waits for, every few seconds); the usage page
        hears of the count over its event stream (``usage_left``). Before the first listing is
        made, the store's answers as it is, with ``UNLISTED`` files left."""
        if self._scanned is None and self._cache_dir is not None:  # the first listing not made yet
            return self.early_answers() or NOTHING_YET, UNLISTED
        self._kept = self._early = None  # of the store before the listing: never asked again
        self.scan()
        with self._lock:
            left = len(self.sources.pending())
            made = self._usage
            if left and made is not None and made[2]:
                return made[1], made[2]
            return self._usage_records(left), left

    def _usage_records(self, left: int = 0) -> UsageAnswers:
        version = self.sources.version()
        if self._usage is None or self._usage[0] != version:
            records = self.sources.usage_answers()
            records.groups()  # the page's totals, made once per version
            self._usage = (version, records, left)
        elif self._usage[2] != left:
            self._usage = (*self._usage[:2], left)
        return self._usage[1]

    def usage_left(self) -> int:
        """How many listed files the background pass has still to count (``UNLISTED`` before the
        first listing is made): what the usage page's event stream says (``index_feed``)."""
        if self._scanned is None and self._cache_dir is not None:
            return UNLISTED
        with self._lock:
            return sum(1 for catalog in self.sources.catalogs for _ in catalog.pending_times())

    def usage_generation(self) -> int | None:
        """The usage store's generation (bumped by every write of its rows; None without one)."""
        store = self.sources.usage_db
        return None if store is None else store.generation()

    def session_models(self, keys: Iterable[str] | None = None) -> dict[str, list[str]] | None:
        """The models of these listed sessions (or of every one) as counted so far, from the usage
        store: a query, not every session's rows (None without a cache dir)."""
        with self._lock:
            return self.sources.session_models(keys)

    def model_names(self) -> list[str] | None:
        """Every model counted so far, sorted: a query on the usage store's index of rows by model
        (``archive.usage_models``), no list of every session's; None without a store."""
        store = self.sources.usage_db
        return None if store is None else store.model_names()

    def models_json(self) -> bytes | None:
        """``/api/session-models``' body from the usage store (None without one), written session
        by session (``usage_models.models_json``)."""
        store = self.sources.usage_db
        return None if store is None else store.models_json(self.sources.labels)

    def model_keys(self, model: str) -> list[str]:
        """The keys of the listed sessions that used ``model``, from the usage store's index."""
        with self._lock:
            return self.sources.model_keys(model)

    def get(self, key: str) -> SessionInfo | None:
        """The listed record of a key, as of the last scan."""
        return self.sources.get(key)

    def family(self, key: str) -> tuple[SessionInfo | None, list[SessionInfo]]:
        """The listed session that spawned this one and those it spawned (``Sources.family``)."""
        view = self._view
        with self._lock:
            if view is not None and view.version == self.sources.version():
                return view.family(key)  # the listing as the view has it: its index, made once
            return self.sources.family(key)

    def key_of(self, path: str | Path) -> str | None:
        """The key of a session file under one of the roots, or None (the catalogs not loaded)."""
        if self._labels is None:
            self._labels = root_labels(self.roots)
        return key_in(self.roots, self._labels, str(path))

    async def path_of(self, key: str) -> Path | None:
        """The file a key names, if it is a listed session file inside the roots."""
        if self.get(key) is None:
            await self.scan_async(again=True)  # maybe a file that appeared since the last scan
            if self.get(key) is None:
                return None
        return contained(self.sources.path_of(key), self.roots)
