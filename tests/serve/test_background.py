"""Serve's background loops go on after a failure of one step: it is logged, and the next change or
scan runs the step again (a loop that ended would leave a feature stopped without a word)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

import pytest

from sessiontree.serve.followed import topic_of
from sessiontree.serve.hub import Event
from sessiontree.serve.index_feed import INDEX_TOPIC
from sessiontree.serve.state import ServeState
from sessiontree.serve.watcher import Watcher
from tests.serve.conftest import KEY, append_line, write_session
from tests.store.helpers import msg

pytestmark = pytest.mark.anyio

DEADLINE = 120.0  # a bound for a hung loop, not a timing assertion


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def until(condition: Callable[[], bool], task: asyncio.Task[None], what: str) -> None:
    """Wait for ``condition``; fail at once if the loop ``task`` ended (it must never end)."""
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert not task.done(), f"the loop ended: {what}"
        assert time.monotonic() < deadline, what
        await asyncio.sleep(0.01)


async def stopped(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


class FailsFirst:
    """A stand-in for one step of a loop: raises ``error`` at its first call, then answers ``then()``."""

    def __init__(self, error: Exception, then: Callable[[], Any]) -> None:
        self.error = error
        self.then = then
        self.calls = 0

    def __call__(self, *args: object, **kwargs: object) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise self.error
        return self.then()


async def no_pause(seconds: float) -> None:
    await asyncio.sleep(0)


async def wake_twice(
    loop: Coroutine[Any, Any, None], step: FailsFirst, wake: asyncio.Event, then: Callable[[], bool]
) -> None:
    """Run ``loop`` and wake it twice: its ``step`` fails the first time, runs the second."""
    task = asyncio.create_task(loop)
    try:
        for calls in (1, 2):
            wake.set()

            def stepped(calls: int = calls) -> bool:
                return step.calls == calls and not wake.is_set() and then()

            await until(stepped, task, f"step {calls}")
    finally:
        await stopped(task)


async def test_a_failed_count_pass_is_logged_and_the_next_scan_wakes_the_pass_again(
    sessions_dir: Path, serve_state: ServeState, caplog: pytest.LogCaptureFixture
) -> None:
    state = serve_state
    # the catalog's save, on a file whose name carries an escape sequence
    settle_some = FailsFirst(
        OSError("No space left on device: '/s/\x1b]2;pwned\x07.jsonl'"), lambda: (True, False)
    )
    state.listing.settle_some = settle_some  # type: ignore[method-assign]
    # Woken by a scan that listed a pending file; what a failed pass settled is pushed all the same.
    await wake_twice(
        state._settle_forever(), settle_some, state.listing.unsettled, state.index_feed.dirty.is_set
    )
    assert "background count failed" in caplog.text and "No space left" in caplog.text
    # One line for the terminal serve runs in: no traceback, no escape sequence.
    (record,) = [r for r in caplog.records if "background count failed" in r.getMessage()]
    assert not record.exc_info and "\x1b" not in record.getMessage() and "\n" not in record.getMessage()


async def test_a_failed_search_index_update_is_logged_and_the_next_change_updates_it(
    sessions_dir: Path, serve_state: ServeState, caplog: pytest.LogCaptureFixture
) -> None:
    state = serve_state
    update = FailsFirst(sqlite3.OperationalError("database is locked"), lambda: None)
    state.archive.update_if_open = update  # type: ignore[method-assign]
    state.watcher.pause = no_pause  # type: ignore[method-assign]
    await wake_twice(state._update_archive_forever(), update, state._archive_dirty, lambda: True)
    assert "search index not updated" in caplog.text and "database is locked" in caplog.text


async def test_a_failed_index_push_is_logged_and_the_next_change_is_pushed(
    sessions_dir: Path, serve_state: ServeState, caplog: pytest.LogCaptureFixture
) -> None:
    state = serve_state
    feed = state.index_feed
    queue = state.hub.subscribe(INDEX_TOPIC)
    await feed.first_event()
    scan = FailsFirst(RuntimeError("a bug in a reader"), state.listing.versioned_scan)
    state.listing.versioned_scan = scan  # type: ignore[method-assign]
    task = asyncio.create_task(feed.push_forever(no_pause))
    try:
        feed.dirty.set()
        await until(lambda: scan.calls == 1 and not feed.dirty.is_set(), task, "the first push")
        write_session(sessions_dir / "--work-new--" / "2026-01-03_s3.jsonl", "s3", "/work/new")
        state.listing.changed()
        feed.dirty.set()
        await until(lambda: not queue.empty(), task, "the change pushed")
    finally:
        await stopped(task)
    event = queue.get_nowait()
    assert event is not None and event.name == "index" and "2026-01-03_s3.jsonl" in event.data["html"]
    assert "index not pushed" in caplog.text and "a bug in a reader" in caplog.text


async def test_a_session_that_fails_to_refresh_keeps_neither_the_others_appends_nor_the_index_change(
    sessions_dir: Path, serve_state: ServeState, caplog: pytest.LogCaptureFixture
) -> None:
    state = serve_state
    other = "--work-other--/2026-01-02_s2.jsonl"
    good = state.followed.live(KEY, sessions_dir / KEY)
    good.load()
    broken = state.followed.live(other, sessions_dir / other)

    def refresh() -> list[Event]:
        raise ValueError("cannot read it again")

    broken.refresh = refresh  # type: ignore[method-assign]
    watching = state.hub.subscribe(topic_of(KEY))
    state.hub.subscribe(topic_of(other))
    append_line(sessions_dir / KEY, msg("u2", "a1", "user", "more"))
    # The broken one first: its failure must not end the batch before the good one.
    state.followed.sessions = {other: broken, KEY: good}
    await state.on_changes([sessions_dir / other, sessions_dir / KEY])
    event = watching.get_nowait()
    assert event is not None and event.name == "append" and event.data["count"] == 3
    assert state.index_feed.dirty.is_set() and state._archive_dirty.is_set()
    assert "not refreshed" in caplog.text and "cannot read it again" in caplog.text


async def test_a_failure_to_handle_changes_is_logged_and_the_watch_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    root = tmp_path / "sessions"
    root.mkdir()
    reported: list[list[Path]] = []
    ready = asyncio.Event()
    stop = asyncio.Event()

    async def on_changes(paths: Iterable[Path]) -> None:
        reported.append(list(paths))
        if len(reported) == 1:
            raise ValueError("a bug on the way")  # the first report: every root

    watcher = Watcher([root], on_changes, stop, lambda on: ready.set() if on else None)
    task = asyncio.create_task(watcher.watch_forever())
    try:
        await until(ready.is_set, task, "the watch started")
        (root / "new.jsonl").write_text("{}\n", encoding="utf-8")
        await until(lambda: any(root / "new.jsonl" in paths for paths in reported[1:]), task, "reported")
    finally:
        stop.set()
        await asyncio.wait_for(task, DEADLINE)
    assert "file changes not handled" in caplog.text and "a bug on the way" in caplog.text


async def test_a_database_mirror_that_fails_to_sync_keeps_not_the_next_one_from_syncing(
    serve_state: ServeState, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = serve_state
    first, second = tmp_path / "opencode", tmp_path / "crush"
    synced: list[Path] = []

    def sync_mirror(root: Path) -> None:
        if root == first:
            raise PermissionError(f"[Errno 13] Permission denied: {root}")
        synced.append(root)

    monkeypatch.setattr("sessiontree.serve.state.sync_mirror", sync_mirror)
    state.mirrors = [first, second]
    await state._sync_mirrors()
    assert synced == [second]
    assert "not synced with its database" in caplog.text and "Permission denied" in caplog.text


async def test_a_partial_first_search_wakes_the_updates_which_index_the_rest_in_slices(
    sessions_dir: Path, serve_state: ServeState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54: the first search answers from the newest files and leaves the rest pending; the
    background updates, woken by it, index the rest one slice at a time, and the next search is exact."""
    from sessiontree.archive import index as index_module
    from sessiontree.archive.search import SearchFilters
    from sessiontree.serve import archive_routes

    state = serve_state
    for n in range(4):
        write_session(
            sessions_dir / f"w{n}.jsonl", f"w{n}", "/work/demo", msg(f"z{n}", "a1", "user", "zqslices")
        )
    monkeypatch.setattr(archive_routes, "FIRST_ANSWER_SECONDS", 0.0)  # one file a slice
    monkeypatch.setattr(index_module, "READ_PER_STAT", 0.0)
    state._loop = asyncio.get_running_loop()
    state.watcher.pause = no_pause  # type: ignore[method-assign]
    slices: list[int] = []
    update = state.archive._update

    def counted(index: Any, deadline: float | None = None, budget: float | None = None) -> int:
        slices.append(pending := update(index, deadline, budget))
        return pending

    state.archive._update = counted  # type: ignore[method-assign]
    first = await asyncio.to_thread(state.archive.search, "zqslices", SearchFilters())
    assert first["pending"] > 0 and first["total"] < 4
    task = asyncio.create_task(state._update_archive_forever())
    try:
        await until(lambda: slices[-1] == 0, task, "the rest indexed")
    finally:
        await stopped(task)
    assert len(slices) > 2 and slices == sorted(slices, reverse=True)  # one slice at a time, down to 0
    done = await asyncio.to_thread(state.archive.search, "zqslices", SearchFilters())
    assert done["pending"] == 0 and done["total"] == 4
