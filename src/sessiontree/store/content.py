"""The text of a message's content, as every reader and renderer takes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def text_of(value: Any) -> str:
    """The text of a string or of the text blocks of a content list."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [b.get("text") for b in value if isinstance(b, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def part_texts(block: Mapping[str, Any]) -> list[str] | None:
    """The texts of the parts a reader parsed out of a text block's markup (``store.claude_markup``:
    what a command, its output or IDE context holds, the tags left out); None when it holds none."""
    parts = block.get("parts")
    if not isinstance(parts, list):
        return None
    return [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
