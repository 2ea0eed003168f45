"""Titles on one line, cut at a word boundary: the page heading, tab title, index, search, gist."""

from __future__ import annotations

import re
from functools import cache

TITLE_CHARS = 80
"""How much of a title the page heading, the tab and the index show (the whole is on hover)."""
FULL_TITLE_CHARS = 500
"""A whole title (a first prompt used as one may be pages long): what the hover shows."""


def cut_title(text: str, limit: int = TITLE_CHARS) -> str:
    """Whitespace runs as one space, cut at the last word boundary that fits ``limit`` with "…".

    A single word longer than the limit (a path, a URL) is cut inside it. The result never
    exceeds ``limit`` characters, the ellipsis included.
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    room = flat[: limit - 1]
    space = room.rfind(" ")
    if space >= limit // 2:  # a word boundary not too far back
        room = room[:space]
    return room.rstrip(" ,.;:-–—") + "…"


_MARKDOWN_RULES = [
    (r"!\[([^\]]*)\]\([^)]*\)", r"\1"),  # an image: its alt text
    (r"\[([^\]]+)\]\([^)]*\)", r"\1"),  # a link: its text
    (r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)", ""),  # block marks
    (r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1", r"\2"),  # bold, strikethrough
    (r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])", r"\1"),  # *emphasis*
    (r"(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])", r"\1"),  # _emphasis_
    (r"`{1,3}([^`]*)`{1,3}", r"\1"),  # inline code
]
_MARK_CHARS = frozenset("[#>-*+_~`")
"""Every rule above but the numbered list's needs one of these: text without any is left as it is."""


@cache
def _compiled_rules() -> list[tuple[re.Pattern[str], str]]:
    # Compiled at the first title with a mark (~1 ms), not by every command that imports this module.
    return [(re.compile(pattern), replacement) for pattern, replacement in _MARKDOWN_RULES]


def strip_markdown(text: str) -> str:
    """The words of a markdown title or prompt, its marks gone (``## Plan **Q**`` -> ``Plan Q``)."""
    if _MARK_CHARS.isdisjoint(text) and not (("." in text or ")" in text) and any(c.isdigit() for c in text)):
        return text
    for pattern, replacement in _compiled_rules():
        text = pattern.sub(replacement, text)
    return text


def plain_title(text: str, limit: int = TITLE_CHARS) -> str:
    """A title as plain text on one line, cut at a word (``cut_title`` of ``strip_markdown``)."""
    return cut_title(strip_markdown(text), limit)
