"""The watcher: file changes under the served folders, handed to a callback (watchfiles)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path

from sessiontree.serve.failures import log_failure

log = logging.getLogger(__name__)

OnChanges = Callable[[Iterable[Path]], Awaitable[None]]


class Watcher:
    """Watches the roots until ``stop`` is set; a root that goes away or is replaced is watched anew."""

    def __init__(
        self,
        roots: Sequence[Path],
        on_changes: OnChanges,
        stop: asyncio.Event,
        watching: Callable[[bool], None] = lambda on: None,
    ) -> None:
        self.roots = list(roots)
        self.on_changes = on_changes
        self.stop = stop
        self.watching = watching
        """Told True once every change under the roots is reported (the first batch of a watch, a
        change before it reported too), False when a watch ends."""

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less when the server stops."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stop.wait(), seconds)

    async def watch_forever(self, tick: Callable[[], None] = lambda: None) -> None:
        """Report changes (every root when watching (re)starts); ``tick`` runs after each batch."""
        from watchfiles import awatch

        while not self.stop.is_set():
            identity = [_identity(root) for root in self.roots]
            if not any(identity):
                # The folders are gone: wait for one to come back (checked twice a second).
                await self.pause(0.5)
                continue
            await self._report(self.roots)  # anything may have changed while not watching
            ready = False
            try:
                async for changes in awatch(
                    *(root for root, ident in zip(self.roots, identity, strict=True) if ident),
                    stop_event=self.stop,
                    debounce=200,
                    step=10,
                    rust_timeout=500,
                    yield_on_timeout=True,
                    ignore_permission_denied=True,
                ):
                    if [_identity(root) for root in self.roots] != identity:
                        break  # deleted, or replaced by a new folder: watch the new one
                    if not ready:
                        ready = True
                        self.watching(True)
                    if changes:
                        await self._report(Path(p) for _, p in changes)
                    tick()
            except (OSError, RuntimeError) as exc:
                log.debug("watcher stopped: %s", exc)
                await self.pause(0.2)
            finally:
                self.watching(False)
            if not self.stop.is_set():
                await self._report(self.roots)  # a folder went away: its sessions leave the index

    async def _report(self, paths: Iterable[Path]) -> None:
        """Hand changes to ``on_changes``: a failure there is logged, never the end of the watch
        (every open page would stop following its file)."""
        try:
            await self.on_changes(paths)
        except Exception as exc:
            log_failure(log, "file changes not handled", exc)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if os.path.isdir(path) else None
