"""One build of a site at a time: an exclusive lock on a file in the site's state folder."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sessiontree.site.layout import STATE_DIR
from sessiontree.store.locks import lock

LOCK_FILE = f"{STATE_DIR}/build.lock"


@contextmanager
def site_lock(site: Path, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)
