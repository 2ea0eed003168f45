"""Assemble the one-file HTML page (the exporter <-> viewer.js contract of docs/architecture.md)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import queue
import threading
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from markupsafe import Markup

from sessiontree.errors import ExportError
from sessiontree.exporter.highlight import theme_css
from sessiontree.exporter.templating import get_template, read_asset
from sessiontree.store.surrogates import SURROGATES

THEMES = ("auto", "light", "dark")
DATA_VERSION = 1
GZIP_LEVEL = 4  # 2x faster than 6 for ~12% more bytes; the page stays well under the JSONL size
# Where the st-data JSON goes in the rendered template; split on its last occurrence, after
# which only our own viewer.js follows, so session text can never fake it.
_DATA_SLOT = "\x00st-data\x00"
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

    def __init__(self, *, compress: bool = True) -> None:
        self.compress = compress
        self.count = 0
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
        if len(self._pending) >= _BATCH:
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

    def close(self) -> None:
        """Stop the compressing thread of a packer that will not be finished."""
        if self._deflater is not None:
            self._deflater.finish()
            self._deflater = None

    def iter_json(self) -> Iterator[str]:
        """Yield the JSON text of the ``frags`` value in chunks (``"gz:..."`` or an array)."""
        if not self.compress:
            yield json_for_script(self._list)
            return
        packed = self._finish()
        yield '"gz:'
        for start in range(0, len(packed), _B64_CHUNK):
            yield base64.b64encode(packed[start : start + _B64_CHUNK]).decode("ascii")
        yield '"'

    def value(self) -> str | list[str]:
        """Return the ``frags`` value itself."""
        return json.loads("".join(self.iter_json()))  # type: ignore[no-any-return]


def pack_fragments(frags: Sequence[str], *, compress: bool = True) -> str | list[str]:
    """Return the ``frags`` value: ``gz:<base64 gzip JSON>`` or the plain list when not compressed."""
    if not compress:
        return list(frags)
    packer = FragmentPacker()
    for html in frags:
        packer.add(html)
    return packer.value()


def unpack_fragments(value: str | list[str]) -> list[str]:
    """Decode a ``frags`` value back to the list of fragment strings (tests, tools)."""
    if isinstance(value, list):
        return value
    if not value.startswith("gz:"):
        raise ExportError("Bad frags value: expected a list or a 'gz:' string")
    data: list[str] = json.loads(gzip.decompress(base64.b64decode(value[3:])))
    return data


def script_hash(script: str) -> str:
    """Return the CSP ``sha256-...`` source value for an inline script's exact text."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def content_security_policy(script: str) -> str:
    """Return the page's CSP: nothing from the network, only our one inline script."""
    return (
        "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src '{script_hash(script)}'; base-uri 'none'; form-action 'none'"
    )


def viewer_assets() -> tuple[str, str]:
    """Return (css, js) inlined into every page: viewer.css + Pygments CSS, and viewer.js."""
    css = read_asset("viewer.css") + "\n" + theme_css()
    js = read_asset("viewer.js")
    # Our own files, but a stray "</" would end the element early and break the page.
    if "</script" in js.lower() or "</style" in css.lower():
        raise ExportError("viewer.js/viewer.css must not contain '</script' or '</style'")
    return css, js


def _packer_for(frags: Sequence[str] | FragmentPacker, compress: bool) -> FragmentPacker:
    if isinstance(frags, FragmentPacker):
        return frags
    packer = FragmentPacker(compress=compress)
    for html in frags:
        packer.add(html)
    return packer


def iter_page_data(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: FragmentPacker,
    images: Mapping[str, str],
    leaf_id: str | None,
) -> Iterator[str]:
    """Yield the ``st-data`` JSON in chunks (large values are never joined into one string)."""
    if frags.count != len(entries_meta):
        raise ExportError(f"{frags.count} fragments for {len(entries_meta)} entries; they must align")
    yield f'{{"v":{DATA_VERSION},"session":{json_for_script(dict(session_meta))}'
    yield f',"leafId":{json_for_script(leaf_id)},"entries":['
    for start in range(0, len(entries_meta), 1024):
        chunk = json_for_script(list(entries_meta[start : start + 1024]))[1:-1]
        yield ("," if start else "") + chunk
    yield '],"images":{'
    for i, (sha, url) in enumerate(images.items()):
        yield ("," if i else "") + json_for_script(sha) + ":" + json_for_script(url)
    yield '},"frags":'
    yield from frags.iter_json()
    yield "}"


def iter_page(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: Sequence[str] | FragmentPacker,
    images: Mapping[str, str],
    header_html: str,
    system_html: str,
    theme: str = "auto",
    *,
    leaf_id: str | None = None,
    compress: bool = True,
) -> Iterator[str]:
    """Yield the page in chunks (what ``assemble_page`` joins; a file writer streams them)."""
    if theme not in THEMES:
        raise ExportError(f"Unknown theme {theme!r}; use one of: {', '.join(THEMES)}")
    packer = _packer_for(frags, compress)
    if packer.count != len(entries_meta):
        raise ExportError(f"{packer.count} fragments for {len(entries_meta)} entries; they must align")
    css, js = viewer_assets()
    title = str(session_meta.get("title") or session_meta.get("id") or "Session")
    shell = get_template("page.html.j2").render(
        theme=theme,
        csp=Markup(content_security_policy(js)),
        title=title,
        css=Markup(css),
        header_html=Markup(header_html),
        system_html=Markup(system_html),
        data_json=Markup(_DATA_SLOT),
        script=Markup(js),
    )
    head, _, tail = shell.rpartition(_DATA_SLOT)
    yield head
    yield from iter_page_data(session_meta, entries_meta, packer, images, leaf_id)
    yield tail


def assemble_page(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: Sequence[str] | FragmentPacker,
    images: Mapping[str, str],
    header_html: str,
    system_html: str,
    theme: str = "auto",
    *,
    leaf_id: str | None = None,
    compress: bool = True,
) -> str:
    """Return the complete page.

    ``session_meta`` holds id, title, cwd, timestamp; ``entries_meta`` and ``frags`` are aligned
    (one meta dict and one ``<article>`` fragment per entry, file order); ``frags`` may be a
    ``FragmentPacker`` filled while rendering; ``images`` maps the sha256 of raw bytes to a
    ``data:`` URL; ``header_html`` and ``system_html`` are trusted, already escaped HTML from our
    templates.
    """
    return "".join(
        iter_page(
            session_meta,
            entries_meta,
            frags,
            images,
            header_html,
            system_html,
            theme,
            leaf_id=leaf_id,
            compress=compress,
        )
    )
