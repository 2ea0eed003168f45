"""Whole-file writes that a reader never sees half done: temp file, fsync, rename.

Temp files carry ``TEMP_PREFIX``, so what a killed process leaves behind is recognised and
removed by ``remove_stale_temps`` (never a user's own file).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from sessiontree.store.surrogates import SURROGATES

TEMP_PREFIX = ".st-tmp-"


def write_atomic(path: Path, data: bytes | str | Iterable[str], *, readable: bool = True) -> None:
    """Replace ``path`` with bytes, or text (UTF-8, lone surrogates as U+FFFD), all at once.

    ``readable`` gives the file the usual mode (umask applied) instead of mkstemp's 0600.
    On any failure the temp file is removed and ``path`` is left as it was.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{TEMP_PREFIX}{path.name}.")
    try:
        if readable:
            umask = os.umask(0)
            os.umask(umask)
            os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
            else:
                for chunk in [data] if isinstance(data, str) else data:
                    fh.write(chunk.encode("utf-8", SURROGATES))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temps(folder: Path) -> int:
    """Delete the temp files that interrupted writes left anywhere under ``folder``; return how many."""
    removed = 0
    for tmp in folder.rglob(TEMP_PREFIX + "*"):
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed
