"""Our own format (pi / oh-my-pi / xcsh): the store's loader, as a reader of the registry."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from sessiontree.readers.base import register
from sessiontree.store.load import load_session
from sessiontree.store.session import Session


class PiReader:
    """pi session files: a ``{"type": "session"}`` header line, then entries."""

    agent: ClassVar[str] = "pi"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Load with migrations in memory and blobs rehydrated (read-only)."""
        return load_session(path, agent_dir=agent_dir, blobs_dir=blobs_dir, strict=True)


register(PiReader())
