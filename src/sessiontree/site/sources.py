"""The content hash of a session file, which the manifest records."""

from __future__ import annotations

import hashlib
from pathlib import Path

_HASH_CHUNK = 1 << 20


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks (of the whole file for one session of it:
    ``store.parts``)."""
    from sessiontree.store.parts import split_part

    digest = hashlib.sha256()
    with split_part(path)[0].open("rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
