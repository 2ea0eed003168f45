"""Serve's page renders: one per session state at a time, shared by every client waiting for it,
cancelled when the last of them leaves, and within a memory budget.

Forty clients opening a 220 MB session used to start forty renders, each holding its own pages
in memory until it ended, even for a client long gone. Here the first client's thread renders
and the others wait for its result; a client that leaves says so (``gone``), and a render whose
every client is gone stops at its next entry (``concurrent.futures.CancelledError``) and drops
what it made. Renders of different sessions run together only while the sizes of their files
stay within the budget (one render always may run): memory stays under the budget plus the
largest session being rendered.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc
import os
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from sessiontree.store.foreground import FOREGROUND

T = TypeVar("T")

BUDGET_ENV = "SESSIONTREE_SERVE_RENDER_MB"
DEFAULT_BUDGET_MB = 256
_POLL = 0.05  # how often a waiting client looks whether it left (seconds)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):
        return None  # not glibc: its allocator keeps what it keeps
    return trim


def give_back_memory() -> None:
    """Hand the heap a big render freed back to the system (glibc keeps it for the process else:
    forty renders of a 220 MB session left the server at 2.9 GB). Not while a page's first screen
    is being made: a full collection holds the interpreter (50-100 ms with a 22 MB session loaded),
    and a reader's next page is asked for just as the last one closes."""
    FOREGROUND.pause()
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


MALLOC_ARENAS = 2
"""The heaps glibc keeps for the server's threads (``$MALLOC_ARENA_MAX`` overrides it). By default
it makes one per thread up to eight per core, each keeping what its threads freed: fifty clients
opening fifty sessions at once left the server's peak at 1.38-1.50x one client's, 1.26-1.46x
with two (load 4-10; the GIL lets one thread allocate at a time anyway)."""
_M_ARENA_MAX = -8  # glibc's mallopt parameter


def limit_heaps() -> None:
    """Have glibc keep at most ``MALLOC_ARENAS`` heaps from now on (before the server's threads
    start), unless ``$MALLOC_ARENA_MAX`` says otherwise; nothing elsewhere."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_ARENA_MAX, MALLOC_ARENAS)
    except (OSError, AttributeError):
        return  # not glibc


def budget_bytes() -> int:
    """The file bytes of the sessions rendered at once (``$SESSIONTREE_SERVE_RENDER_MB``, in MB)."""
    raw = os.environ.get(BUDGET_ENV, "")
    return (int(raw) if raw.isdigit() else DEFAULT_BUDGET_MB) * 1024 * 1024


@dataclass(eq=False)
class _Job(Generic[T]):
    done: threading.Event = field(default_factory=threading.Event)
    clients: list[threading.Event] = field(default_factory=list)
    result: T | None = None
    error: BaseException | None = None

    def abandoned(self) -> bool:
        return all(gone.is_set() for gone in self.clients)


def _yielding(job: _Job[object]) -> bool:
    """Whether every client of a render left, asked before each entry: the render waits there
    while another page's first screen is being made (``store.foreground``)."""
    FOREGROUND.pause()
    return job.abandoned()


class Renders:
    """The renders in flight, by what they render (a session's key and state)."""

    def __init__(self, budget: int | None = None, *, running: int = 2) -> None:
        self.budget = budget_bytes() if budget is None else budget
        self.running = running
        """How many renders may run at once (each takes a core)."""
        self._lock = threading.Condition()
        self._jobs: dict[Hashable, _Job[object]] = {}
        self._used = 0
        self._running = 0
        self.started = 0
        """How many renders ran (tests: forty clients, one render)."""

    def render(
        self, key: Hashable, size: int, make: Callable[[Callable[[], bool]], T], gone: threading.Event
    ) -> T:
        """``make(cancelled)``'s result for ``key``: made here, or shared with the client already
        making it. ``gone`` is set when this client leaves; ``cancelled()`` tells ``make`` that
        every client of its render has left. Raises ``CancelledError`` when this client left."""
        while True:
            with self._lock:
                job = self._jobs.get(key)
                owner = job is None
                if job is None:
                    job = self._jobs[key] = _Job()
                job.clients.append(gone)
            if owner:
                return self._make(key, size, make, job)
            while not job.done.wait(_POLL):
                if gone.is_set():
                    raise CancelledError
            if isinstance(job.error, CancelledError) and not gone.is_set():
                # Its clients left before this one came, and it had stopped already: not this
                # client's page to cut short. A render of its own (or of the next one to come).
                continue
            if job.error is not None:
                raise job.error
            return job.result  # type: ignore[return-value]

    def _make(
        self, key: Hashable, size: int, make: Callable[[Callable[[], bool]], T], job: _Job[object]
    ) -> T:
        made = False
        try:
            self._admit(size, job)
            try:
                self.started += 1
                made = True
                result = make(functools.partial(_yielding, job))
                job.result = result
            finally:
                self._release(size)
        except BaseException as exc:
            job.error = exc
            raise
        finally:
            with self._lock:
                del self._jobs[key]
            job.done.set()
            if job.error is not None and made:
                # A cancelled render: what it made is garbage now. Not when it never started: a
                # full collection walks every object of the sessions loaded (0.5 s for a 22 MB
                # one), and a client that left before its render has nothing to give back.
                give_back_memory()
        return result

    def _admit(self, size: int, job: _Job[object]) -> None:
        with self._lock:
            while self._running and (self._running >= self.running or self._used + size > self.budget):
                if job.abandoned():
                    raise CancelledError
                self._lock.wait(_POLL)
            self._used += size
            self._running += 1

    def _release(self, size: int) -> None:
        with self._lock:
            self._used -= size
            self._running -= 1
            self._lock.notify_all()
