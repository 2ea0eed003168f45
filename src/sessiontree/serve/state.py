"""What a running server holds, one part per job, and the background tasks that tie them together.

- ``listing``: the served folders' catalog (keys -> files), listed from prefixes first; a
  background pass reads the pending files whole and pushes their exact counts to the index;
- ``followed``: the sessions open in a browser, each following its file;
- ``hub``: the event streams;
- ``index_feed``: the index page's live groups;
- ``archive``: the search index and usage totals;
- ``watcher``: file changes, handed to ``on_changes``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Iterable
from pathlib import Path

import anyio
from anyio import CapacityLimiter

from sessiontree.errors import SessiontreeError
from sessiontree.readers.db_mirror import mirror_source, sync_mirror
from sessiontree.serve.archive_routes import ArchiveService
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.failures import log_failure
from sessiontree.serve.followed import FollowedSessions, topic_of
from sessiontree.serve.hub import Hub
from sessiontree.serve.index_feed import IndexFeed
from sessiontree.serve.kept_index import KeptIndex, kept_page_path
from sessiontree.serve.listing import Listing
from sessiontree.serve.pages import render_served_index
from sessiontree.serve.renders import Renders
from sessiontree.serve.urls import Urls
from sessiontree.serve.watcher import Watcher
from sessiontree.store.storage import entry_is

log = logging.getLogger(__name__)

SETTLE_BATCH_SECONDS = 0.5
"""The background pass reads pending files for about this long between index pushes."""

ARCHIVE_MIN_INTERVAL = 1.0
"""At most one search-index update a second from the watcher (each search updates it too)."""

USAGE_KEEP_INTERVAL = 60.0
"""Once the background pass settled, the usage page is made (its answers kept in the usage store
for the next run) at most this often: at 100,000 sessions a restarted server whose store kept no
answers for its rows took 3 s for its first usage page; each making is ~1-2 s of CPU."""


class ServeState:
    """Shared by every request; ``start`` and ``stop`` run the background tasks (the app's lifespan)."""

    def __init__(self, config: ServeConfig, urls: Urls) -> None:
        self.config = config
        self.urls = urls
        self.hub = Hub()
        self.render_limit = CapacityLimiter(2)
        self.renders = Renders(running=2)
        # Page streams wait for their shared render in threads of their own: never the default
        # pool's, which /usage and /api/search use.
        self.stream_limit = CapacityLimiter(32)
        self.listing = Listing(config.roots, config.cache_dir)
        self.kept_index = KeptIndex(kept_page_path(config))
        self.followed = FollowedSessions(
            agent_dir=config.agent_dir, image_prefix=urls.blob_prefix(), watchers=self.hub.count
        )
        self.index_feed = IndexFeed(self.listing, self.hub, lambda entry: urls.session(entry.key))
        keep_out = (config.agent_dir,) if config.agent_dir is not None else ()
        self.archive = ArchiveService(
            config.roots,
            config.cache_dir,
            keep_out,
            theme=config.theme,
            link_for=self.session_link,
            usage_so_far=self.listing.usage_so_far,
            usage_api=urls.usage_sessions_api(),
            usage_events=urls.usage_events(),
            nav=urls.nav(),
            on_pending=self._wake_archive,
            file_count=self.listing.known,
        )
        self.watcher = Watcher(config.roots, self.on_changes, self.hub.closed, self._watching)
        # A database's sessions (OpenCode, Crush) are files of a cache folder, written from the database
        # when it changes (``readers.db_mirror``): checked at each tick of the watcher.
        self.mirrors = [root for root in config.roots if mirror_source(root) is not None]
        self._mirroring: asyncio.Task[None] | None = None
        self._archive_dirty = asyncio.Event()
        self._usage_settled = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None  # the server's, once it started
        self._tasks: list[asyncio.Task[None]] = []

    def _watching(self, on: bool) -> None:
        """The watcher reports every change from now on (or no longer): the listing and the search
        index then look again only when it reports one."""
        self.listing.watched(on)
        self.archive.watched(on)

    def _wake_archive(self) -> None:
        """From a worker thread: the index has files left to read (a fresh server's first search)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._archive_dirty.set)

    def session_link(self, path: str | Path, entry_id: str | None = None) -> str | None:
        """The served page of a session file (at an entry), or None outside the served folders."""
        key = self.listing.key_of(path)
        return None if key is None else self.urls.session(key, entry_id)

    async def start(self) -> None:
        """Start the listing's background pass and the index feed; the watcher and the archive
        updates too when watching."""
        self._loop = asyncio.get_running_loop()
        self._tasks += [
            asyncio.create_task(self._list_at_start()),
            asyncio.create_task(self._settle_forever()),
            asyncio.create_task(self.index_feed.push_forever(self.watcher.pause)),
            asyncio.create_task(self.index_feed.push_usage_forever(self.watcher.pause)),
            asyncio.create_task(self._answer_usage_forever()),
        ]
        if self.config.watch:
            watchers = self.hub.count
            self.archive.indexing = True  # _update_archive_forever indexes what a search leaves
            self._tasks += [
                asyncio.create_task(self.watcher.watch_forever(lambda: self._tick(watchers))),
                asyncio.create_task(self._update_archive_forever()),
            ]

    async def _list_at_start(self) -> None:
        """List the folders once before any request: the background pass then reads the pending
        files' counts and usage while the user has not yet asked for the usage page."""
        try:
            await self.listing.first_listing()
        except (OSError, SessiontreeError) as exc:
            log.debug("first listing failed: %s", exc)
        self.index_feed.dirty.set()  # an open usage page hears that the files are listed
        self._usage_settled.set()  # nothing to count, maybe: the answers made if so

    def _tick(self, watchers: Callable[[str], int]) -> None:
        """After each batch of the watcher (or half a second without one): drop idle sessions,
        and bring the mirrored databases up to date (their files' changes come as a batch next)."""
        self.followed.drop_idle(watchers)
        if self.mirrors and (self._mirroring is None or self._mirroring.done()):
            self._mirroring = asyncio.create_task(self._sync_mirrors())

    async def _sync_mirrors(self) -> None:
        for root in self.mirrors:
            try:
                await anyio.to_thread.run_sync(sync_mirror, root, limiter=self.render_limit)
            except Exception as exc:
                # Logged, and the next root synced all the same: a root that failed at every tick
                # (its folder unwritable) kept the ones after it from ever being synced.
                log_failure(log, f"{root} not synced with its database", exc)

    async def stop(self) -> None:
        """End every event stream and background task."""
        self.hub.close()
        tasks = [*self._tasks, *([self._mirroring] if self._mirroring is not None else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.archive.close()
        try:
            await anyio.to_thread.run_sync(self.listing.save)
        except Exception as exc:  # a cache not written costs only speed next time
            log_failure(log, "listing cache not saved", exc)
        view = self.listing.last_view()
        if view is not None and not self.kept_index.kept(view.state):
            try:  # the next run's first page: the listing as last shown
                html = await anyio.to_thread.run_sync(render_served_index, view, self.config, self.urls)
                await anyio.to_thread.run_sync(self.kept_index.keep, view.state, html)
            except Exception as exc:
                log_failure(log, "index page not kept", exc)

    async def on_changes(self, paths: Iterable[Path]) -> None:
        """Refresh the watched sessions whose files changed; mark the index and archive out of date."""
        changed = set(paths)
        everything = any(root in changed for root in self.config.roots)
        # The next request lists the files again, not before: those named alone when it can.
        self.listing.changed(None if everything else changed)
        self.archive.changed()
        for key, live in self.followed.watched(self.hub.count):
            if everything or live.path in changed:
                try:
                    events = await anyio.to_thread.run_sync(live.refresh, limiter=self.render_limit)
                except Exception as exc:
                    # One session that cannot be read again must not keep the others' appends (nor the
                    # index's change) from going out: its page hears nothing until it reads again.
                    log_failure(log, f"session {key} not refreshed", exc)
                    continue
                for event in events:
                    self.hub.publish(topic_of(key), event)
        if everything or any(
            p.suffix in (".jsonl", ".json") or entry_is(p, "dir") or not os.path.lexists(p) for p in changed
        ):
            self.index_feed.dirty.set()
            self._archive_dirty.set()

    async def _settle_forever(self) -> None:
        """Read the files a scan listed from their prefixes whole, pushing the index as counts come."""
        while not self.hub.closed.is_set():
            await self.listing.unsettled.wait()
            self.listing.unsettled.clear()
            more = True
            while more and not self.hub.closed.is_set():
                try:
                    settled, more = await anyio.to_thread.run_sync(
                        self.listing.settle_some, SETTLE_BATCH_SECONDS
                    )
                except Exception as exc:
                    # Never the end of the pass: the next scan that lists a pending file wakes it.
                    log_failure(log, "background count failed", exc)
                    settled, more = True, False  # what it settled before failing is shown too
                if settled:
                    self.index_feed.dirty.set()
            self._usage_settled.set()

    async def _answer_usage_forever(self) -> None:
        """Once every listed file is counted, make the usage page (``ArchiveService.usage_page``):
        its answers are kept in the usage store with the rows' generation, so the next run's first
        usage page comes from them, and this run's next one is made already. At most every
        ``USAGE_KEEP_INTERVAL`` (a mark meanwhile is kept), never while files are left to count
        (serve always has a cache dir, so a usage store: answers by SQL, none held per session)."""
        while not self.hub.closed.is_set():
            await self._usage_settled.wait()
            self._usage_settled.clear()
            try:
                if await anyio.to_thread.run_sync(self.listing.usage_left) != 0:
                    continue  # counting (its end marks again) or not listed yet
                await anyio.to_thread.run_sync(self.archive.usage_page, limiter=self.render_limit)
            except Exception as exc:  # never the end of the loop: the next settle tries again
                log_failure(log, "usage answers not made", exc)
            await self.watcher.pause(USAGE_KEEP_INTERVAL)

    async def _update_archive_forever(self) -> None:
        """Keep the search index in step with growing files once a search or usage page opened it."""
        while not self.hub.closed.is_set():
            await self._archive_dirty.wait()
            self._archive_dirty.clear()
            try:
                await anyio.to_thread.run_sync(self.archive.update_if_open)
            except SessiontreeError as exc:
                log.debug("search index not updated: %s", exc)
            except Exception as exc:  # never the end of the updates: the next change tries again
                log_failure(log, "search index not updated", exc)
            await self.watcher.pause(ARCHIVE_MIN_INTERVAL)
