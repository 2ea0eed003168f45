"""File locks: the one place ``fcntl`` is used, imported on first lock.

The write paths (appends, rewrites, the share record, a site build) hold ``flock`` locks;
the parallel renderer's chunk counter a ``lockf`` one. Linux and macOS have both. Where
``fcntl`` is missing (Windows) the package still imports and the read-only commands run
(tests/test_portable.py); a command that needs a lock stops with one line saying why.
"""

from __future__ import annotations

from types import ModuleType

from sessiontree.errors import StartFailure


def _fcntl() -> ModuleType:
    try:
        import fcntl
    except ImportError:
        raise StartFailure(
            "This command locks files, which needs Linux or macOS (fcntl); read-only commands work here"
        ) from None
    return fcntl


def lock(fd: int, *, wait: bool = True) -> None:
    """Take the exclusive ``flock`` of an open file; without ``wait``, BlockingIOError if held."""
    fcntl = _fcntl()
    fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)


def unlock(fd: int) -> None:
    """Release the ``flock`` of an open file."""
    fcntl = _fcntl()
    fcntl.flock(fd, fcntl.LOCK_UN)


def lock_record(fd: int) -> None:
    """Take the exclusive ``lockf`` (per process: a forked child and its parent exclude each other)."""
    fcntl = _fcntl()
    fcntl.lockf(fd, fcntl.LOCK_EX)


def unlock_record(fd: int) -> None:
    """Release the ``lockf`` lock."""
    fcntl = _fcntl()
    fcntl.lockf(fd, fcntl.LOCK_UN)
