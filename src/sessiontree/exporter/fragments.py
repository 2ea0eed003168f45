"""The ``frags`` value of a page: fragments gzip-compressed as they are rendered, or a plain list."""

from __future__ import annotations

import base64
import gzip
import json
import queue
import threading
import zlib
from collections.abc import Iterator, Sequence
from typing import Any

from sessiontree.errors import ExportError
from sessiontree.store.surrogates import SURROGATES

GZIP_LEVEL = 4  # 2x faster than 6 for ~12% more bytes; the page stays well under the JSONL size
_BATCH = 64
_B64_CHUNK = 3 * 1024 * 1024  # a multiple of 3: chunks encode to base64 without padding


def json_for_script(value: Any) -> str:
    """Serialise JSON safe to sit inside ``<script type="application/json">`` (``<`` as ``\\u003c``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # U+2028/2029 are valid JSON but break some JS tooling; escaping "<" stops "</script" and "<!--".
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


class _Deflater:
    """Gzip in a worker thread: zlib releases the GIL, so compressing overlaps rendering."""

    def __init__(self) -> None:
        # wbits 31: a gzip stream (header mtime 0, so pages are reproducible).
        self._zip = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)
        # Bounded: if deflate falls behind, rendering waits instead of piling up text.
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=32)
        self._parts: list[bytes] = []
        self._error: BaseException | None = None
        # Started on the first feed, so a packer can be made before the renderer forks.
        self._thread = threading.Thread(target=self._run, name="sessiontree-deflate", daemon=True)

    def _run(self) -> None:
        try:
            while (chunk := self._queue.get()) is not None:
                self._parts.append(self._zip.compress(chunk))
            self._parts.append(self._zip.flush())
        except BaseException as exc:  # re-raised in finish(); keep draining so feed() never blocks
            self._error = exc
            while self._queue.get() is not None:
                pass

    def feed(self, data: bytes) -> None:
        if self._thread.ident is None:
            self._thread.start()
        self._queue.put(data)

    def finish(self) -> bytes:
        """Wait for the worker and return the whole gzip stream."""
        if self._thread.ident is None:
            self._thread.start()
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error
        return b"".join(self._parts)


class FragmentPacker:
    """Collect fragments as they are rendered: gzip-compressed on the fly, or kept as a list.

    Compressing as we go keeps memory small: only the compressed bytes are held, never the
    whole array of fragment strings. Call ``close()`` when abandoning a packer unfinished.
    """

    def __init__(self, *, compress: bool = True, hold: int = 0) -> None:
        self.compress = compress
        self.count = 0
        # The first ``hold`` fragments wait here before the compressing thread starts (a render
        # about to fork must not have started a thread: see parallel.warm_count).
        self._hold = hold
        self._list: list[str] = []
        self._pending: list[str] = []
        self._started = False
        self._packed: bytes | None = None
        self._deflater = _Deflater() if compress else None

    def add(self, html: str) -> None:
        """Append one fragment."""
        self.count += 1
        if not self.compress:
            self._list.append(html)
            return
        self._pending.append(html)
        if len(self._pending) >= _BATCH and self.count > self._hold:
            self._flush_pending()

    def _feed(self, data: bytes) -> None:
        if self._deflater is None:
            raise ExportError("Fragments were already packed; create a new FragmentPacker")
        self._deflater.feed(data)

    def _flush_pending(self) -> None:
        prefix = "," if self._started else "["
        self._started = True
        text = prefix + ",".join(json.dumps(h, ensure_ascii=False) for h in self._pending)
        self._pending.clear()
        self._feed(text.encode("utf-8", SURROGATES))

    def _finish(self) -> bytes:
        if self._packed is None:
            if self._pending:
                self._flush_pending()
            self._feed(b"]" if self._started else b"[]")
            assert self._deflater is not None
            self._packed = self._deflater.finish()
            self._deflater = None
        return self._packed

    def finish(self) -> None:
        """Pack what was added now, so several readers may share this packer (each reads it whole)."""
        if self.compress:
            self._finish()

    def close(self) -> None:
        """Stop the compressing thread of a packer that will not be finished."""
        if self._deflater is not None:
            self._deflater.finish()
            self._deflater = None

    def iter_json(self, compress: bool | None = None) -> Iterator[str]:
        """Yield the JSON text of the ``frags`` value in chunks (``"gz:..."`` or an array).

        ``compress`` picks the form (default: the packer's own); asking for the other form
        converts, so one render can feed pages of either kind, any number of times.
        """
        want = self.compress if compress is None else compress
        if not want:
            yield json_for_script(self._list if not self.compress else unpack_fragments(self.value()))
            return
        if not self.compress:
            yield from _packer_of(self._list).iter_json()
            return
        packed = self._finish()
        yield '"gz:'
        for start in range(0, len(packed), _B64_CHUNK):
            yield base64.b64encode(packed[start : start + _B64_CHUNK]).decode("ascii")
        yield '"'

    def value(self) -> str | list[str]:
        """Return the ``frags`` value itself (in the packer's own form)."""
        return json.loads("".join(self.iter_json(self.compress)))  # type: ignore[no-any-return]


def _packer_of(frags: Sequence[str], *, compress: bool = True) -> FragmentPacker:
    packer = FragmentPacker(compress=compress)
    for html in frags:
        packer.add(html)
    return packer


def pack_fragments(frags: Sequence[str], *, compress: bool = True) -> str | list[str]:
    """Return the ``frags`` value: ``gz:<base64 gzip JSON>`` or the plain list when not compressed."""
    if not compress:
        return list(frags)
    return _packer_of(frags).value()


def unpack_fragments(value: str | list[str]) -> list[str]:
    """Decode a ``frags`` value back to the list of fragment strings (tests, tools)."""
    if isinstance(value, list):
        return value
    if not value.startswith("gz:"):
        raise ExportError("Bad frags value: expected a list or a 'gz:' string")
    data: list[str] = json.loads(gzip.decompress(base64.b64decode(value[3:])))
    return data
