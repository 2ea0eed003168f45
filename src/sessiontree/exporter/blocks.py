"""Small HTML building blocks shared by the entry and tool renderers (all escaped)."""

from __future__ import annotations

import difflib
import json
from typing import Any

from markupsafe import Markup, escape

from sessiontree.exporter.ansi import ansi_to_html, has_ansi
from sessiontree.exporter.highlight import HL_CLASS, Lexer, highlight_code

PREVIEW_LINES = 20
# A single output line longer than this is cut in the preview (the rest keeps it whole).
PREVIEW_LINE_CHARS = 2_000
# Highlighting is the costly part: only the preview is highlighted, the rest is plain text.
MAX_JSON_CHARS = 100_000


def _split_preview(text: str, limit: int) -> tuple[str, str, int]:
    """Split text into (first ``limit`` lines, the rest, number of lines in the rest)."""
    cut = -1
    for _ in range(limit):
        cut = text.find("\n", cut + 1)
        if cut < 0:
            return text, "", 0
    rest = text[cut + 1 :]
    if not rest:
        return text, "", 0
    return text[:cut], rest, rest.count("\n") + (0 if rest.endswith("\n") else 1)


def _inner(text: str, lexer: Lexer | None, ansi: bool) -> Markup:
    if ansi and has_ansi(text):
        return ansi_to_html(text)
    return highlight_code(text, lexer)


def render_output(
    text: str,
    *,
    lexer: Lexer | None = None,
    ansi: bool = False,
    kind: str = "text",
    limit: int = PREVIEW_LINES,
) -> Markup:
    """Return ``<div class="st-output">``: a preview of ``limit`` lines and a hidden rest with a button."""
    preview, rest, more = _split_preview(text, limit)
    hl = f" {HL_CLASS}" if lexer is not None else ""
    head = _inner(preview, lexer, ansi)
    if not more:
        return Markup('<div class="st-output st-{}"><pre class="st-pre{}">{}</pre></div>').format(
            kind, hl, head
        )
    return Markup(
        '<div class="st-output st-{}" data-more="{}"><pre class="st-pre{}">{}</pre>'
        '<pre class="st-pre st-rest" hidden>{}</pre>'
        '<button class="st-more" type="button">{} more line{}</button></div>'
    ).format(kind, more, hl, head, _inner(rest, None, ansi), more, "" if more == 1 else "s")


def pretty_json(value: Any) -> str:
    """Return indented JSON text for any value (non-JSON values shown through ``str``)."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_JSON_CHARS else text[:MAX_JSON_CHARS] + "\n… (truncated)"


def render_json(value: Any, *, kind: str = "json") -> Markup:
    """Return pretty JSON as an output block (never highlighted: plain and fast)."""
    return render_output(pretty_json(value), kind=kind)


def _diff_line_class(line: str) -> str:
    if line.startswith("@@"):
        return "st-diff-hunk"
    if line.startswith("+"):
        return "st-diff-add"
    if line.startswith("-"):
        return "st-diff-del"
    return "st-diff-ctx"


def render_diff_text(diff: str) -> Markup:
    """Return a coloured diff (one span per line, classed add / del / hunk / context)."""
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = "\n".join(
        str(Markup('<span class="{}">{}</span>').format(_diff_line_class(line), line)) for line in lines
    )
    return Markup('<pre class="st-pre st-diff">{}</pre>').format(Markup(body))


def compute_diff(old: str, new: str) -> str:
    """Return a unified diff of two texts without file headers."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


def render_note(text: str, kind: str = "note") -> Markup:
    """Return a small escaped note (refused images, missing data, unknown states)."""
    return Markup('<div class="st-note st-note-{}">{}</div>').format(kind, text)


def join_text_blocks(content: Any) -> str:
    """Return the text of a message's content (a string, or the text blocks of a list)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(parts)


def render_image_tag(sha: str, alt: str = "image") -> Markup:
    """Return the ``<img>`` of the contract; viewer.js fills ``src`` from the images map."""
    return Markup('<img class="st-img" data-img="{}" alt="{}">').format(sha, alt)


def escape_text(text: str) -> Markup:
    """Escape text for HTML."""
    return escape(text)
