"""What a running server holds: its folder's catalog, the followed sessions, the event hub, the watcher."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import anyio
from anyio import CapacityLimiter

from sessiontree.archive.catalog import CatalogEntry
from sessiontree.archive.roots import Sources
from sessiontree.errors import SessiontreeError
from sessiontree.exporter.index_page import index_summary, render_index_groups
from sessiontree.serve.archive_routes import ArchiveService
from sessiontree.serve.hub import Event, Hub
from sessiontree.serve.live import LiveSession
from sessiontree.serve.security import contained

log = logging.getLogger(__name__)

INDEX_TOPIC = "index"
IDLE_SECONDS = 60.0
"""A followed session nobody watches is dropped after this long (its memory freed)."""
INDEX_MIN_INTERVAL = 0.25
ARCHIVE_MIN_INTERVAL = 1.0
"""At most one search-index update a second from the watcher (each search updates it too)."""
"""At most four index pushes a second, however fast files change."""


@dataclass(frozen=True)
class ServeConfig:
    """How the server was started."""

    root: Path
    cache_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    agent_dir: Path | None = None
    theme: str = "auto"
    watch: bool = True
    blob_dirs: tuple[Path, ...] = field(default_factory=tuple)
    more_roots: tuple[Path, ...] = ()
    """Further folders served with ``root`` (other agents' too); keys then start with their agent."""


def session_href(entry: CatalogEntry) -> str:
    """The page URL of a listed session."""
    return "/s/" + quote(entry.key)


def topic_of(key: str) -> str:
    return "s:" + key


class ServeState:
    """Shared by every request: catalog, followed sessions, hub; the watcher task feeds the hub."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.root = config.root
        self.roots = [config.root, *config.more_roots]
        self.catalog = Sources(self.roots, config.cache_dir)
        self.catalog_lock = threading.Lock()
        self.hub = Hub()
        self.sessions: dict[str, LiveSession] = {}
        self._last_used: dict[str, float] = {}
        self.render_limit = CapacityLimiter(2)
        self._index_html = ""
        self._index_dirty = asyncio.Event()
        self._archive_dirty = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        keep_out = (config.agent_dir,) if config.agent_dir is not None else ()
        self.archive = ArchiveService(
            config.root,
            config.cache_dir,
            keep_out,
            theme=config.theme,
            more_roots=config.more_roots,
            key_of=self.catalog.key_of if config.more_roots else None,
        )

    # -- catalog ---------------------------------------------------------------------------

    def scan(self) -> list[CatalogEntry]:
        """Rescan the folder (stat only for unchanged files); thread-safe."""
        with self.catalog_lock:
            return self.catalog.scan()

    async def scan_async(self) -> list[CatalogEntry]:
        return await anyio.to_thread.run_sync(self.scan)

    async def path_of(self, key: str) -> Path | None:
        """The file a key names, if it is a listed session file inside the root."""
        entry = self.catalog.get(key)
        if entry is None:
            await self.scan_async()  # maybe a file that appeared since the last scan
            entry = self.catalog.get(key)
        if entry is None:
            return None
        return contained(self.catalog.path_of(key), self.roots)

    # -- followed sessions -----------------------------------------------------------------

    def live(self, key: str, path: Path) -> LiveSession:
        """The followed session of a key (created on first use)."""
        self._last_used[key] = time.monotonic()
        live = self.sessions.get(key)
        if live is None or live.path != path:
            live = LiveSession(path, agent_dir=self.config.agent_dir)
            self.sessions[key] = live
        return live

    def image_bytes(self, sha: str) -> bytes | None:
        """An image a served page refers to (from a followed session), if any."""
        for live in list(self.sessions.values()):
            found = live.images.get(sha)
            if found is not None:
                return found.data
        return None

    def drop_idle(self, now: float | None = None) -> None:
        """Forget followed sessions nobody has watched for a while."""
        moment = time.monotonic() if now is None else now
        for key in list(self.sessions):
            if self.hub.count(topic_of(key)) == 0 and moment - self._last_used.get(key, 0.0) > IDLE_SECONDS:
                del self.sessions[key]
                self._last_used.pop(key, None)

    # -- the watcher ------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the watcher and index tasks (from the app's lifespan)."""
        if self.config.watch:
            self._tasks.append(asyncio.create_task(self._watch_forever()))
            self._tasks.append(asyncio.create_task(self._push_index_forever()))
            self._tasks.append(asyncio.create_task(self._update_archive_forever()))

    async def stop(self) -> None:
        """End every event stream and background task."""
        self.hub.close()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.archive.close()

    async def _watch_forever(self) -> None:
        from watchfiles import awatch

        while not self.hub.closed.is_set():
            identity = [_identity(root) for root in self.roots]
            if not any(identity):
                # The folder is gone: wait for it to come back (checked twice a second).
                await self._pause(0.5)
                continue
            await self.on_changes(self.roots)  # anything may have changed while not watching
            try:
                async for changes in awatch(
                    *(root for root, ident in zip(self.roots, identity, strict=True) if ident),
                    stop_event=self.hub.closed,
                    debounce=200,
                    step=10,
                    rust_timeout=500,
                    yield_on_timeout=True,
                    ignore_permission_denied=True,
                ):
                    if [_identity(root) for root in self.roots] != identity:
                        break  # deleted, or replaced by a new folder: watch the new one
                    if changes:
                        await self.on_changes(Path(p) for _, p in changes)
                    self.drop_idle()
            except (OSError, RuntimeError) as exc:
                log.debug("watcher stopped: %s", exc)
                await self._pause(0.2)
            if not self.hub.closed.is_set():
                await self.on_changes(self.roots)  # a folder went away: its sessions leave the index

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.hub.closed.wait(), seconds)

    async def on_changes(self, paths: Iterable[Path]) -> None:
        """Refresh the followed sessions whose files changed and mark the index for a push."""
        changed = set(paths)
        everything = any(root in changed for root in self.roots)
        for key, live in list(self.sessions.items()):
            if not everything and live.path not in changed:
                continue
            if self.hub.count(topic_of(key)) == 0:
                continue
            for event in await anyio.to_thread.run_sync(live.refresh, limiter=self.render_limit):
                self.hub.publish(topic_of(key), event)
        if everything or any(p.suffix == ".jsonl" or p.is_dir() or not p.exists() for p in changed):
            self._index_dirty.set()
            self._archive_dirty.set()

    async def _update_archive_forever(self) -> None:
        """Keep the search index in step with growing files once a search or usage page opened it."""
        while not self.hub.closed.is_set():
            await self._archive_dirty.wait()
            self._archive_dirty.clear()
            try:
                await anyio.to_thread.run_sync(self.archive.update_if_open)
            except SessiontreeError as exc:
                log.debug("search index not updated: %s", exc)
            await self._pause(ARCHIVE_MIN_INTERVAL)

    async def _push_index_forever(self) -> None:
        while not self.hub.closed.is_set():
            await self._index_dirty.wait()
            self._index_dirty.clear()
            if self.hub.count(INDEX_TOPIC):
                event = await self.index_event()
                if event is not None:
                    self.hub.publish(INDEX_TOPIC, event)
            await self._pause(INDEX_MIN_INTERVAL)

    async def index_event(self, *, force: bool = False) -> Event | None:
        """The index's groups as an event, or None when nothing shown has changed."""
        entries = await self.scan_async()
        html = render_index_groups(entries, session_href)
        if html == self._index_html and not force:
            return None
        self._index_html = html
        return Event("index", {"html": html, "summary": index_summary(entries)})


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if os.path.isdir(path) else None
