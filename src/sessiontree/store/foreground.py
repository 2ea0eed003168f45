"""Work a reader is waiting for goes first: background passes pause while a page's first screen is
being made.

Python runs one thread at a time: a server's background pass over a big file (the listing's
counts and usage, another page's load or render) took the interpreter from the request of a
reader who waits for a page, 5 ms at a time at every switch, and a 100 MB session's first
screen took 1.1-1.4 s instead of 0.5. A request marks the time it makes its first screen
(``serving``); a background loop calls ``pause`` between its steps (``TailReader.read_all``
between chunks, a shared render between entries) and sleeps while a first screen is being made,
so the request runs alone. A thread that is serving never waits for itself or another server,
one that needs a lock a paused thread holds lends it its turn (``acquire``), and no pause lasts
longer than ``MAX_PAUSE`` (a stream of requests slows a pass; it never stops
it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

MAX_PAUSE = 2.0
"""Seconds one ``pause`` waits at most, however many first screens follow each other."""


class Foreground:
    """How many first screens are being made now, and the background's waits for none."""

    def __init__(self) -> None:
        self._idle = threading.Condition()
        self._serving = 0
        self._local = threading.local()
        self.paused = 0
        """How many times a background step waited (tests: a pass did yield)."""

    @property
    def busy(self) -> bool:
        """Whether a first screen is being made."""
        return self._serving > 0

    @contextmanager
    def serving(self) -> Iterator[None]:
        """Mark this thread's work as what a reader waits for while the block runs."""
        nested = getattr(self._local, "serving", False)
        with self._idle:
            self._serving += 1
        self._local.serving = True
        try:
            yield
        finally:
            self._local.serving = nested
            with self._idle:
                self._serving -= 1
                if not self._serving:
                    self._idle.notify_all()

    def acquire(self, lock: threading.Lock) -> None:
        """Take ``lock``, which a paused background thread may hold (a page's load): a serving
        thread waiting for it stops counting as serving meanwhile, so the holder goes on."""
        if lock.acquire(blocking=False):
            return
        if not getattr(self._local, "serving", False):
            lock.acquire()
            return
        with self._idle:
            self._serving -= 1
            if not self._serving:
                self._idle.notify_all()
        try:
            lock.acquire()
        finally:
            with self._idle:
                self._serving += 1

    def pause(self, limit: float = MAX_PAUSE) -> bool:
        """Wait (at most ``limit`` seconds) while a first screen is being made by another thread;
        True when this step waited."""
        if not self._serving or getattr(self._local, "serving", False):
            return False  # the common case costs one attribute read
        with self._idle:
            if not self._serving:
                return False
            self.paused += 1
            self._idle.wait_for(lambda: not self._serving, timeout=limit)
        return True


FOREGROUND = Foreground()
"""The process's one gate: a server's requests mark it, every background reader looks at it."""
