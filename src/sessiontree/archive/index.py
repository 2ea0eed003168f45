"""Keeping the search index in step with session files: a stat pass over the roots decides which
files changed or went; ``archive/index_file.py`` reads what changed (whole reads, appended lines,
forgetting), loaded only then. The database itself (schema, connections, packed row texts) is
``archive/index_db.py``.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from sessiontree.archive.collection import path_key, root_clause
from sessiontree.archive.index_db import UpdateReport
from sessiontree.archive.session_files import iter_session_files

RACY_SECONDS = 2.0
"""A file whose mtime was this close to the moment it was indexed is re-checked even when its stat matches."""


READ_PER_STAT = 2.0
"""A background slice reads for at least this many times its stat pass took (see ``update_index``)."""


def update_index(
    conn: sqlite3.Connection,
    roots: Sequence[Path],
    on_start: Callable[[int, int], None] | None = None,
    deadline: float | None = None,
    budget: float | None = None,
    report: UpdateReport | None = None,
    on_progress: Callable[[], None] | None = None,
) -> UpdateReport:
    """Bring the index in step with the session files under ``roots``: appends, rewrites, deletions.

    ``on_start(files, bytes)`` is told, before any reading, how much may have to be read. With a
    ``deadline`` (``time.monotonic()``), the newest changed files are read first and no new file
    is started after it (one at least): the rest is ``report.pending``, for a later update.
    ``budget`` (seconds): the deadline is that long after the stat pass, or ``READ_PER_STAT`` times
    the pass's own time when longer (a background slice: at 100,000 files the pass took longer than a fixed
    deadline, and each slice read one file). ``report`` is filled as the update goes (its ``left``
    once the stat pass ended, then after each file read), and ``on_progress()`` told each time:
    serve's search answers from the index as it is while an update still runs.
    """
    started_at = time.monotonic()
    report = UpdateReport() if report is None else report
    found = walk_files(roots, report)
    clause, params = root_clause(roots, "path")
    known = {
        str(r[0]): r[1:]
        for r in conn.execute(
            f"SELECT path, id, size, mtime_ns, ino, checked_ns FROM files WHERE {clause}", params
        )
    }
    for known_path, (file_id, *_rest) in known.items():
        if known_path not in found:
            from sessiontree.archive.index_file import remove_file

            remove_file(conn, file_id)
            report.removed += 1
    stats: list[tuple[float, str, Path, os.stat_result]] = []
    for key, found_path in found.items():
        report.files += 1
        try:
            st = os.stat(found_path)
        except OSError:
            continue
        seen = known.get(key)
        if seen is None or not _unchanged(st, *seen[1:]):
            stats.append((st.st_mtime, key, found_path, st))
    report.left = len(stats)
    if on_progress is not None:
        on_progress()
    if on_start is not None and stats:
        sizes = {
            str(r[0]): int(r[1]) for r in conn.execute(f"SELECT path, size FROM files WHERE {clause}", params)
        }
        on_start(len(stats), sum(max(0, st.st_size - sizes.get(key, 0)) for _m, key, _p, st in stats))
    if stats:
        # The reading of a file (tail reader, line parsing, extraction) loads only now: a query
        # over an index in step stats the files and reads none.
        from sessiontree.archive.index_file import update_file

        # Oldest first, so row ids follow time and a search can rank the newest rows first; under
        # a deadline the newest first (what a first answer most likely wants), the rest later.
        ordered = sorted(stats, key=lambda s: (s[0], s[1]), reverse=deadline is not None)
        if deadline is not None:
            # A file indexed already and seen again only because it changed just before (racy) is
            # read first: usually nothing is new in it, and it must never take the budget's place.
            ordered.sort(key=lambda s: not _racy(s[3], known.get(s[1])))
        if budget is not None:
            now = time.monotonic()
            deadline = max(deadline or now, now + max(budget, READ_PER_STAT * (now - started_at)))
        started = 0
        for done, (_mtime, key, found_path, st) in enumerate(ordered):
            fresh = not _racy(st, known.get(key))
            if deadline is not None and fresh and started and time.monotonic() >= deadline:
                report.pending = report.left = len(ordered) - done
                break
            started += fresh
            update_file(conn, found_path, report)
            report.left = len(ordered) - done - 1
            if on_progress is not None:
                on_progress()
    if report.rows or report.removed or report.whole:
        # Never waits for readers (PASSIVE); with journal_size_limit the log shrinks back.
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    return report


def walk_files(roots: Sequence[Path], report: UpdateReport) -> dict[str, Path]:
    """Every session file under the roots by ``path_key``, as the catalog lists them, counted in
    ``report.walked`` as the walk goes: a search tells it while the walk runs."""
    found: dict[str, Path] = {}
    for root in roots:
        for path, _parent in iter_session_files(root):
            found[path_key(path)] = path
            report.walked += 1
    return found


def _racy(st: os.stat_result, seen: tuple[int, int, int, int, int] | None) -> bool:
    """Tell a file indexed already, whose stat is as it was then, from one to read (new, changed)."""
    return seen is not None and (st.st_size, st.st_mtime_ns, st.st_ino) == tuple(seen[1:4])


def _unchanged(st: os.stat_result, size: int, mtime_ns: int, ino: int, checked_ns: int) -> bool:
    """Tell from the stat alone that a file is as it was indexed (and not modified within the same tick)."""
    same = (st.st_size, st.st_mtime_ns, st.st_ino) == (size, mtime_ns, ino)
    return same and checked_ns - mtime_ns > RACY_SECONDS * 1e9
