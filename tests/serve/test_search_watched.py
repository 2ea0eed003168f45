"""A watched server's search looks at the files again only when the watcher reported a change:
a warm search costs its query, not a stat of every file of the archive."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from sessiontree.archive.search import SearchFilters, SearchIndex
from sessiontree.archive.usage_query import RecordsAnswers
from sessiontree.serve import archive_routes
from sessiontree.serve.archive_routes import ArchiveService
from tests.serve.conftest import KEY, append_line, write_session
from tests.store.helpers import msg


def _hits(service: ArchiveService, word: str) -> list[str]:
    return [hit["href"] for hit in service.search(word, SearchFilters())["hits"]]


def test_a_watched_search_indexes_again_only_after_a_reported_change(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    path = write_session(root / KEY, "s1")
    service = ArchiveService(
        [root],
        tmp_path / "cache",
        link_for=lambda p, entry: entry,
        usage_so_far=lambda: (RecordsAnswers([]), 0),
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


def test_while_the_background_indexes_a_search_answers_from_the_index_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    for n in range(3):
        write_session(root / f"--w--/b{n}.jsonl", f"b{n}")
    monkeypatch.setattr(archive_routes, "FIRST_ANSWER_SECONDS", -1.0)  # one file, the rest left
    woken: list[int] = []
    service = ArchiveService(
        [root],
        tmp_path / "cache",
        link_for=lambda p, entry: entry,
        usage_so_far=lambda: (RecordsAnswers([]), 0),
        on_pending=lambda: woken.append(1),
    )
    try:
        service.indexing = True
        first = service.search("hello", SearchFilters())
        assert first["pending"] == 2 and first["total"] == 1 and woken == [1]
        again = service.search("hello", SearchFilters())  # no pass of its own: as it was
        assert again["pending"] == 2 and again["total"] == 1 and woken == [1, 1]
        service.update_if_open()  # the background's slices
        done = service.search("hello", SearchFilters())
        assert done["pending"] == 0 and done["total"] == 3
    finally:
        service.close()
