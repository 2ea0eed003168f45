"""Background passes pause while a page's first screen is being made (states, not timings)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from sessiontree.archive.line_scan import scan_file
from sessiontree.store.foreground import FOREGROUND, Foreground
from sessiontree.store.tail import CHUNK, TailReader

WAIT = 120.0  # seconds a state may take to come on a busy machine (never reached when it is right)


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, "state not reached"
        time.sleep(0.005)


def test_a_pause_waits_while_another_thread_serves_and_goes_on_when_it_ends() -> None:
    gate = Foreground()
    waited: list[bool] = []
    with gate.serving():
        assert gate.busy
        worker = threading.Thread(target=lambda: waited.append(gate.pause(limit=WAIT)))
        worker.start()
        wait_until(lambda: gate.paused == 1)
        assert worker.is_alive()  # held while the first screen is being made
    worker.join(WAIT)
    assert not worker.is_alive() and waited == [True]
    assert not gate.busy


def test_no_pause_when_idle_nor_in_a_serving_thread() -> None:
    gate = Foreground()
    assert gate.pause() is False
    with gate.serving(), gate.serving():  # nested: still serving, never waits for itself
        assert gate.pause(limit=WAIT) is False
    assert gate.paused == 0 and not gate.busy


def test_a_pause_has_a_limit_however_long_the_serving() -> None:
    gate = Foreground()
    with gate.serving():
        done: list[bool] = []
        worker = threading.Thread(target=lambda: done.append(gate.pause(limit=0.0)))
        worker.start()
        worker.join(WAIT)
        assert done == [True]  # waited (at most its limit) and went on while still serving


def _big_session(path: Path) -> None:
    line = b'{"type":"message","id":"%08d","parentId":null,"message":{"role":"user","content":"%s"}}\n'
    with open(path, "wb") as fh:
        fh.write(b'{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/"}\n')
        n = 0
        while fh.tell() < 3 * CHUNK:
            fh.write(line % (n, b"x" * 2000))
            n += 1


def test_a_background_read_stops_between_chunks_while_a_first_screen_is_made(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_session(path)
    read: list[int] = []
    before = FOREGROUND.paused

    def background() -> None:
        for _line in TailReader(path).read_all(yielding=True):
            read.append(1)

    with FOREGROUND.serving():
        worker = threading.Thread(target=background)
        worker.start()
        wait_until(lambda: FOREGROUND.paused > before)
        held = len(read)
        assert worker.is_alive() and 0 < held < path.read_bytes().count(b"\n")
    worker.join(WAIT)
    assert len(read) == path.read_bytes().count(b"\n")


def test_a_read_for_a_page_never_pauses(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_session(path)
    before = FOREGROUND.paused
    with FOREGROUND.serving():
        # Another thread serves: a page's own load (not yielding) reads on.
        other = threading.Thread(target=lambda: sum(1 for _ in TailReader(path).read_all()))
        other.start()
        other.join(WAIT)
        assert not other.is_alive()
    assert FOREGROUND.paused == before


def test_the_listing_count_pass_yields(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    _big_session(path)
    before = FOREGROUND.paused
    counted: list[int] = []
    with FOREGROUND.serving():
        worker = threading.Thread(target=lambda: counted.append(scan_file(path, None).messages))
        worker.start()
        wait_until(lambda: FOREGROUND.paused > before)
        assert worker.is_alive() and not counted
    worker.join(WAIT)
    assert counted and counted[0] > 0


def test_a_serving_thread_waiting_for_a_paused_threads_lock_lends_it_its_turn() -> None:
    gate = Foreground()
    lock = threading.Lock()
    holding = threading.Event()

    def background() -> None:
        with lock:
            holding.set()
            gate.pause(limit=WAIT)  # paused while holding: the server below needs the lock

    with gate.serving():
        worker = threading.Thread(target=background)
        worker.start()
        holding.wait(WAIT)
        wait_until(lambda: gate.paused == 1)
        gate.acquire(lock)  # returns only because the paused holder went on
        assert gate.busy  # serving again once it holds the lock
        lock.release()
    worker.join(WAIT)
    assert not worker.is_alive()


def test_a_page_load_in_the_background_pauses_while_another_first_screen_is_made(tmp_path: Path) -> None:
    from sessiontree.serve.live import LiveSession

    path = tmp_path / "big.jsonl"
    _big_session(path)
    live = LiveSession(path, agent_dir=None, image_prefix="/blobs/")
    before = FOREGROUND.paused
    with FOREGROUND.serving():
        worker = threading.Thread(target=live.snapshot)
        worker.start()
        wait_until(lambda: FOREGROUND.paused > before)
        assert worker.is_alive() and not live.loaded
    worker.join(WAIT)
    assert live.loaded and live.snapshot().count == path.read_bytes().count(b"\n") - 1
