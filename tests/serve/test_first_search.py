"""Issue 54: a fresh server's first search answers from what is indexed, saying how many files are
left, even while the index's update still walks the folders; a search never waits for the update
that holds the index's writing connection; the answers end complete and exact."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sessiontree.archive import index as index_module
from sessiontree.archive import index_file
from sessiontree.archive.index_db import UpdateReport
from sessiontree.archive.search import SearchFilters
from sessiontree.archive.session_files import iter_session_files
from sessiontree.archive.usage_query import RecordsAnswers
from sessiontree.serve import archive_routes
from sessiontree.serve.archive_routes import ArchiveService
from tests.serve.conftest import write_session
from tests.serve.process import serve_process
from tests.store.helpers import msg

HANG = 120.0
"""A bound for a hung thread or server on a loaded machine (never reached when all is well)."""


def _service(root: Path, cache: Path, listed: int = 0) -> ArchiveService:
    return ArchiveService(
        [root],
        cache,
        link_for=lambda p, entry: entry,
        usage_so_far=lambda: (RecordsAnswers([]), 0),
        file_count=lambda: listed,
    )


def _write(root: Path, names: range, word: str) -> list[str]:
    for n in names:
        write_session(root / f"--w--/f{n}.jsonl", f"f{n}", "/work/demo", msg(f"z{n}", "a1", "user", word))
    return [f"z{n}" for n in names]


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """(reached, go): the index's walk of the folders waits for ``go`` after setting ``reached``."""
    reached, go = threading.Event(), threading.Event()

    walk = index_module.walk_files

    def gated(roots: Any, report: UpdateReport) -> dict[str, Path]:
        reached.set()
        assert go.wait(HANG)
        return walk(roots, report)

    monkeypatch.setattr(index_module, "walk_files", gated)
    yield reached, go
    go.set()


def test_a_search_answers_while_the_update_still_walks_the_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gate: tuple[threading.Event, threading.Event]
) -> None:
    reached, go = gate
    root, cache = tmp_path / "sessions", tmp_path / "cache"
    first = _write(root, range(2), "zqwalkword")
    go.set()
    service = _service(root, cache, listed=5)
    try:
        assert sorted(h["href"] for h in service.search("zqwalkword", SearchFilters())["hits"]) == first
    finally:
        service.close()
    more = _write(root, range(2, 5), "zqwalkword")
    go.clear()
    reached.clear()
    monkeypatch.setattr(archive_routes, "ANSWER_SECONDS", 0.0)
    service = _service(root, cache, listed=5)  # a fresh server over the index kept from the last run
    try:
        found = service.search("zqwalkword", SearchFilters())
        assert reached.wait(HANG) and not go.is_set()  # answered before its update's walk could end
        # From the index as it is: the two files indexed before; left: what the listing knows less that.
        assert sorted(h["href"] for h in found["hits"]) == first and found["pending"] == 3
        go.set()
        deadline = time.monotonic() + HANG
        while (found := service.search("zqwalkword", SearchFilters()))["pending"]:
            assert time.monotonic() < deadline, found
        assert sorted(h["href"] for h in found["hits"]) == first + more and found["total"] == 5
    finally:
        service.close()


def test_a_search_never_waits_for_the_update_that_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    first = _write(root, range(2), "zqwriterword")
    service = _service(root, tmp_path / "cache")
    reading, go = threading.Event(), threading.Event()
    read = index_file.update_file

    def slow(conn: Any, path: Path, report: Any) -> None:
        if path.name == "f2.jsonl":
            reading.set()
            assert go.wait(HANG)
        read(conn, path, report)

    try:
        assert len(service.search("zqwriterword", SearchFilters())["hits"]) == 2
        monkeypatch.setattr(index_file, "update_file", slow)
        monkeypatch.setattr(archive_routes, "ANSWER_SECONDS", 0.0)
        _write(root, range(2, 3), "zqwriterword")
        slice_ = threading.Thread(target=service.update_if_open)  # a background slice: f2 hangs
        slice_.start()
        assert reading.wait(HANG)
        found = service.search("zqwriterword", SearchFilters())  # the slice holds the writer meanwhile
        assert sorted(h["href"] for h in found["hits"]) == first and found["pending"] >= 1
        assert not go.is_set() and slice_.is_alive()
        go.set()
        slice_.join(HANG)
        assert len(service.search("zqwriterword", SearchFilters())["hits"]) == 3
    finally:
        go.set()
        service.close()


def test_a_fresh_server_answers_its_first_search_then_completes_it_exact(tmp_path: Path) -> None:
    """A real serve over 300 sessions: every answer holds only sessions with the word and says how many
    files are left; asked again until none is, the last one holds every session with it."""
    agent, root = tmp_path / "agent", tmp_path / "agent" / "sessions"
    holding = _write(root, range(0, 300, 3), "zqprocessword")
    for n in range(300):
        if n % 3:
            write_session(
                root / f"--w--/f{n}.jsonl", f"f{n}", "/work/demo", msg(f"z{n}", "a1", "user", "other")
            )
    with serve_process(root, agent, tmp_path / "cache") as served:
        answers = []
        deadline = time.monotonic() + HANG
        with httpx.Client(base_url=served.url, timeout=HANG) as client:
            while True:
                found = client.get("/api/search", params={"q": "zqprocessword", "limit": 100}).json()
                answers.append(found)
                ids = [h["href"].rsplit("targetId=", 1)[1] for h in found["hits"]]
                assert set(ids) <= set(holding) and len(ids) == found["total"]
                assert 0 <= found["pending"] <= 300
                if found["pending"] == 0:
                    break
                assert time.monotonic() < deadline, answers[-1]
        assert sorted(ids) == sorted(holding) and answers[-1]["sessions"] == 100
        totals = [a["total"] for a in answers]
        assert totals == sorted(totals)  # never fewer than before
        assert served.stop() == 0


def test_while_the_walk_runs_a_search_counts_the_files_it_found_so_far(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    _write(root, range(5), "zqcountword")
    reached, go = threading.Event(), threading.Event()

    def halting(folder: Path) -> Any:
        for n, found in enumerate(iter_session_files(folder)):
            if n == 3:
                reached.set()
                assert go.wait(HANG)
            yield found

    monkeypatch.setattr(index_module, "iter_session_files", halting)
    monkeypatch.setattr(archive_routes, "ANSWER_SECONDS", 0.0)
    service = _service(root, tmp_path / "cache")  # no listing yet: the walk's count alone
    try:
        service.search("zqcountword", SearchFilters())  # starts the update, whose walk halts at 3
        assert reached.wait(HANG)
        found = service.search("zqcountword", SearchFilters())
        assert found["pending"] == 3 and found["hits"] == []  # 3 found so far, none indexed
        go.set()
        deadline = time.monotonic() + HANG
        while (found := service.search("zqcountword", SearchFilters()))["pending"]:
            assert time.monotonic() < deadline, found
        assert found["total"] == 5
    finally:
        go.set()
        service.close()
