"""Kimi CLI's sessions (``~/.kimi/sessions/<md5 of the work dir>/<id>/context.jsonl``) read into
the session model.

Read as Kimi CLI 1.49.0 writes them (``soul/context.py``, ``wire/file.py``, ``wire/types.py``,
``metadata.py``; kosong 0.55's ``Message``; ``$KIMI_SHARE_DIR`` moves ``~/.kimi``). ``context.jsonl``
holds one record a line: ``{role: _system_prompt, content}``, ``{role: _checkpoint, id}``, ``{role:
_usage, token_count}`` (the context's size, not a spend) and messages ``{role: user | assistant |
tool | system, content: text | [{type: text | think | image_url, ...}], tool_calls?: [{id, function:
{name, arguments}}], tool_call_id?}``. Text the CLI writes into the user's turn is wrapped in
``<system>`` (a checkpoint's note, a reminder) and is no typed prompt. ``wire.jsonl`` beside holds
the events with their times (``{timestamp, message: {type, payload}}``): each ``StatusUpdate``'s
``token_usage`` (``input_other``, ``output``, ``input_cache_read``, ``input_cache_creation``) is one
step's spend, given to the replies in order, and each ``TurnBegin``'s time to the prompts.
``~/.kimi/kimi.json`` names the work dirs (``work_dirs: [{path}]``), whose md5 names the folder.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    Chain,
    as_str,
    iter_dicts,
    make_session,
    read_json_file,
    read_values,
    register,
    session_header,
    token_usage,
)
from sessiontree.readers.chat_messages import function_calls, text_of_content
from sessiontree.readers.opencode_layout import iso_time
from sessiontree.store.entries import dicts_of
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

CONTEXT = "context.jsonl"
WIRE = "wire.jsonl"
KIMI_KINDS = (
    LineKind("kimi:system", "System prompt", show="meta", context=False, dumped=False),
    LineKind("kimi:context", "Context", show="meta", context=False, dumped=False),
)
"""Kimi CLI's records that are not conversation (see ``store.kinds``)."""
add_kinds(KIMI_KINDS)


def wire_events(path: Path) -> tuple[list[dict[str, Any] | None], list[str | None]]:
    """The spend of each step and the time of each turn a session's ``wire.jsonl`` records."""
    try:
        values, _ = read_values(path)
    except OSError:
        return [], []
    usages: list[dict[str, Any] | None] = []
    turns: list[str | None] = []
    for _, record in iter_dicts(values, []):
        message = record.get("message")
        kind = message.get("type") if isinstance(message, dict) else None
        payload = message.get("payload") if isinstance(message, dict) else None
        payload = payload if isinstance(payload, dict) else {}
        stamp = record.get("timestamp")
        when = (
            iso_time(stamp * 1000) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else None
        )
        if kind == "TurnBegin":
            turns.append(when)
        elif kind == "StatusUpdate" and isinstance(payload.get("token_usage"), dict):
            keys = ("input_other", "output", "input_cache_read", "input_cache_creation")
            usage = token_usage(payload["token_usage"], keys)
            usages.append(None if usage is None else {**usage, "_at": when})
    return usages, turns


def work_dir_of(session_dir: Path) -> str:
    """The work dir whose md5 names a session's folder, as ``kimi.json`` two levels up lists it."""
    share = session_dir.parent.parent.parent
    try:
        metadata = read_json_file(share / "kimi.json", 16 << 20)
    except (OSError, ValueError):
        return ""
    folder = session_dir.parent.name.rsplit("_", 1)[-1]
    for entry in dicts_of(metadata.get("work_dirs") if isinstance(metadata, dict) else None):
        path = as_str(entry.get("path"))
        if path is not None and hashlib.md5(path.encode("utf-8", "surrogatepass")).hexdigest() == folder:
            return path
    return ""


def is_injected(text: str) -> bool:
    """Tell whether a user-turn text is the CLI's (wrapped in a tag, ``<system>`` and the like)."""
    stripped = text.strip()
    return stripped.startswith("<") and stripped.endswith(">") and ">" in stripped[:64]


class _Made(Chain):
    def __init__(self, usages: list[dict[str, Any] | None], turns: list[str | None]) -> None:
        super().__init__()
        self.usages, self.turns = usages, turns
        self.names: dict[str, str] = {}

    def record(self, lineno: int, record: dict[str, Any]) -> None:
        role, mid = record.get("role"), f"K{lineno}"
        content = record.get("content")
        if role == "_system_prompt" and as_str(content):
            self.add({"type": "custom", "id": mid, "customType": "kimi:system", "content": content})
        elif role == "user":
            texts = text_of_content(content)
            typed = [t for t in texts if not is_injected(t)]
            ts = self.turns.pop(0) if typed and self.turns else None
            if typed:
                parts = [{"type": "text", "text": t} for t in typed]
                self.add({"type": "message", "id": mid, "message": {"role": "user", "content": parts}}, ts)
            for at, text in enumerate(t for t in texts if is_injected(t)):
                self.add(
                    {"type": "custom", "id": f"{mid}.{at}", "customType": "kimi:context", "content": text}, ts
                )
        elif role == "assistant":
            blocks: list[dict[str, Any]] = [
                {"type": "thinking", "thinking": p["think"]}
                for p in dicts_of(content)
                if p.get("type") == "think" and as_str(p.get("think"))
            ]
            blocks += [{"type": "text", "text": t} for t in text_of_content(content)]
            blocks += function_calls(record.get("tool_calls"), self.names, mid)
            if not blocks:
                return
            message: dict[str, Any] = {"role": "assistant", "content": blocks}
            usage = self.usages.pop(0) if self.usages else None
            ts = usage.pop("_at", None) if usage else None
            if usage is not None:
                message["usage"] = usage
            self.add({"type": "message", "id": mid, "message": message}, ts)
        elif role == "tool":
            cid = as_str(record.get("tool_call_id")) or mid
            text = "\n".join(text_of_content(content))
            result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, "tool"),
                      "content": [{"type": "text", "text": text}], "isError": False}  # fmt: skip
            self.add({"type": "message", "id": mid, "message": result})


class KimiReader:
    """Kimi CLI's ``context.jsonl`` (with its ``wire.jsonl`` beside)."""

    agent: ClassVar[str] = "kimi"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session folder of ``path`` (read-only)."""
        values, bad = read_values(path)
        usages, turns = wire_events(path.parent / WIRE)
        made = _Made(usages, turns)
        for lineno, record in iter_dicts(values, bad):
            made.record(lineno, record)
        session_id = path.parent.name if path.name == CONTEXT else path.stem
        first = next((e.get("timestamp") for e in made.entries if e.get("timestamp")), None)
        header = session_header("kimi", session_id, work_dir_of(path.parent), timestamp=first)
        return make_session(path, header if values else {}, made.entries, bad, made.last_id())


register(KimiReader())
