"""Snippets for search hits: the words a query asks for, found again in a row's text and marked."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

SNIPPET_CHARS = 180
BEFORE_CHARS = 60

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_QUERY_PART = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
_OPERATORS = {"AND", "OR", "NOT", "NEAR"}
_WORD_START = r"(?<![^\W_])"
_WORD_END = r"(?![^\W_])"


@dataclass(frozen=True, slots=True)
class Snippet:
    """A window of a row's text; ``marks`` are (start, end) spans of the matched words in it."""

    text: str
    marks: list[tuple[int, int]] = field(default_factory=list)

    def parts(self) -> list[tuple[str, bool]]:
        """Split into (text, is_match) pieces, in order."""
        pieces: list[tuple[str, bool]] = []
        at = 0
        for start, end in self.marks:
            if start > at:
                pieces.append((self.text[at:start], False))
            pieces.append((self.text[start:end], True))
            at = end
        if at < len(self.text):
            pieces.append((self.text[at:], False))
        return pieces


def fts_patterns(query: str) -> list[re.Pattern[str]]:
    """Regexes for the words, prefixes (``pars*``) and phrases of an FTS5 query (operators dropped)."""
    patterns: list[re.Pattern[str]] = []
    for match in _QUERY_PART.finditer(query):
        phrase, bare = match.group(1), match.group(2)
        if phrase is not None:
            words = _TOKEN.findall(phrase.replace('""', '"'))
            prefix = False
        else:
            if bare in _OPERATORS:
                continue
            bare = bare.split(":", 1)[-1] if ":" in bare and not bare.startswith(":") else bare
            prefix = bare.endswith("*")
            words = _TOKEN.findall(bare)
        if words:
            body = r"[\W_]+".join(re.escape(w) for w in words)
            # A prefix marks the whole word it starts (pars* marks "parser").
            patterns.append(
                re.compile(_WORD_START + body + (r"[^\W_]*" if prefix else _WORD_END), re.IGNORECASE)
            )
    return patterns


def plain_pattern(query: str) -> re.Pattern[str]:
    """A regex for a query taken as plain text (case-insensitive, any run of spaces matching any)."""
    return re.compile(r"\s+".join(re.escape(p) for p in query.split()), re.IGNORECASE)


def make_snippet(text: str, patterns: list[re.Pattern[str]]) -> Snippet:
    """Cut a window around the first match and mark every match inside it (whitespace flattened)."""
    flat = " ".join(text.split())
    spans = sorted({m.span() for p in patterns for m in p.finditer(flat) if m.end() > m.start()})
    if not spans:
        cut = flat[:SNIPPET_CHARS]
        return Snippet(cut + ("…" if len(flat) > SNIPPET_CHARS else ""))
    start = max(0, spans[0][0] - BEFORE_CHARS)
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < spans[0][0] else start
    end = min(len(flat), start + SNIPPET_CHARS)
    lead = "…" if start else ""
    window = lead + flat[start:end] + ("…" if end < len(flat) else "")
    shift = len(lead) - start
    marks: list[tuple[int, int]] = []
    for s, e in spans:
        if s >= start and e <= end and (not marks or s + shift >= marks[-1][1]):
            marks.append((s + shift, e + shift))
    return Snippet(window, marks)
