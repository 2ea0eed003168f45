"""Small HTML building blocks shared by the entry and tool renderers (all escaped)."""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from markupsafe import Markup, escape

from sessiontree.exporter.ansi import ansi_to_html, has_ansi, strip_ansi
from sessiontree.exporter.highlight import HL_CLASS, Lexer, escape_text, highlight_code, highlight_split
from sessiontree.exporter.templating import MacroSet

MACROS = MacroSet("macros.html.j2")
PREVIEW_CHARS = 120
Meta = dict[str, Any]

# Outputs show this many lines, then "Show all N lines"; the rest is in the same <pre>, hidden, so
# expanded it reads as one block. Highlighting is the costly part of an export (about 0.1-0.3
# Mchar/s): an output longer than MAX_HIGHLIGHT_CHARS is shown plain, preview and rest alike;
# one longer than HIGHLIGHT_REST_CHARS has its preview highlighted and its hidden rest plain, so
# what nobody has opened costs no highlighting (the 2,000-turn session: 65% of an export).
PREVIEW_LINES = 20
"""Lines shown before "Show all N lines", as a diff shows (issue 44: ~20)."""
MAX_HIGHLIGHT_CHARS = 16_000
HIGHLIGHT_REST_CHARS = 2_000
MAX_JSON_CHARS = 100_000


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """Return the first ``limit`` characters of text on one line (whitespace collapsed)."""
    return " ".join(strip_ansi(text[: limit * 3]).split())[:limit]


def format_ts(ts: Any) -> str:
    """Return an ISO timestamp as ``YYYY-MM-DD HH:MM:SS`` (other values as given)."""
    if isinstance(ts, str):
        return ts[:19].replace("T", " ") if len(ts) >= 19 and ts[10:11] == "T" else ts[:40]
    return ""


def text_of(value: Any) -> str:
    """Return a value when it is a string, else ""."""
    return value if isinstance(value, str) else ""


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


def _halves(text: str, cut: int, lexer: Lexer | None, ansi: bool) -> tuple[Markup, Markup]:
    """The HTML of ``text[:cut]`` and ``text[cut + 1:]`` (the newline at ``cut`` between them)."""
    if lexer is not None and lexer.name != "Text only" and not (ansi and has_ansi(text)):
        if len(text) > HIGHLIGHT_REST_CHARS:
            return highlight_code(text[:cut], lexer), Markup(escape_text(text[cut + 1 :]))
        return highlight_split(text, lexer, cut, cut + 1)
    return _inner(text[:cut], None, ansi), _inner(text[cut + 1 :], None, ansi)


def render_output(
    text: str,
    *,
    lexer: Lexer | None = None,
    ansi: bool = False,
    kind: str = "text",
    limit: int = PREVIEW_LINES,
) -> Markup:
    """Return ``<div class="st-output">``: a preview of ``limit`` lines and a hidden rest with a button."""
    # ``kind`` is always one of our own words, never session text.
    preview, _, more = _split_preview(text, limit)
    if len(text) > MAX_HIGHLIGHT_CHARS:
        lexer = None
    hl = f" {HL_CLASS}" if lexer is not None else ""
    if not more:
        head = _inner(preview, lexer, ansi)
        return Markup(f'<div class="st-output st-{kind}"><pre class="st-pre{hl}">{head}</pre></div>')
    head, tail = _halves(text, len(preview), lexer, ansi)
    return Markup(
        f'<div class="st-output st-{kind}" data-more="{more}"><pre class="st-pre{hl}">{head}'
        f'<span class="st-rest" hidden>\n{tail}</span></pre>'
        f'<button class="st-more" type="button">Show all {limit + more:,} lines</button></div>'
    )


# Claude Code's Read output: each line "<spaces><number>→<text>" (cat -n with an arrow); what
# follows the numbered lines (a reminder) has none.
_NUMBERED = re.compile(r" *([0-9]{1,9})\u2192")


