"""The text a reader of the page sees, with a map back to the session text it came from.

The page strips ANSI escape codes and its markdown renderer decodes backslash escapes and HTML
entities, so ``\\x1b[31mghp_...`` and ``sk\\_live\\_...`` show whole tokens that no pattern finds
in the raw text. Secrets are looked for in these views and masked in the source at the mapped span.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from sessiontree.exporter.ansi import ESCAPE_RE

# Characters that show as nothing: C0 controls other than tab and newline, DEL, C1 controls,
# soft hyphen and the zero-width ones.
_INVISIBLE = "[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u2060-\u2064\ufeff]"
_TERMINAL = re.compile(rf"{ESCAPE_RE.pattern}|{_INVISIBLE}+")
# CommonMark: a backslash before ASCII punctuation shows the punctuation; entities need their ``;``.
_MARKDOWN = re.compile(
    rf"{ESCAPE_RE.pattern}|{_INVISIBLE}+"
    r"|\\(?P<punct>[!-/:-@\[-`{-~])"
    r"|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"
)


@dataclass
class View:
    """A shown form of a text: ``text``, and where each of its characters came from."""

    text: str
    # Edits in source order: (view offset of the replacement, its length, source start, source end).
    _edits: list[tuple[int, int, int, int]] = field(default_factory=list)
    _starts: list[int] = field(default_factory=list)

    # Joints (a table cell wrapped over two lines) are cut out of a masked span, not masked.
    keeps_edits: bool = False

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        """Return the source span that view characters ``start:end`` (end > start) came from."""
        return self._source_start(start), self._source_end(end - 1)

    def source_spans(self, start: int, end: int) -> list[tuple[int, int]]:
        """Return the source pieces of view characters ``start:end``, without the edits it keeps."""
        first, last = self.source_span(start, end)
        if not self.keeps_edits:
            return [(first, last)]
        pieces: list[tuple[int, int]] = []
        pos = first
        i = bisect_right(self._starts, start)
        for _, _, s_start, s_end in self._edits[max(0, i - 1) :]:
            if s_start >= last:
                break
            if s_end <= pos:
                continue
            if s_start > pos:
                pieces.append((pos, s_start))
            pos = max(pos, s_end)
        if pos < last:
            pieces.append((pos, last))
        return pieces

    def _edit_at(self, index: int) -> tuple[int, int, int, int] | None:
        i = bisect_right(self._starts, index) - 1
        return self._edits[i] if i >= 0 else None

    def _source_start(self, index: int) -> int:
        edit = self._edit_at(index)
        if edit is None:
            return index
        v_start, v_len, s_start, s_end = edit
        return s_start if index < v_start + v_len else s_end + index - v_start - v_len

    def _source_end(self, index: int) -> int:
        edit = self._edit_at(index)
        if edit is None:
            return index + 1
        v_start, v_len, _, s_end = edit
        return s_end if index < v_start + v_len else s_end + index - v_start - v_len + 1


def _decode(match: re.Match[str]) -> str:
    text = match.group(0)
    if match.group("punct") is not None:
        return match.group("punct")
    if text.startswith("&"):
        decoded = html.unescape(text)
        return decoded if decoded != text else text
    return ""  # an escape sequence or an invisible character


# A table cell wrapped over lines (psql's wrapped format marks the cut with "." or "+"; a
# continuation row has only empty cells before it): the joint between the two halves.
_TABLE_JOINT = re.compile(
    # One "[ \t]*" per stretch of blanks: two in a row would try every split of a long one.
    r"(?<=[A-Za-z0-9_/+=-])(?P<mark>[.+\u21b5\u2026])?[ \t]*(?:[|\u2502][ \t]*)?\r?\n"
    r"(?P<lead>[ \t]*(?:[|\u2502][ \t]*)+)[.\u2026]?(?=[A-Za-z0-9_/+=-])"
)


# A joint's second line starts with a cell's bar: a quick test before the joints' regex.
_ROW_START = re.compile(r"\n[ \t]*[|\u2502]")


def _is_joint(match: re.Match[str]) -> bool:
    """Tell a wrapped cell's joint from the break between two markdown rows ("|" and a cell)."""
    lead = match.group("lead")
    return match.group("mark") is not None or lead[:1] in " \t" or lead.count("|") + lead.count("\u2502") > 1


def _view(text: str, pattern: re.Pattern[str]) -> View | None:
    """Return the view of ``text`` with each match of ``pattern`` replaced as the page shows it."""
    pieces: list[str] = []
    joints = pattern is _TABLE_JOINT
    view = View("", keeps_edits=joints)
    pos = shift = 0
    for match in pattern.finditer(text):
        if joints:
            if not _is_joint(match):
                continue
            replacement = ""
        else:
            replacement = _decode(match) if pattern is _MARKDOWN else ""
            if replacement == match.group(0):
                continue
        pieces.append(text[pos : match.start()])
        v_start = match.start() + shift
        view._edits.append((v_start, len(replacement), match.start(), match.end()))
        view._starts.append(v_start)
        pieces.append(replacement)
        shift += len(replacement) - (match.end() - match.start())
        pos = match.end()
    if not view._edits:
        return None
    pieces.append(text[pos:])
    view.text = "".join(pieces)
    return view


# What the terminal view removes starts with one of these (one character class: a quick scan).
_TERMINAL_START = re.compile(f"[\x1b{_INVISIBLE[1:-1]}]")


def shown_views(text: str) -> Iterator[View]:
    """Yield the text as it is, as a terminal or code block shows it, and as markdown shows it."""
    yield View(text)
    terminal = _view(text, _TERMINAL) if _TERMINAL_START.search(text) else None
    if terminal is not None:
        yield terminal
    if "\\" in text or "&" in text:
        markdown = _view(text, _MARKDOWN)
        if markdown is not None:
            yield markdown
    if "\n" in text and ("|" in text or "\u2502" in text) and _ROW_START.search(text):
        joined = _view(text, _TABLE_JOINT)
        if joined is not None:
            yield joined
