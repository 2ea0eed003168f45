"""A watched server's search looks at the files again only when the watcher reported a change:
a warm search costs its query, not a stat of every file of the archive."""

from __future__ import annotations

import time
from pathlib import Path

from sessiontree.archive.search import SearchFilters, SearchIndex
from sessiontree.serve.archive_routes import ArchiveService
from tests.serve.conftest import KEY, append_line, write_session
from tests.store.helpers import msg


def _hits(service: ArchiveService, word: str) -> list[str]:
    return [hit["href"] for hit in service.search(word, SearchFilters())["hits"]]


def test_a_watched_search_indexes_again_only_after_a_reported_change(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write_session(root / KEY, "s1")
    service = ArchiveService(
        [root], tmp_path / "cache", link_for=lambda p, entry: entry, usage_so_far=lambda: ([], 0)
    )
    try:
        service.watched(True)
        assert _hits(service, "hello") == ["u1"]  # opened and indexed: nothing left
        append_line(path, msg("u2", "a1", "user", "zqunreportedword"))
        assert _hits(service, "zqunreportedword") == []  # not reported: no file looked at
        service.changed()
        assert _hits(service, "zqunreportedword") == ["u2"]

        service.watched(False)  # the watch ended: every search looks again
        append_line(path, msg("u3", "u2", "user", "zqunwatchedword"))
        assert _hits(service, "zqunwatchedword") == ["u3"]
    finally:
        service.close()


def test_a_background_slice_reads_for_its_budget_after_the_stat_pass(tmp_path: Path) -> None:
    # At 100,000 files the stat pass alone outlasted a slice's fixed deadline: each slice read one
    # file and the index was never complete. A budget counts from the pass's end.
    root = tmp_path / "sessions"
    for n in range(3):
        write_session(root / f"--w--/b{n}.jsonl", f"b{n}")
    with SearchIndex([root], tmp_path / "cache") as index:
        assert index.update(deadline=time.monotonic()).pending == 2  # one file at least, no more
    with SearchIndex([root], tmp_path / "cache-budget") as index:
        assert index.update(deadline=time.monotonic(), budget=3600).pending == 0
