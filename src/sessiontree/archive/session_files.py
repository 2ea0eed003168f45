"""The session files under a folder, walked as the catalog lists them: flat files, project folders,
subagents' files under their parent, other agents' folders their own way.

Apart from the catalog (its records, caches and line scans) so that a caller that only needs the
files (the search index's stat pass) imports no reading machinery.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sessiontree.store.discovery import scandir_sorted
from sessiontree.store.storage import entry_is, resolves_inside

MAX_SUBAGENT_DEPTH = 4


def iter_session_files(root: Path, *, unreadable: bool = False) -> Iterator[tuple[Path, str | None]]:
    """Yield (session file, parent key) under ``root``: flat files, project folders, subagents.

    A Claude Code or Codex CLI folder is walked its own way (Codex nests YYYY/MM/DD; subagent
    transcripts are part of their session's file, not listed apart). With ``unreadable``, what
    is named like a session file but is none (a folder, a named pipe, a link to nothing) comes
    too, for the listing to say why it cannot be read.
    """
    from sessiontree.readers.discovery import iter_agent_files, root_agent

    if root_agent(root) not in (None, "pi"):
        yield from ((path, None) for path in iter_agent_files(root, unreadable=unreadable))
        return
    real_root = root.resolve()

    def files_in(directory: Path, parent: str | None, depth: int) -> Iterator[tuple[Path, str | None]]:
        entries = scandir_sorted(directory)
        names = {e.name for e in entries}
        for e in entries:
            path = directory / e.name  # one part parsed, not the whole path (Path(e.path))
            # Only a link can leave: a plain entry of a folder inside the root is inside too
            # (resolving every file costs a stat per path component: 1,000 files, ~60% of a scan).
            if e.is_symlink() and not resolves_inside(path, real_root):
                continue  # a symlink leaving the root: never listed, never served
            if unreadable and e.name.endswith(".jsonl") and not entry_is(e, "file"):
                yield path, parent
            if e.name.endswith(".jsonl") and entry_is(e, "file"):
                yield path, parent
                stem = e.name[: -len(".jsonl")]
                if depth < MAX_SUBAGENT_DEPTH and stem in names:  # no stat of a folder not there
                    folder = path.with_name(stem)
                    if entry_is(folder, "dir") and (
                        not folder.is_symlink() or resolves_inside(folder, real_root)
                    ):
                        yield from files_in(folder, path.relative_to(root).as_posix(), depth + 1)
            elif parent is None and depth == 0 and entry_is(e, "dir") and f"{e.name}.jsonl" not in names:
                yield from files_in(path, None, 1)  # a project folder: sessions/<encoded cwd>/

    yield from files_in(root, None, 0)
