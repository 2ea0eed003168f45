"""Assemble the one-file HTML page (the exporter <-> viewer.js contract of docs/architecture.md)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup

from sessiontree.errors import ExportError
from sessiontree.exporter.highlight import theme_css
from sessiontree.exporter.templating import get_template, read_asset

THEMES = ("auto", "light", "dark")
DATA_VERSION = 1
GZIP_LEVEL = 6


def json_for_script(value: Any) -> str:
    """Serialise JSON safe to sit inside ``<script type="application/json">`` (``<`` as ``\\u003c``)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    # U+2028/2029 are valid JSON but break some JS tooling; escaping "<" stops "</script" and "<!--".
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def pack_fragments(frags: Sequence[str], *, compress: bool = True) -> str | list[str]:
    """Return the ``frags`` value: ``gz:<base64 gzip JSON>`` or the plain list when not compressed."""
    if not compress:
        return list(frags)
    raw = json.dumps(list(frags), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    # mtime=0 keeps the output byte-for-byte reproducible.
    packed = gzip.compress(raw, compresslevel=GZIP_LEVEL, mtime=0)
    return "gz:" + base64.b64encode(packed).decode("ascii")


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


def build_page_data(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: Sequence[str],
    images: Mapping[str, str],
    leaf_id: str | None,
    *,
    compress: bool = True,
) -> dict[str, Any]:
    """Return the ``st-data`` object of the contract."""
    if len(frags) != len(entries_meta):
        raise ExportError(f"{len(frags)} fragments for {len(entries_meta)} entries; they must align")
    return {
        "v": DATA_VERSION,
        "session": dict(session_meta),
        "leafId": leaf_id,
        "entries": list(entries_meta),
        "images": dict(images),
        "frags": pack_fragments(frags, compress=compress),
    }


def assemble_page(
    session_meta: Mapping[str, Any],
    entries_meta: Sequence[Mapping[str, Any]],
    frags: Sequence[str],
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
    (one meta dict and one ``<article>`` fragment per entry, file order); ``images`` maps the sha256
    of raw bytes to a ``data:`` URL; ``header_html`` and ``system_html`` are trusted, already
    escaped HTML from our templates.
    """
    if theme not in THEMES:
        raise ExportError(f"Unknown theme {theme!r}; use one of: {', '.join(THEMES)}")
    css, js = viewer_assets()
    data = build_page_data(session_meta, entries_meta, frags, images, leaf_id, compress=compress)
    title = str(session_meta.get("title") or session_meta.get("id") or "Session")
    return get_template("page.html.j2").render(
        theme=theme,
        csp=Markup(content_security_policy(js)),
        title=title,
        css=Markup(css),
        header_html=Markup(header_html),
        system_html=Markup(system_html),
        data_json=Markup(json_for_script(data)),
        script=Markup(js),
    )
