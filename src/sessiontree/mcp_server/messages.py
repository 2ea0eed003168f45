"""A session's branch as the read tool shows it: one short record per message, tool calls apart."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sessiontree.store.content import text_of
from sessiontree.store.context import ENTRY_MESSAGES, iso_to_millis, message_of_entry
from sessiontree.store.kinds import typed_prompt

_TOOL_ROLES = frozenset({"toolResult", "bashExecution", "pythonExecution"})


@dataclass(frozen=True)
class Shown:
    """One message of the branch: who, when, its text and its tool calls (``name(arguments)``)."""

    role: str
    text: str
    ts: int | None
    entry_id: str | None
    tool: bool
    """A tool's result or a command's output (shortened unless asked)."""
    typed: bool | None = None
    """For a user message: whether the person typed it (False: the agent put it in the user's turn)."""
    calls: list[str] = field(default_factory=list)


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []


def _arguments(value: Any) -> str:
    if value is None or value == {}:
        return ""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _assistant(message: Mapping[str, Any]) -> tuple[str, list[str]]:
    texts: list[str] = []
    calls: list[str] = []
    for block in _blocks(message.get("content")):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "toolCall":
            name = block.get("name")
            calls.append(f"{name if isinstance(name, str) else 'tool'}({_arguments(block.get('arguments'))})")
    return "\n".join(texts), calls


def _with_images(content: Any) -> str:
    parts: list[str] = []
    for block in _blocks(content):
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def _execution(message: Mapping[str, Any]) -> str:
    what = message.get("command") if message.get("role") == "bashExecution" else message.get("code")
    output = message.get("output")
    code = message.get("exitCode")
    head = f"$ {what}" if isinstance(what, str) else "(command)"
    tail = f"\n(exit code {code})" if isinstance(code, int) and code != 0 else ""
    return f"{head}\n{output if isinstance(output, str) else ''}{tail}"


def _shown(entry: Mapping[str, Any], message: Mapping[str, Any]) -> Shown | None:
    role = message.get("role")
    if not isinstance(role, str):
        return None
    entry_id = entry.get("id") if isinstance(entry.get("id"), str) else None
    ts = iso_to_millis(entry.get("timestamp"))
    if ts is None and isinstance(message.get("timestamp"), int | float):
        ts = int(message["timestamp"])
    if role == "assistant":
        text, calls = _assistant(message)
        return Shown(role, text, ts, entry_id, False, calls=calls)
    if role in ("user", "developer"):
        typed = bool(typed_prompt(entry)) if role == "user" else None
        return Shown(role, _with_images(message.get("content")), ts, entry_id, False, typed=typed)
    if role == "toolResult":
        name = message.get("toolName")
        error = " (error)" if message.get("isError") else ""
        head = f"[{name if isinstance(name, str) else 'tool'} result{error}]\n"
        return Shown(role, head + _with_images(message.get("content")), ts, entry_id, True)
    if role in ("bashExecution", "pythonExecution"):
        return Shown(role, _execution(message), ts, entry_id, True)
    if role in ("compactionSummary", "branchSummary"):
        return Shown(role, text_of(message.get("summary")), ts, entry_id, False)
    text = text_of(message.get("content"))
    return Shown(role, text, ts, entry_id, False) if text else None


def shown_messages(path: Iterable[Mapping[str, Any]]) -> list[Shown]:
    """The messages of a branch (root to leaf) in order, summaries and extensions' messages included."""
    out: list[Shown] = []
    for entry in path:
        kind = entry.get("type")
        if kind == "message":
            message = entry.get("message")
            shown = _shown(entry, message) if isinstance(message, Mapping) else None
        elif kind in ENTRY_MESSAGES:
            shown = _shown(entry, message_of_entry(dict(entry)))
        else:
            shown = None
        if shown is not None and (shown.text or shown.calls):
            out.append(shown)
    return out
