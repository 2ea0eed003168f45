"""Render a big session's entries on two cores: a forked child renders from the back, we from the front.

Rendering is pure Python (the GIL rules out threads), and each entry's fragment depends only on
the entry and the read-only render context, so parts can be rendered apart and joined in order
(an entry's result carries its images: nothing else may change in the worker's memory).
Forking is only safe in a process with one thread and no running event loop (a forked child
inherits every lock another thread holds), so it happens only then: not in a server, not while
the page writer's gzip thread runs (the render holds its fragments until the fork is done,
see ``warm_count``), and not when the caller passes ``parallel=False``. Where ``os.fork`` is
missing, the session is small, or the child fails, everything is rendered here, with the same
result.
"""

from __future__ import annotations

import logging
import mmap
import os
import pickle
import signal
import struct
import sys
import tempfile
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any

from sessiontree.exporter.fastlex import expect_bulk
from sessiontree.store.locks import lock_record, unlock_record

log = logging.getLogger(__name__)

PARALLEL_MIN_ENTRIES = 1500
"""Below this, forking costs more than it saves."""

WARM_ENTRIES = 200
"""Entries rendered before forking, to warm the caches (the chunked split evens out the rest)."""

CHUNK = 32
"""Entries per claim after the fork: small enough that neither process waits long at the end."""

WORKERS_ENV = "SESSIONTREE_RENDER_WORKERS"

Rendered = Any
RenderOne = Callable[[int], Rendered]


def _workers() -> int:
    raw = os.environ.get(WORKERS_ENV, "")
    if raw.isdigit():
        return max(1, int(raw))
    return min(2, os.cpu_count() or 1)


def _can_fork() -> bool:
    # Forking is only sound where fork is the native way (not macOS, whose system libraries are
    # not fork-safe), from the main thread of a process that runs no other thread (a lock held by
    # another thread stays held forever in the child) and no event loop (a server's).
    return (
        hasattr(os, "fork")
        and sys.platform.startswith("linux")
        and threading.current_thread() is threading.main_thread()
        and threading.active_count() == 1
        and not _in_event_loop()
    )


def _in_event_loop() -> bool:
    asyncio = sys.modules.get("asyncio")  # not imported: no loop can be running
    return asyncio is not None and asyncio._get_running_loop() is not None


def _will_fork(count: int, parallel: bool) -> bool:
    return parallel and count >= PARALLEL_MIN_ENTRIES and _workers() >= 2 and _can_fork()


def warm_count(count: int, *, parallel: bool = True) -> int:
    """Return how many renders ``render_all`` yields before it forks (0: it will not fork).

    A consumer that starts a thread per render result (the gzip packer) holds that many results
    first, so the process still has one thread when the fork comes.
    """
    if not _will_fork(count, parallel):
        return 0
    return min(count, WARM_ENTRIES)


class _Claims:
    """Chunks of the entries after the warm-up, taken from the front by this process and from the
    back by the worker until they meet: whichever finishes its chunks sooner takes more, so an
    uneven session (a few huge outputs, cached entries, a cold lexer) still ends on both cores
    at once. Two counters in shared memory, changed under a POSIX record lock (per process, so
    the parent and its forked child exclude each other).
    """

    def __init__(self, start: int, end: int, lock_fd: int) -> None:
        self._mem = mmap.mmap(-1, 16)  # anonymous and shared: the child sees the same bytes
        self._fd = lock_fd
        self._set(start, end)

    def _get(self) -> tuple[int, int]:
        front, back = struct.unpack("qq", self._mem[:16])
        return front, back

    def _set(self, front: int, back: int) -> None:
        self._mem[:16] = struct.pack("qq", front, back)

    def take(self, *, from_back: bool) -> range | None:
        """Claim the next chunk (front or back); None when every entry is claimed."""
        lock_record(self._fd)
        try:
            front, back = self._get()
            if front >= back:
                return None
            if from_back:
                lo = max(front, back - CHUNK)
                self._set(front, lo)
                return range(lo, back)
            hi = min(back, front + CHUNK)
            self._set(hi, back)
            return range(front, hi)
        finally:
            unlock_record(self._fd)

    def split(self) -> int:
        """Return where the worker's part begins (after both stopped taking)."""
        return self._get()[1]


def _render_in_child(render: RenderOne, claims: _Claims, out_path: str) -> None:
    """In the forked child: render chunks from the back into ``out_path``, then leave without cleanup.

    The file holds each chunk's records as one pickled list, then the table of contents (chunk
    starts and offsets) and, in its last 8 bytes, where that table begins.
    """
    code = 1
    try:
        chunks: list[tuple[int, int]] = []
        with open(out_path, "wb") as fh:
            while (chunk := claims.take(from_back=True)) is not None:
                chunks.append((chunk.start, fh.tell()))
                pickle.dump([render(i) for i in chunk], fh, protocol=pickle.HIGHEST_PROTOCOL)
            toc_at = fh.tell()
            pickle.dump(sorted(chunks), fh, protocol=pickle.HIGHEST_PROTOCOL)
            fh.write(struct.pack("q", toc_at))
        code = 0
    finally:
        os._exit(code)  # never return into the parent's stack (its handlers, atexit, test runner)


def _read_child(out_path: str) -> Iterator[Rendered]:
    """Yield the child's records in entry order, one chunk in memory at a time."""
    # Our own child wrote this file a moment ago: unpickling it is safe.
    with open(out_path, "rb") as fh:
        fh.seek(-8, os.SEEK_END)
        (toc_at,) = struct.unpack("q", fh.read(8))
        fh.seek(toc_at)
        chunks = pickle.load(fh)
        for _, offset in chunks:
            fh.seek(offset)
            yield from pickle.load(fh)


def render_all(count: int, render: RenderOne, *, parallel: bool = True) -> Generator[Rendered, None, None]:
    """Yield ``render(i)`` for ``i`` in ``range(count)``, in order, on up to two cores.

    A render's result must carry all it changed (an entry's images with it): the worker's
    changes to its own memory are lost when it exits. The first
    entries are rendered here before forking, so both processes start with warm caches
    (compiled lexers, the markdown parser): forking cold would make each pay that cost. After
    the fork this process renders chunks from the front and the worker from the back until
    they meet (``_Claims``). ``parallel=False`` renders everything here.
    """
    warm = warm_count(count, parallel=parallel)
    if not warm:
        for i in range(count):
            yield render(i)
        return
    expect_bulk()  # the warm-up compiles the lexers' fast paths, and the worker inherits them
    for i in range(warm):
        yield render(i)
    if not _can_fork():  # the consumer started a thread (or a loop) meanwhile
        log.debug("rendering serially: another thread runs")
        for i in range(warm, count):
            yield render(i)
        return
    fd, out_path = tempfile.mkstemp(prefix="sessiontree-render-", suffix=".pickle")
    pid = 0
    done = False
    try:
        claims = _Claims(warm, count, fd)
        sys.stdout.flush()
        sys.stderr.flush()
        log.debug("forking a render worker for entries %d-%d", warm, count - 1)
        pid = os.fork()
        if pid == 0:
            _render_in_child(render, claims, out_path)
        while (chunk := claims.take(from_back=False)) is not None:
            for i in chunk:
                yield render(i)
        _, status = os.waitpid(pid, 0)
        done = True
        split = claims.split()
        if os.waitstatus_to_exitcode(status) == 0:
            yield from _read_child(out_path)
        else:
            log.warning("the render worker failed; rendering its part here")
            for i in range(split, count):
                yield render(i)
    finally:
        if pid and not done:  # the consumer stopped early: the worker's part is not wanted
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(fd)
        os.unlink(out_path)
