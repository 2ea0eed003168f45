"""The pieces of an OpenAI-style chat message list, as Continue and Kimi CLI keep theirs: text
parts, images by URL, reasoning parts, function tool calls whose arguments are JSON text."""

from __future__ import annotations

import json
from typing import Any

from sessiontree.readers.base import as_str
from sessiontree.store.entries import dicts_of


def text_of_content(content: Any, kinds: tuple[str, ...] = ("text",)) -> list[str]:
    """The texts of a message's content (a string, or parts of the given kinds)."""
    if isinstance(content, str):
        return [content] if content else []
    return [p["text"] for p in dicts_of(content) if p.get("type") in kinds and as_str(p.get("text"))]


def arguments_of(value: Any) -> dict[str, Any]:
    """A tool call's arguments: JSON text (or an object) as an object; anything else kept as text."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value:
        try:
            parsed = json.loads(value)
        except ValueError:
            return {"arguments": value}
        return parsed if isinstance(parsed, dict) else {"arguments": value}
    return {}


def function_calls(calls: Any, names: dict[str, str], fallback: str) -> list[dict[str, Any]]:
    """Function tool calls ``[{id, function: {name, arguments}}]`` as tool calls (names noted)."""
    made = []
    for at, call in enumerate(dicts_of(calls)):
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        cid = as_str(call.get("id")) or f"{fallback}.{at}"
        names[cid] = as_str(function.get("name")) or "tool"
        made.append({"type": "toolCall", "id": cid, "name": names[cid],
                     "arguments": arguments_of(function.get("arguments"))})  # fmt: skip
    return made