def split_line_numbers(text: str) -> tuple[list[str], str] | None:
    """Split numbered lines into (their numbers, "" for a line without one; the text without
    them), or None when the text does not start with a numbered line."""
    if not _NUMBERED.match(text):
        return None
    numbers: list[str] = []
    lines: list[str] = []
    for line in text.split("\n"):
        found = _NUMBERED.match(line)
        numbers.append(found[1] if found else "")
        lines.append(line[found.end() :] if found else line)
    return numbers, "\n".join(lines)


def render_numbered(text: str, numbers: list[str], *, lexer: Lexer | None = None) -> Markup:
    """Return ``render_output`` of code with its line numbers as a gutter beside it (not text:
    a copy or a selection takes the code alone)."""
    out = str(render_output(text, lexer=lexer, kind="code"))
    head, rest = numbers[:PREVIEW_LINES], numbers[PREVIEW_LINES:]
    gutter = "\n".join(head)
    if rest and "data-more=" in out:
        gutter += '<span class="st-rest" hidden>\n' + "\n".join(rest) + "</span>"
    elif rest:
        gutter += "\n" + "\n".join(rest)
    start = out.index("<pre")
    end = out.index("</pre>") + len("</pre>")  # escaped text holds no "</pre>"
    return Markup(
        f'{out[:start]}<div class="st-lines"><pre class="st-gutter" aria-hidden="true">{gutter}</pre>'
        f"{out[start:end]}</div>{out[end:]}"
    )


def pretty_json(value: Any) -> str:
    """Return indented JSON text for any value (non-JSON values shown through ``str``)."""
    try:
        text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = "(a value too deeply nested or not JSON to show)"
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


DIFF_PREVIEW_LINES = 20
"""A longer diff shows this many lines, then "Show all N lines" (the viewer's st-more button)."""


def render_diff_text(diff: str) -> Markup:
    """Return a coloured diff (one span per line, classed add / del / hunk / context); past
    ``DIFF_PREVIEW_LINES`` lines, the rest hidden behind a "Show all N lines" button."""
    lines = diff.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    spans = [f'<span class="{_diff_line_class(line)}">{escape_text(line)}</span>' for line in lines]
    if len(spans) <= DIFF_PREVIEW_LINES + 5:  # a few more lines are shown rather than folded
        body = "\n".join(spans)
        return Markup(f'<pre class="st-pre st-diff">{body}</pre>')
    head, tail = "\n".join(spans[:DIFF_PREVIEW_LINES]), "\n".join(spans[DIFF_PREVIEW_LINES:])
    return Markup(
        f'<div class="st-output st-diff-box" data-more="{len(spans) - DIFF_PREVIEW_LINES}">'
        f'<pre class="st-pre st-diff">{head}<span class="st-rest" hidden>\n{tail}</span></pre>'
        f'<button class="st-more" type="button">Show all {len(spans):,} lines</button></div>'
    )


def compute_diff(old: str, new: str) -> str:
    """Return a unified diff of two texts without file headers."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=3)
    return "\n".join(line for line in lines if not line.startswith(("---", "+++")))


def render_note(text: str, kind: str = "note") -> Markup:
    """Return a small escaped note (refused images, missing data, unknown states)."""
    return Markup(f'<div class="st-note st-note-{kind}">{escape_text(text)}</div>')


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
    return Markup(f'<img class="st-img" data-img="{escape(sha)}" alt="{escape(alt)}">')


def artifact_ref(holder: Any) -> str:
    """Return where a truncated output was saved (``artifact://N`` or a path), or ""."""
    if not isinstance(holder, dict):
        return ""
    artifact = holder.get("artifactId")
    if isinstance(artifact, int | str) and not isinstance(artifact, bool) and str(artifact):
        text = str(artifact)
        return text if "://" in text else f"artifact://{text}"
    path = holder.get("fullOutputPath")
    return path if isinstance(path, str) else ""


def render_truncation_note(ref: str) -> Markup:
    """Return the note under a truncated output pointing to the saved full output."""
    where = f": full output in <code>{escape_text(ref)}</code>" if ref else ""
    return Markup(f'<div class="st-truncated">output truncated{where}</div>')
