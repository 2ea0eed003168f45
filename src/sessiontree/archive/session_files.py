"""The session files under a folder, walked as the catalog lists them: flat files, project folders,
subagents' files under their parent, other agents' folders their own way.

Apart from the catalog (its records, caches and line scans) so that a caller that only needs the
files (the search index's stat pass) imports no reading machinery.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from sessiontree.store.discovery import scandir_sorted
from sessiontree.store.storage import entry_is, resolves_inside

MAX_SUBAGENT_DEPTH = 4
_P = TypeVar("_P")


def iter_session_files(root: Path, *, unreadable: bool = False) -> Iterator[tuple[Path, str | None]]:
    """Yield (session file, parent key) under ``root``: flat files, project folders, subagents.

    A Claude Code or Codex CLI folder is walked its own way (Codex nests YYYY/MM/DD; subagent
    transcripts are part of their session's file, not listed apart). With ``unreadable``, what
    is named like a session file but is none (a folder, a named pipe, a link to nothing) comes
    too, for the listing to say why it cannot be read.
    """
    # One part parsed, not the whole path (Path(e.path)).
    return _walk(root, unreadable, lambda folder, e: folder / e.name, lambda path: path)


def iter_session_texts(root: Path, *, unreadable: bool = False) -> Iterator[tuple[str, str | None]]:
    """``iter_session_files`` with each file's path as text (its folder entry's own: no ``Path``
    made per file, for a walk that keeps most files' records as they were: at 100,000 files the
    paths made and thrown away were ~1 s of the catalog's walk)."""
    return _walk(root, unreadable, lambda _folder, e: e.path, str)


def _walk(
    root: Path,
    unreadable: bool,
    made: Callable[[Path, os.DirEntry[str]], _P],
    other: Callable[[Path], _P],
) -> Iterator[tuple[_P, str | None]]:
    """The walk of ``iter_session_files``, each file as ``made`` makes it from its folder and
    entry (``other`` from the path of another agent's file)."""
    from sessiontree.readers.discovery import iter_agent_files, root_agent

    if root_agent(root) not in (None, "pi"):
        yield from ((other(path), None) for path in iter_agent_files(root, unreadable=unreadable))
        return
    real_root = root.resolve()

    def files_in(directory: Path, parent: str | None, depth: int) -> Iterator[tuple[_P, str | None]]:
        entries = scandir_sorted(directory)
        names = {e.name for e in entries}
        for e in entries:
            # Only a link can leave: a plain entry of a folder inside the root is inside too
            # (resolving every file costs a stat per path component: 1,000 files, ~60% of a scan).
            if e.is_symlink() and not resolves_inside(directory / e.name, real_root):
                continue  # a symlink leaving the root: never listed, never served
            if unreadable and e.name.endswith(".jsonl") and not entry_is(e, "file"):
                yield made(directory, e), parent
            if e.name.endswith(".jsonl") and entry_is(e, "file"):
                yield made(directory, e), parent
                stem = e.name[: -len(".jsonl")]
                if depth < MAX_SUBAGENT_DEPTH and stem in names:  # no stat of a folder not there
                    folder = directory / stem
                    if entry_is(folder, "dir") and (
                        not folder.is_symlink() or resolves_inside(folder, real_root)
                    ):
                        key = (directory / e.name).relative_to(root).as_posix()
                        yield from files_in(folder, key, depth + 1)
            elif parent is None and depth == 0 and entry_is(e, "dir") and f"{e.name}.jsonl" not in names:
                yield from files_in(directory / e.name, None, 1)  # a project folder: sessions/<encoded cwd>/

    yield from files_in(root, None, 0)
