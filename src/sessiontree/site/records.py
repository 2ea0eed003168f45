"""The search records of a session: one per message, the text a reader would search for."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypedDict

from sessiontree.exporter.ansi import strip_ansi
from sessiontree.store import Session

TOOL_TEXT_CHARS = 4000
"""Tool output beyond this is left out of the search index (it is most of an archive's bytes)."""


class SearchRecord(TypedDict):
    """One searchable message: its entry id, a role, and its text."""

    id: str
    role: str
    text: str


def _block_texts(content: Any, *, thinking: bool) -> Iterator[str]:
    if isinstance(content, str):
        yield content
        return
    if not isinstance(content, list):
        return
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            yield block["text"]
        elif kind == "thinking" and thinking and isinstance(block.get("thinking"), str):
            yield block["thinking"]
        elif kind == "toolCall" and isinstance(block.get("name"), str):
            yield block["name"]


def _message_record(message: Mapping[str, Any]) -> tuple[str, str] | None:
    role = message.get("role")
    if role == "user":
        return "user", "\n".join(_block_texts(message.get("content"), thinking=False))
    if role == "assistant":
        return "assistant", "\n".join(_block_texts(message.get("content"), thinking=True))
    if role == "toolResult":
        text = "\n".join(_block_texts(message.get("content"), thinking=False))
        name = message.get("toolName")
        head = f"{name}\n" if isinstance(name, str) else ""
        return "tool", head + strip_ansi(text[:TOOL_TEXT_CHARS])
    if role == "bashExecution":
        out = message.get("output")
        return (
            "tool",
            f"{message.get('command', '')}\n{strip_ansi(str(out)[:TOOL_TEXT_CHARS]) if out else ''}",
        )
    if role in ("custom", "hookMessage") and message.get("display", True):
        return "custom", "\n".join(_block_texts(message.get("content"), thinking=False))
    return None


def _entry_record(entry: Mapping[str, Any]) -> tuple[str, str] | None:
    kind = entry.get("type")
    if kind == "message" and isinstance(entry.get("message"), Mapping):
        return _message_record(entry["message"])
    if kind in ("compaction", "branch_summary") and isinstance(entry.get("summary"), str):
        return "summary", entry["summary"]
    if kind == "custom_message" and entry.get("display", True):
        return "custom", "\n".join(_block_texts(entry.get("content"), thinking=False))
    return None


def session_records(session: Session) -> list[SearchRecord]:
    """The search records of every entry on every branch (empty texts left out)."""
    records: list[SearchRecord] = []
    for entry in session.entries:
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            continue
        found = _entry_record(entry)
        if found is None:
            continue
        role, text = found
        text = text.strip()
        if text:
            records.append({"id": entry_id, "role": role, "text": text})
    return records
