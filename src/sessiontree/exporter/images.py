"""The image registry of a render: each distinct image embedded once, mime types checked."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass, field

# Only these become data: URLs; anything else (svg, html, made-up types) is shown as a note.
ALLOWED_MIME = {
    "image/png": "image/png",
    "image/jpeg": "image/jpeg",
    "image/jpg": "image/jpeg",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}

BLOB_PREFIX = "blob:sha256:"


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image accepted into the registry (``sha``) or refused with a reason (``note``)."""

    sha: str | None
    note: str | None = None


@dataclass
class ImageRegistry:
    """Collect images by the sha256 of their bytes; ``images`` maps sha -> data: URL."""

    images: dict[str, str] = field(default_factory=dict)
    _by_data: dict[str, str] = field(default_factory=dict, repr=False)
    _new: list[str] = field(default_factory=list, repr=False)
    _seen: dict[str, None] = field(default_factory=dict, repr=False)

    def add(self, data: object, mime: object) -> ImageRef:
        """Register one image block's data and mime type; return its sha or why it was refused."""
        canonical = ALLOWED_MIME.get(mime.strip().lower()) if isinstance(mime, str) else None
        if canonical is None:
            return ImageRef(None, "image with unsupported type not shown")
        if not isinstance(data, str) or not data:
            return ImageRef(None, "image without data")
        if data.startswith(BLOB_PREFIX):
            return ImageRef(None, "image not available (blob missing)")
        # The same base64 string recurs (blob rehydration, repeated screenshots): hash it once.
        key = canonical + ":" + data
        sha = self._by_data.get(key)
        if sha is not None:
            self._seen[sha] = None
            return ImageRef(sha)
        try:
            raw = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            return ImageRef(None, "image with invalid data not shown")
        sha = hashlib.sha256(raw).hexdigest()
        self._by_data[key] = sha
        if sha not in self.images:
            # Re-encode from the decoded bytes so nothing but base64 reaches the URL.
            self.images[sha] = f"data:{canonical};base64,{base64.b64encode(raw).decode('ascii')}"
            self._new.append(sha)
        self._seen[sha] = None
        return ImageRef(sha)

    def take_seen(self) -> dict[str, str]:
        """Return the images referenced since the last call, in order (one entry's images)."""
        out = {sha: self.images[sha] for sha in self._seen}
        self._seen.clear()
        return out

    def take_new(self) -> dict[str, str]:
        """Return the images added since the last call (what a live viewer has to push)."""
        out = {sha: self.images[sha] for sha in self._new}
        self._new.clear()
        return out


EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp"}


@dataclass(frozen=True, slots=True)
class ImageFile:
    """One distinct image of a render as a file: ``<sha256>.<ext>`` holding ``data``."""

    sha256: str
    ext: str
    mime: str
    data: bytes

    @property
    def name(self) -> str:
        """Return the file name ``<sha256>.<ext>`` (what an image URL under a prefix ends with)."""
        return f"{self.sha256}.{self.ext}"


def image_file(sha: str, data_url: str) -> ImageFile:
    """Decode one ``images`` item (sha256 -> ``data:`` URL made by the registry) into its file."""
    mime = data_url[5 : data_url.index(";")]
    return ImageFile(sha, EXTENSIONS[mime], mime, base64.b64decode(data_url[data_url.index(",") + 1 :]))


def image_url(prefix: str, sha: str, data_url: str) -> str:
    """Return the URL of an image under ``prefix``: ``prefix + sha256 + "." + ext``."""
    return f"{prefix}{sha}.{EXTENSIONS[data_url[5 : data_url.index(';')]]}"
