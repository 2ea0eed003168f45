"""Where things go in a built site, and the atomic writes every output file goes through."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path

STATE_DIR = ".sessiontree"
"""The builder's own files inside the site: the manifest and the search records."""

MANIFEST = f"{STATE_DIR}/manifest.json"
RECORDS_DIR = f"{STATE_DIR}/records"
SESSIONS_DIR = "sessions"
ASSETS_DIR = "assets"
TEMP_PREFIX = ".st-tmp-"
"""Temp files carry this prefix, so a build interrupted by SIGKILL leaves names the next one removes."""

_SAFE_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_UNSAFE_CHAR = re.compile(r"[^A-Za-z0-9._-]")


def _safe_segment(segment: str) -> str:
    if _SAFE_SEGMENT.fullmatch(segment):
        return segment
    digest = hashlib.sha256(segment.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    cleaned = _UNSAFE_CHAR.sub("_", segment).lstrip("._-")[:80]
    return f"{cleaned}-{digest}" if cleaned else digest


def page_path(key: str) -> str:
    """The site-relative page of a session key (``a/b.jsonl`` -> ``sessions/a/b.html``), URL-safe."""
    parts = key.split("/")
    stem = parts[-1][: -len(".jsonl")] if parts[-1].endswith(".jsonl") else parts[-1]
    return "/".join([SESSIONS_DIR, *(_safe_segment(p) for p in parts[:-1]), _safe_segment(stem) + ".html"])


def records_path(key: str) -> str:
    """The site-relative file holding a session's search records."""
    return f"{RECORDS_DIR}/{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}.json.gz"


def write_atomic(path: Path, data: bytes | Iterable[str]) -> None:
    """Write bytes (or text chunks, as UTF-8) through a temp file, fsync and rename.

    A reader sees the old file or the new one, never a part; an interruption leaves a temp file
    named with ``TEMP_PREFIX`` that ``remove_stale_temps`` clears.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX + path.name + ".")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # pages are meant to be read (mkstemp makes 0600)
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
            else:
                for chunk in data:
                    fh.write(chunk.encode("utf-8", "replace"))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temps(site: Path) -> int:
    """Delete temp files that an interrupted build left behind; return how many."""
    removed = 0
    for tmp in site.rglob(TEMP_PREFIX + "*"):
        if tmp.is_file() and not tmp.is_symlink():
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed
