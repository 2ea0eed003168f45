"""What the search index holds of one entry: its searchable text, split by role."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from sessiontree.store.content import part_texts
from sessiontree.store.entries import content_blocks
from sessiontree.store.surrogates import replace_surrogates
from sessiontree.store.times import time_millis

MAX_TEXT_CHARS = 1_000_000
"""Most characters indexed per row: every word of a text up to 1 M characters is searchable; a
longer one (a whole log dumped by a tool) is indexed by its head and its tail. Measured: a
0.92 M-character tool output of 34,000 distinct words adds 0.09 s of CPU and 0.61 MiB to the
index (tests/archive/test_search.py checks the bound)."""

TAIL_CHARS = 100_000
"""Of ``MAX_TEXT_CHARS``, how many come from the end of a cut text (errors tend to be last)."""

"""Year 10000: later (or absurd) times in a session count as unknown."""

TITLE_TIER = 0
BODY_TIER = 1

ROLES = ("user", "assistant", "tool", "summary", "custom", "title", "label")
"""Roles a row can have; ``--role`` accepts the first three."""

_MESSAGE_ROLES = {
    "user": "user",
    "developer": "user",
    "fileMention": "user",
    "assistant": "assistant",
    "toolResult": "tool",
    "bashExecution": "tool",
    "pythonExecution": "tool",
    "custom": "custom",
    "hookMessage": "custom",
    "branchSummary": "summary",
    "compactionSummary": "summary",
}


@dataclass(frozen=True, slots=True)
class Row:
    """One searchable piece of an entry (an assistant message gives one for its text, one for its calls)."""

    entry_id: str | None
    role: str
    tier: int
    ts: int
    """Milliseconds since the epoch (0 when the entry says nothing usable)."""
    text: str


def cut_text(text: str) -> str:
    """Keep the head and the tail of a text longer than ``MAX_TEXT_CHARS``."""
    # SQLite stores UTF-8: a lone surrogate (legal in JSON) would fail the insert.
    text = replace_surrogates(text)
    if len(text) <= MAX_TEXT_CHARS:
        return text
    return text[: MAX_TEXT_CHARS - TAIL_CHARS] + "\n…\n" + text[-TAIL_CHARS:]


def parse_time(value: object) -> int:
    """Return an ISO timestamp or epoch milliseconds as epoch milliseconds (0 when unusable)."""
    return time_millis(value) or 0


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content_blocks(content):
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            marked = part_texts(block)  # what the markup the reader parsed holds, its tags left out
            parts.append(text if marked is None else "\n".join(t.strip() for t in marked if t.strip()))
    return "\n".join(parts)


def _arguments_text(value: object) -> str:
    """Flatten tool-call arguments to their values (keys and JSON punctuation are not worth
    indexing), walked without recursion: a line may nest 900 deep."""
    parts: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            parts.append(node)
        elif isinstance(node, Mapping | list):
            items = list(node.values()) if isinstance(node, Mapping) else node
            stack.extend(reversed(items))
        elif isinstance(node, int | float) and not isinstance(node, bool):
            parts.append(json.dumps(node))  # the decoder's hooks keep every number finite
    return "\n".join(parts)


def _join(*parts: object) -> str:
    return "\n".join(p for p in parts if isinstance(p, str) and p)


def _assistant_rows(entry_id: str | None, ts: int, message: Mapping[str, Any]) -> Iterator[Row]:
    content = message.get("content")
    said: list[str] = []
    calls: list[str] = []
    if isinstance(content, str):
        said.append(content)
    for block in content_blocks(content):
        kind = block.get("type")
        if kind == "text":
            said.append(_join(block.get("text")))
        elif kind == "thinking":
            said.append(_join(block.get("thinking")))
        elif kind == "toolCall":
            calls.append(_join(block.get("name"), _arguments_text(block.get("arguments"))))
    error = message.get("errorMessage")
    if isinstance(error, str):
        said.append(error)
    text = _join(*said)
    if text:
        yield Row(entry_id, "assistant", BODY_TIER, ts, cut_text(text))
    calls_text = _join(*calls)
    if calls_text:
        yield Row(entry_id, "tool", BODY_TIER, ts, cut_text(calls_text))


def _message_rows(entry_id: str | None, ts: int, message: Mapping[str, Any]) -> Iterator[Row]:
    role = message.get("role")
    ts = ts or parse_time(message.get("timestamp"))
    if role == "assistant":
        yield from _assistant_rows(entry_id, ts, message)
        return
    kind = _MESSAGE_ROLES.get(role) if isinstance(role, str) else None
    if kind is None:
        return
    if role == "toolResult":
        text = _join(message.get("toolName"), _content_text(message.get("content")))
    elif role == "bashExecution":
        text = _join(message.get("command"), message.get("output"))
    elif role == "pythonExecution":
        text = _join(message.get("code"), message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        text = _join(message.get("summary"))
    else:
        text = _content_text(message.get("content"))
    if text:
        yield Row(entry_id, kind, BODY_TIER, ts, cut_text(text))


def rows_of_entry(entry: Mapping[str, Any], entry_id: str | None) -> Iterator[Row]:
    """Yield the searchable rows of one entry (labels and titles in the title tier)."""
    kind = entry.get("type")
    ts = parse_time(entry.get("timestamp"))
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, Mapping):
            yield from _message_rows(entry_id, ts, message)
    elif kind in ("compaction", "branch_summary"):
        text = _join(entry.get("shortSummary"), entry.get("summary"))
        if text:
            yield Row(entry_id, "summary", BODY_TIER, ts, cut_text(text))
    elif kind == "custom_message":
        text = _content_text(entry.get("content"))
        if text:
            yield Row(entry_id, "custom", BODY_TIER, ts, cut_text(text))
    elif kind == "label":
        label, target = entry.get("label"), entry.get("targetId")
        if isinstance(label, str) and label.strip():
            yield Row(
                target if isinstance(target, str) else entry_id, "label", TITLE_TIER, ts, cut_text(label)
            )


def title_row(header: Mapping[str, Any]) -> Row | None:
    """The row of a session's title, if it has one."""
    title = header.get("title")
    if not isinstance(title, str) or not title.strip():
        return None
    return Row(None, "title", TITLE_TIER, parse_time(header.get("timestamp")), cut_text(title))
