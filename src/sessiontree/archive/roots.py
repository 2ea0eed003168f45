"""Several sessions folders seen as one listing (build, serve): one catalog each, keys prefixed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from sessiontree.archive.catalog import Catalog, CatalogEntry
from sessiontree.readers.discovery import root_agent


def root_labels(roots: Sequence[Path]) -> list[str]:
    """A key prefix per root: none for one root; else its agent's name (``pi``, ``claude``, ``codex``)."""
    if len(roots) <= 1:
        return [""]
    labels: list[str] = []
    for root in roots:
        base = root_agent(root) or "pi"
        label, n = base, 1
        while label in labels:
            n += 1
            label = f"{base}-{n}"
        labels.append(label)
    return labels


class Sources:
    """Several catalogs seen as one: ``<label>/<key>`` keys, each mapped back to its file."""

    def __init__(self, roots: Sequence[Path], cache_dir: Path | None) -> None:
        self.roots = list(roots)
        self.labels = root_labels(self.roots)
        self.catalogs = [Catalog(root, cache_dir=cache_dir) for root in self.roots]

    def _prefix(self, index: int) -> str:
        return f"{self.labels[index]}/" if self.labels[index] else ""

    def scan(self) -> list[CatalogEntry]:
        """Every root's listing (re-reading only changed files), newest first."""
        found: list[CatalogEntry] = []
        for index, catalog in enumerate(self.catalogs):
            prefix = self._prefix(index)
            for entry in catalog.scan():
                parent = None if entry.parent is None else prefix + entry.parent
                found.append(replace(entry, key=prefix + entry.key, parent=parent) if prefix else entry)
        found.sort(key=lambda e: e.mtime, reverse=True)
        return found

    def _split(self, key: str) -> tuple[int, str]:
        if len(self.catalogs) == 1:
            return 0, key
        label, _, rest = key.partition("/")
        return self.labels.index(label), rest

    def get(self, key: str) -> CatalogEntry | None:
        """The record of one file by (prefixed) key."""
        try:
            index, rest = self._split(key)
        except ValueError:
            return None
        entry = self.catalogs[index].get(rest)
        return replace(entry, key=key) if entry is not None else None

    def key_of(self, path: str) -> str | None:
        """The (prefixed) key of a session file under one of the roots, or None."""
        for index, root in enumerate(self.roots):
            try:
                rest = Path(path).relative_to(os.path.abspath(root)).as_posix()
            except ValueError:
                continue
            return self._prefix(index) + rest
        return None

    def path_of(self, key: str) -> Path:
        """The session file a (prefixed) key names."""
        index, rest = self._split(key)
        return self.roots[index] / rest
