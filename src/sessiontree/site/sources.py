"""The build's error and the content hash of a session file (the filters are ``archive.collection``'s)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sessiontree.errors import SessiontreeError

_HASH_CHUNK = 1 << 20


class BuildError(SessiontreeError):
    """The build cannot start (bad folder, bad output, bad filter)."""


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
