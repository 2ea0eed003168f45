"""The files ``keep`` keeps: every regular file under each root of the collection (a session, its
artifacts and subagents' folders, a database agent's mirror), and an agent dir's blobs beside its
``sessions`` folder. Symlinks are never followed; sessiontree's own temp files are left out.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from sessiontree.archive.keep.manifest import RootRecord
from sessiontree.store.atomic import TEMP_NAME


@dataclass(frozen=True, slots=True)
class Found:
    path: Path
    size: int
    mtime_ns: int


def slot_of(origin: Path) -> str:
    """A root's folder name in the archive: a digest of its path (the same whatever it holds)."""
    return hashlib.sha256(str(origin).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _files(top: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    stack = [(top, "")]
    while stack:
        folder, rel = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # unreadable or gone since it was listed: nothing to keep there
        for entry in entries:
            if entry.is_symlink() or TEMP_NAME.match(entry.name):
                continue
            name = f"{rel}{entry.name}"
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((Path(entry.path), name + "/"))
                elif entry.is_file(follow_symlinks=False):
                    yield name, entry
            except OSError:
                continue


def walk_roots(
    roots: Sequence[Path], suffixes: tuple[str, ...] | None = None
) -> tuple[dict[str, RootRecord], dict[str, Found]]:
    """(slot -> root record, ``<slot>/<name>/<path>`` -> the file and its stat) of every root
    (only the files whose names end so, when ``suffixes`` are given)."""
    from sessiontree.readers.db_mirror import mirror_source, sync_mirror
    from sessiontree.readers.discovery import root_agent

    slots: dict[str, RootRecord] = {}
    found: dict[str, Found] = {}
    for given in roots:
        root = Path(os.path.abspath(given.expanduser()))
        if not root.is_dir():
            continue
        if mirror_source(root) is not None:
            sync_mirror(root)  # a database agent's sessions, brought up to date first
        agent = root_agent(root) or "pi"  # a folder emptied by its agent: see ``keep``
        slot = slot_of(root)
        slots[slot] = RootRecord(origin=str(root), agent=agent, name=root.name or "root")
        tops = [(root, slots[slot].name)]
        if root.name == "sessions" and (root.parent / "blobs").is_dir():
            tops.append((root.parent / "blobs", "blobs"))  # an agent dir's blobs: the pages' images
        for top, name in tops:
            for rel, entry in _files(top):
                if suffixes is not None and not entry.name.endswith(suffixes):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[f"{slot}/{name}/{rel}"] = Found(Path(entry.path), st.st_size, st.st_mtime_ns)
    return slots, found
