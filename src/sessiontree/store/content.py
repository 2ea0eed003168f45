"""The text of a message's content, as every reader and renderer takes it."""

from __future__ import annotations

from typing import Any


def text_of(value: Any) -> str:
    """The text of a string or of the text blocks of a content list."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [b.get("text") for b in value if isinstance(b, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""
