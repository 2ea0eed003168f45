"""Bounded reads of regular files: what every reader opens (a session, a database, its companions).

``open_regular`` refuses a named pipe, a socket or a device without blocking (one would hang the
command until a writer came); these read at most a bound of bytes, so a file no agent writes (a
4 GB "chat", ``/dev/zero`` linked in) is one refusal, never a command's whole memory or time.
"""

from __future__ import annotations

import errno
from pathlib import Path

from sessiontree.store.storage import open_regular

MAX_DOCUMENT = 512 << 20
"""The largest one-object JSON file (a chat, a thread, an export) or text history read whole."""


def read_regular(path: str | Path, limit: int = MAX_DOCUMENT) -> bytes:
    """A regular file's bytes; an ``OSError`` saying why for anything else or more than ``limit`` bytes."""
    with open_regular(path) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise OSError(errno.EFBIG, f"it is larger than {limit >> 20} MB", str(path))
    return data


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of a regular file (``OSError`` for anything else)."""
    with open_regular(path) as fh:
        return fh.read(size)
