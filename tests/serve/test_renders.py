"""Serve's shared renders: one render for every client waiting, stopped when they all leave, and a
budget of file bytes rendered at once; and a page naming thousands of models looks few of them up."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError

import pytest

from sessiontree.serve.renders import Renders

DEADLINE = 120.0


def wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_clients_of_one_state_share_one_render() -> None:
    renders = Renders(budget=10)
    release = threading.Event()
    results: list[object] = []

    def make(cancelled: object) -> object:
        release.wait(DEADLINE)
        return "page"

    clients = [
        threading.Thread(target=lambda: results.append(renders.render("k", 5, make, threading.Event())))
        for _ in range(40)
    ]
    for thread in clients:
        thread.start()
    wait_for(lambda: "k" in renders._jobs and len(renders._jobs["k"].clients) == 40, "all waiting")
    release.set()
    for thread in clients:
        thread.join(DEADLINE)
    assert results == ["page"] * 40 and renders.started == 1


def test_a_render_every_client_left_stops_and_the_next_one_runs() -> None:
    renders = Renders(budget=10)
    stopped = threading.Event()

    asked = threading.Event()
    polls = [0]

    def endless(cancelled: object) -> object:
        while not cancelled():  # type: ignore[operator]
            if asked.is_set():
                polls[0] += 1
            time.sleep(0.005)
        stopped.set()
        raise CancelledError

    gone = [threading.Event() for _ in range(3)]
    errors: list[BaseException] = []

    def client(mine: threading.Event) -> None:
        try:
            renders.render("k", 5, endless, mine)
        except CancelledError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(g,)) for g in gone]
    for thread in threads:
        thread.start()
    wait_for(lambda: "k" in renders._jobs and len(renders._jobs["k"].clients) == 3, "three clients")
    gone[0].set()
    gone[1].set()
    asked.set()
    # The second poll counted began after the first one's count, so after two clients had left.
    wait_for(lambda: polls[0] >= 2, "the render asked whether its clients left")
    assert not stopped.is_set()  # one client still waits: the render goes on
    gone[2].set()
    for thread in threads:
        thread.join(DEADLINE)
    assert stopped.is_set() and len(errors) == 3 and not renders._jobs and renders._used == 0
    assert renders.render("k", 5, lambda cancelled: "fresh", threading.Event()) == "fresh"


def test_a_client_that_comes_as_a_left_render_stops_gets_a_render_of_its_own() -> None:
    # The last client left, the render saw it and stopped; a client for the same state joined it
    # before it was dropped, and got its CancelledError: its page was cut short after the first chunk.
    renders = Renders(budget=10)
    left = threading.Event()
    results: list[object] = []

    def late_client() -> None:
        try:
            results.append(renders.render("k", 1, lambda cancelled: "page", threading.Event()))
        except CancelledError:
            results.append("cut short")

    late = threading.Thread(target=late_client)

    def stopping(cancelled: Callable[[], bool]) -> object:
        left.set()  # its only client leaves
        assert cancelled()
        late.start()  # a client for the same state comes before the render is dropped
        wait_for(lambda: len(renders._jobs["k"].clients) == 2, "the late client joined")
        raise CancelledError

    with pytest.raises(CancelledError):
        renders.render("k", 1, stopping, left)
    late.join(DEADLINE)
    assert results == ["page"] and renders.started == 2 and not renders._jobs


def test_renders_wait_within_the_budget_but_one_always_runs() -> None:
    renders = Renders(budget=100, running=4)
    inside: list[int] = []
    most = [0]
    lock = threading.Lock()

    def make(size: int) -> object:
        def run(cancelled: object) -> object:
            with lock:
                inside.append(size)
                most[0] = max(most[0], sum(inside))
            time.sleep(0.05)
            with lock:
                inside.remove(size)
            return size

        return run

    sizes = [60, 60, 250, 30, 30]
    threads = [
        threading.Thread(target=renders.render, args=(f"k{i}", size, make(size), threading.Event()))
        for i, size in enumerate(sizes)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert most[0] <= 250  # never over the budget, but for one session alone bigger than it


def test_a_render_waits_between_entries_while_another_page_makes_its_first_screen() -> None:
    from sessiontree.store.foreground import FOREGROUND

    renders = Renders(budget=10)
    entries: list[int] = []

    def make(cancelled: object) -> object:
        for n in range(3):
            if cancelled():  # type: ignore[operator]
                return None
            entries.append(n)
        return "page"

    before = FOREGROUND.paused
    results: list[object] = []
    with FOREGROUND.serving():
        worker = threading.Thread(
            target=lambda: results.append(renders.render("k", 1, make, threading.Event()))
        )
        worker.start()
        wait_for(lambda: FOREGROUND.paused > before, "the render paused")
        assert entries == [] and worker.is_alive()
    worker.join(DEADLINE)
    assert entries == [0, 1, 2] and results == ["page"]


def test_a_first_chunk_is_made_while_the_background_pauses() -> None:
    from types import SimpleNamespace

    from sessiontree.serve.pages import first_chunk
    from sessiontree.store.foreground import FOREGROUND

    seen: list[bool] = []

    def parts() -> object:
        seen.append(FOREGROUND.busy)
        yield "head"
        seen.append(FOREGROUND.busy)
        yield "rest"

    def make() -> object:
        seen.append(FOREGROUND.busy)
        return SimpleNamespace(chunks=parts())

    _page, chunks, first = first_chunk(make)  # type: ignore[arg-type]
    assert first == "head" and seen == [True, True] and not FOREGROUND.busy
    assert next(chunks) == "rest" and seen == [True, True, False]


def test_a_cancelled_render_gives_memory_back_only_once_no_first_screen_is_being_made() -> None:
    from sessiontree.store.foreground import FOREGROUND

    renders = Renders(budget=10)
    gone = threading.Event()
    started = threading.Event()
    ended: list[str] = []

    def endless(cancelled: object) -> object:
        started.set()
        gone.wait(DEADLINE)  # (not cancelled(): it would pause there first)
        raise CancelledError

    def client() -> None:
        try:
            renders.render("k", 1, endless, gone)
        except CancelledError:
            ended.append("cancelled")

    worker = threading.Thread(target=client)
    worker.start()
    started.wait(DEADLINE)
    before = FOREGROUND.paused
    with FOREGROUND.serving():
        gone.set()  # the client left: the render stops, its memory is given back after the screen
        wait_for(lambda: FOREGROUND.paused > before and "k" not in renders._jobs, "the give-back waits")
        assert worker.is_alive() and ended == []
    worker.join(DEADLINE)
    assert ended == ["cancelled"]
