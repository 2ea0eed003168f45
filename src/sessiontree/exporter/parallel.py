"""Render a big session's entries on two cores: a forked child renders the second half.

Rendering is pure Python (the GIL rules out threads), and each entry's fragment depends only on
the entry and the read-only render context, so halves can be rendered apart and joined in order.
Forking is only safe in a process with one thread and no running event loop (a forked child
inherits every lock another thread holds), so it happens only then: not in a server, not while
the page writer's gzip thread runs (the render holds its fragments until the fork is done,
see ``warm_count``), and not when the caller passes ``parallel=False``. Where ``os.fork`` is
missing, the session is small, or the child fails, everything is rendered here, with the same
result.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

log = logging.getLogger(__name__)

PARALLEL_MIN_ENTRIES = 1500
"""Below this, forking costs more than it saves."""

WARM_ENTRIES = 200
"""Entries rendered before forking (at least; 5% of a big session), to warm the caches."""

WORKERS_ENV = "SESSIONTREE_RENDER_WORKERS"

Rendered = tuple[Any, str]
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
    return min(count, max(WARM_ENTRIES, count // 20))


def _render_in_child(
    render: RenderOne, indices: Sequence[int], images: Callable[[], dict[str, str]], out_path: str
) -> None:
    """In the forked child: render into ``out_path`` record by record, then leave without cleanup."""
    code = 1
    try:
        with open(out_path, "wb") as fh:
            for i in indices:
                pickle.dump(render(i), fh, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(images(), fh, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:
        os._exit(code)  # never return into the parent's stack (its handlers, atexit, test runner)


def _read_child(out_path: str, count: int, images: dict[str, str]) -> Iterator[Rendered]:
    """Yield the child's records one at a time (never all of them in memory), then merge its images."""
    with open(out_path, "rb") as fh:
        for _ in range(count):
            yield pickle.load(fh)  # our own child wrote it a moment ago
        images.update(pickle.load(fh))


def render_all(
    count: int, render: RenderOne, *, images: Callable[[], dict[str, str]], parallel: bool = True
) -> Iterator[Rendered]:
    """Yield ``render(i)`` for ``i`` in ``range(count)``, in order, on up to two cores.

    ``images`` returns the image map the renders fill; the child's is merged into it. The first
    entries are rendered here before forking, so both processes start with warm caches
    (compiled lexers, the markdown parser): forking cold would make each pay that cost.
    ``parallel=False`` renders everything here.
    """
    warm = warm_count(count, parallel=parallel)
    if not warm:
        for i in range(count):
            yield render(i)
        return
    for i in range(warm):
        yield render(i)
    if not _can_fork():  # the consumer started a thread (or a loop) meanwhile
        log.debug("rendering serially: another thread runs")
        for i in range(warm, count):
            yield render(i)
        return
    split = warm + (count - warm) // 2
    fd, out_path = tempfile.mkstemp(prefix="sessiontree-render-", suffix=".pickle")
    os.close(fd)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        log.debug("forking a render worker for entries %d-%d", split, count - 1)
        pid = os.fork()
        if pid == 0:
            _render_in_child(render, range(split, count), images, out_path)
        try:
            for i in range(warm, split):
                yield render(i)
        finally:
            _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            yield from _read_child(out_path, count - split, images())
        else:
            log.warning("the render worker failed; rendering its half here")
            for i in range(split, count):
                yield render(i)
    finally:
        os.unlink(out_path)
