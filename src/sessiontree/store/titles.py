"""Titles on one line, cut at a word boundary: the page heading, tab title, index, search, gist."""

from __future__ import annotations

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
