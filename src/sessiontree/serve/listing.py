"""The served folders' listing: one catalog per root, rescanned on demand, keys mapped to files."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import anyio

from sessiontree.archive.catalog import CatalogEntry
from sessiontree.archive.collection import Sources
from sessiontree.serve.security import contained


class Listing:
    """Every session file under the roots; thread-safe (scans run in worker threads)."""

    def __init__(self, roots: Sequence[Path], cache_dir: Path | None) -> None:
        self.roots = list(roots)
        self.sources = Sources(self.roots, cache_dir)
        self._lock = threading.Lock()

    def scan(self) -> list[CatalogEntry]:
        """Rescan the folders (stat only for unchanged files)."""
        with self._lock:
            return self.sources.scan()

    async def scan_async(self) -> list[CatalogEntry]:
        return await anyio.to_thread.run_sync(self.scan)

    def get(self, key: str) -> CatalogEntry | None:
        """The listed record of a key, as of the last scan."""
        return self.sources.get(key)

    def key_of(self, path: str | Path) -> str | None:
        """The key of a session file under one of the roots, or None."""
        return self.sources.key_of(str(path))

    async def path_of(self, key: str) -> Path | None:
        """The file a key names, if it is a listed session file inside the roots."""
        if self.get(key) is None:
            await self.scan_async()  # maybe a file that appeared since the last scan
            if self.get(key) is None:
                return None
        return contained(self.sources.path_of(key), self.roots)
