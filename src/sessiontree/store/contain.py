"""Contain a decoded session line, so every later stage can trust its shape.

The line decoder (``store.jsonl.decode_line``) calls these once per line, for every reader (pi,
Claude Code, Codex CLI) and every command: lone surrogates become U+FFFD (JSON allows them,
UTF-8, SQLite and JSON writers do not); numbers are clamped by the decoder's hooks
(``store.numbers``); and a field that names, links or dates a line (ids, types, roles, titles,
timestamps) holding a value of the wrong type is absent, as if never written (a list where an
id belongs was a ``TypeError: unhashable type``).
"""

from __future__ import annotations

import re
from typing import Any

from sessiontree.store.surrogates import replace_surrogates

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")

_STRING_FIELDS = frozenset(
    {
        # pi
        "type", "id", "parentId", "cwd", "title", "name", "label", "targetId", "role", "model",
        "provider", "customType", "toolCallId", "toolName", "fromId", "firstKeptEntryId",
        # Claude Code
        "uuid", "parentUuid", "logicalParentUuid", "sessionId", "leafUuid", "agentId", "subtype",
        "tool_use_id",
        # Codex CLI
        "call_id",
        # content blocks
        "text", "thinking", "mimeType",
    }
)  # fmt: skip
"""Fields that hold a string (or null) wherever they appear in a line, its message or its blocks."""

_INNER = ("message", "payload")
"""Where formats nest the part that carries the fields above (pi and Claude: message; Codex: payload)."""


def has_surrogate_escape(text: str) -> bool:
    """Tell whether JSON text may decode to a lone surrogate (a ``\\ud800``-``\\udfff`` escape)."""
    return "\\u" in text and _SURROGATE_ESCAPE.search(text) is not None


def replace_surrogates_deep(value: Any) -> Any:
    """Return ``value`` with every lone surrogate in its strings and keys replaced by U+FFFD.

    Containers are changed in place, walked without recursion (a line may nest 900 deep).
    """
    if isinstance(value, str):
        return replace_surrogates(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = replace_surrogates(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
        elif isinstance(node, dict):
            if not all(key.isascii() for key in node):
                items = [(replace_surrogates(key), item) for key, item in node.items()]
                node.clear()
                node.update(items)
            for key, item in node.items():
                if isinstance(item, str):
                    node[key] = replace_surrogates(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
    return value


_TIME = (str, int, float, type(None))


def _drop_wrong_types(obj: dict[str, Any]) -> None:
    # The value's class first: most values pass there, before any set lookup (~30% faster).
    wrong = [k for k, v in obj.items() if v.__class__ is not str and v is not None and k in _STRING_FIELDS]
    for key in wrong:
        del obj[key]
    time = obj.get("timestamp")
    if time is not None and (time is True or time is False or not isinstance(time, _TIME)):
        del obj["timestamp"]


def contain_fields(value: Any) -> Any:
    """Drop the wrong-typed naming fields of a line, its message or payload, and their blocks."""
    if not isinstance(value, dict):
        return value
    _drop_wrong_types(value)
    for name in _INNER:
        inner = value.get(name)
        if isinstance(inner, dict):
            _drop_wrong_types(inner)
            blocks = inner.get("content")
            if isinstance(blocks, list):
                for block in blocks:
                    if isinstance(block, dict):
                        _drop_wrong_types(block)
    return value
