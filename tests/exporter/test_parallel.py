"""The two-core render gives exactly the page a serial render gives."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path

import pytest

from sessiontree.exporter import RenderOptions, iter_page, parallel, render_session, render_session_html
from sessiontree.exporter.parallel import render_all
from sessiontree.store import load_session
from tests.conftest import GenSession


def test_parallel_and_serial_pages_are_identical(
    gen_session: GenSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_path = gen_session(150, blobs=True)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 10)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    forked = render_session_html(load_session(session_path))
    monkeypatch.setenv(parallel.WORKERS_ENV, "1")
    serial = render_session_html(load_session(session_path))
    assert forked == serial
    assert "data:image/png;base64," in forked  # images found by the child reach the page


def test_a_failing_worker_falls_back_to_rendering_here(monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 2)
    monkeypatch.setattr(parallel, "WARM_ENTRIES", 3)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")

    def render(i: int) -> tuple[dict[str, int], str]:
        if os.getpid() != parent:
            raise RuntimeError("worker breaks")
        return {"i": i}, f"<p>{i}</p>"

    out = list(render_all(10, render))
    assert out == [({"i": i}, f"<p>{i}</p>") for i in range(10)]


@pytest.mark.fresh_process
def test_a_slow_front_leaves_more_to_the_worker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Chunks go to whichever process is free: while this one is stuck, the worker takes the rest."""
    parent = os.getpid()
    count = 400
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 2)
    monkeypatch.setattr(parallel, "WARM_ENTRIES", 10)
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    warm = parallel.warm_count(count)
    progress = tmp_path / "worker-rendered"
    assert threading.active_count() == 1, "another test left a thread running: the render cannot fork"

    def render(i: int) -> tuple[int, int]:
        if os.getpid() != parent:
            with progress.open("a") as fh:
                fh.write(".")
        elif i == warm:  # the first entry after the fork waits until the worker did 3/4 of the rest
            deadline = time.monotonic() + 120
            while not progress.exists() or len(progress.read_text()) < (count - warm) * 3 // 4:
                assert time.monotonic() < deadline, "the worker made no progress"
                time.sleep(0.01)
        return i, os.getpid()

    out = list(render_all(count, render))
    assert [i for i, _ in out] == list(range(count))
    by_worker = sum(1 for _, pid in out if pid != parent)
    assert by_worker >= (count - warm) * 3 // 4
    assert out[warm][1] == parent


def test_small_sessions_render_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def render(i: int) -> tuple[int, str]:
        calls.append(os.getpid())
        return i, str(i)

    assert [m for m, _ in render_all(5, render)] == [0, 1, 2, 3, 4]
    assert set(calls) == {os.getpid()}


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every session of this test big enough to fork; record the thread count at each fork."""
    seen: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        seen.append(threading.active_count())
        return real_fork()

    monkeypatch.setattr(parallel, "PARALLEL_MIN_ENTRIES", 10)
    monkeypatch.setattr(parallel, "WARM_ENTRIES", 70)  # more than one gzip batch before the fork
    monkeypatch.setenv(parallel.WORKERS_ENV, "2")
    monkeypatch.setattr(os, "fork", fork)  # the module parallel.py forks through
    return seen


def page_of(path: Path, options: RenderOptions | None = None) -> str:
    return "".join(iter_page(render_session(load_session(path), options)))


@pytest.mark.fresh_process
def test_the_render_forks_before_any_thread_starts(gen_session: GenSession, forks: list[int]) -> None:
    path = gen_session(150, blobs=True)
    assert threading.active_count() == 1, "another test left a thread running"
    forked = page_of(path)
    assert forks == [1]  # the gzip thread starts only after the fork
    assert forked == page_of(path, RenderOptions(parallel=False))


def test_no_fork_while_another_thread_runs(gen_session: GenSession, forks: list[int]) -> None:
    path = gen_session(150)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        page = page_of(path)
    finally:
        stop.set()
        other.join()
    assert forks == []
    assert page == page_of(path, RenderOptions(parallel=False))


def test_no_fork_when_turned_off_or_inside_an_event_loop(gen_session: GenSession, forks: list[int]) -> None:
    path = gen_session(150)
    page_of(path, RenderOptions(parallel=False))

    async def in_a_server() -> str:
        return page_of(path)

    asyncio.run(in_a_server())
    assert forks == []
