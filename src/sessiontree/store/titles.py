"""Titles on one line, cut at a word boundary: the page heading, tab title, index, search, gist."""

from __future__ import annotations

import re

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
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # an image: its alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # a link: its text
    (
        re.compile(r"(?m)^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)"),
        "",
    ),  # block marks
    (re.compile(r"(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # bold, strikethrough
    (re.compile(r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])"), r"\1"),  # *emphasis*
    (re.compile(r"(?<![\w_])_(?=\S)([^_]+?)(?<=\S)_(?![\w_])"), r"\1"),  # _emphasis_
    (re.compile(r"`{1,3}([^`]*)`{1,3}"), r"\1"),  # inline code
]


def strip_markdown(text: str) -> str:
    """The words of a markdown title or prompt, its marks gone (``## Plan **Q**`` -> ``Plan Q``)."""
    for pattern, replacement in _MARKDOWN_RULES:
        text = pattern.sub(replacement, text)
    return text


def plain_title(text: str, limit: int = TITLE_CHARS) -> str:
    """A title as plain text on one line, cut at a word (``cut_title`` of ``strip_markdown``)."""
    return cut_title(strip_markdown(text), limit)
