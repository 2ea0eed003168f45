"""One build of a site at a time: an exclusive lock on a file in the site's state folder.

The file holds the pid of the build that holds it, emptied when that build ends whole: a pid found
there by the next build means the last one was killed (or a worker of it), and only then is the
whole site searched for the temp files it left (a walk of every file: 400,000 at 100,000 sessions).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sessiontree.site.layout import STATE_DIR
from sessiontree.store.locks import lock

LOCK_FILE = f"{STATE_DIR}/build.lock"


@dataclass
class Held:
    """What a build holding the lock knows of the one before, and says of itself."""

    unfinished: bool
    """The build before did not end whole (killed, a worker killed, or an error): it may have left temps."""
    whole: bool = False
    """Set by the build when it ended whole (nothing it started was killed)."""


@contextmanager
def site_lock(site: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[Held]:
    """Hold the site's build lock; if another build holds it, say so through ``on_wait`` and wait.

    The kernel drops the lock when its holder dies, so a killed build never leaves the site locked.
    """
    path = site / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            lock(fd, wait=False)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            if on_wait is not None:
                on_wait(f"Another build is writing {site} (pid {holder}); waiting for it to finish")
            lock(fd)
        held = Held(unfinished=bool(os.pread(fd, 32, 0).strip()))
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield held
        if held.whole:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)
