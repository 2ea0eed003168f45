"""The global content-addressed blob store and the image-block externalise/resolve helpers."""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.store.atomic import write_atomic
from sessiontree.store.entries import BLOB_REF_PREFIX, Entry
from sessiontree.store.storage import entry_is, open_regular, read_reason

log = logging.getLogger(__name__)

BLOB_EXTERNALIZE_THRESHOLD = 1024
"""Base64 length from which an image block is moved to the blob store."""

_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True, slots=True)
class BlobPut:
    """Where a put landed: the hex digest, the file path and the ``blob:sha256:`` reference."""

    hash: str
    path: Path
    ref: str


def is_blob_ref(value: object) -> bool:
    """Tell whether a value is a ``blob:sha256:<64 hex>`` reference."""
    return (
        isinstance(value, str)
        and value.startswith(BLOB_REF_PREFIX)
        and len(value) == len(BLOB_REF_PREFIX) + 64
        and _HEX.issuperset(value[len(BLOB_REF_PREFIX) :])
    )


def blob_ref(digest: str) -> str:
    """The reference string stored in entries for a digest."""
    return BLOB_REF_PREFIX + digest


class BlobStore:
    """Blobs as files ``<dir>/<sha256 hex>`` of their raw bytes; writes are idempotent."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.unreadable: dict[str, str] = {}
        """Digest -> why its file is there but cannot be read (permission denied, a link out)."""

    def path_for(self, digest: str) -> Path:
        """The file of a digest (validated, so a reference cannot name another path)."""
        if len(digest) != 64 or not _HEX.issuperset(digest):
            raise ValueError(f"not a sha256 hex digest: {digest!r}")
        return self.directory / digest

    def put(self, data: bytes) -> BlobPut:
        """Store bytes under their SHA-256; an existing blob is left as it is."""
        digest = hashlib.sha256(data).hexdigest()
        path = self.path_for(digest)
        if not path.exists():
            self.directory.mkdir(parents=True, exist_ok=True)
            write_atomic(path, data, readable=False)
        return BlobPut(digest, path, blob_ref(digest))

    def get(self, digest: str) -> bytes | None:
        """The bytes of a blob, or None when it is missing or cannot be read (then in ``unreadable``)."""
        try:
            with open_regular(self.path_for(digest), self.directory) as fh:
                return fh.read()
        except (FileNotFoundError, NotADirectoryError, ValueError):
            return None
        except OSError as exc:
            self.unreadable[digest] = read_reason(exc)
            return None

    def has(self, digest: str) -> bool:
        """Tell whether the blob exists."""
        try:
            return entry_is(self.path_for(digest), "file")
        except ValueError:
            return False


def externalize_image_blocks(content: object, store: BlobStore) -> object:
    """Return content with large inline image data replaced by blob references.

    Only image blocks of a content list are touched, only when their data is not already a
    reference and is at least ``BLOB_EXTERNALIZE_THRESHOLD`` base64 characters long.
    """
    if not isinstance(content, list):
        return content
    out: list[Any] = []
    for block in content:
        data = block.get("data") if isinstance(block, dict) and block.get("type") == "image" else None
        if isinstance(data, str) and not is_blob_ref(data) and len(data) >= BLOB_EXTERNALIZE_THRESHOLD:
            try:
                raw = base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                out.append(block)  # not base64: leave it inline rather than lose it
                continue
            out.append({**block, "data": store.put(raw).ref})
        else:
            out.append(block)
    return out


def _resolve_blocks(blocks: object, stores: list[BlobStore], missing: list[str]) -> None:
    if type(blocks) is not list:
        return
    for block in blocks:
        if type(block) is not dict or block.get("type") != "image":
            continue
        data = block.get("data")
        if not is_blob_ref(data):
            continue
        assert isinstance(data, str)
        digest = data[len(BLOB_REF_PREFIX) :]
        for store in stores:
            raw = store.get(digest)
            if raw is not None:
                block["data"] = base64.b64encode(raw).decode("ascii")
                break
        else:  # said once per load by the caller (one line with the count), not once per reference
            log.debug("blob %s not found; keeping the reference", data)
            missing.append(data)


def resolve_blob_refs_in_entries(entries: list[Entry], stores: list[BlobStore]) -> list[str]:
    """Rehydrate image blob references of message / custom_message entries in place.

    A missing blob keeps its reference and is reported in the returned list (once per reference).
    """
    missing: list[str] = []
    for entry in entries:
        kind = entry.get("type")
        if kind == "message":
            message = entry.get("message")
            if type(message) is dict:
                _resolve_blocks(message.get("content"), stores, missing)
        elif kind == "custom_message":
            _resolve_blocks(entry.get("content"), stores, missing)
    return missing


def unreadable_blobs(stores: list[BlobStore]) -> dict[str, str]:
    """The blob files of these stores that are there but could not be read: path -> why."""
    return {str(s.path_for(d)): why for s in stores for d, why in s.unreadable.items()}


def describe_missing_blobs(missing: list[str], unreadable: dict[str, str] | None = None) -> str:
    """One line for the images whose blobs were not found (each blob counted once), naming the
    blob files that are there but cannot be read."""
    if unreadable:
        path, why = next(iter(unreadable.items()))
        more = f" (and {len(unreadable) - 1} more)" if len(unreadable) > 1 else ""
        return f"cannot read the blob {path}: {why}{more}; the page shows a notice in its place"
    blobs = len(set(missing))
    images = f"{len(missing)} image{'' if len(missing) == 1 else 's'}"
    return (
        f"{images} refer to {blobs} blob{'' if blobs == 1 else 's'} not found "
        "(looked in the agent dir's blobs/ and a blobs/ folder beside the file); "
        "the page shows a notice in their place"
    )
