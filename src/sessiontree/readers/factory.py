"""Factory's droid sessions (``~/.factory/sessions/<encoded cwd>/<id>.jsonl``) read into the session model.

Factory's CLI is not public; the shape read here is the one its files have as the public readers of
them describe it (the Rust connector of coding-agent-search, agent-sessions' DroidSessionParser,
droidusage's settings parser, as of their 2026 sources) and as droid 0.2x writes it: a first line
``{type: session_start, id, title, owner, version, cwd}``, then ``{type: message, id, timestamp,
parentId?, message: {role: user | assistant, content: [Anthropic blocks: text, thinking, tool_use,
tool_result, image]}}`` lines; other line kinds (todo and compaction states) are kept under "all".
What droid writes into the user's turn (``<system-reminder>`` blocks, any whole XML-wrapped text) is
context, not a typed prompt. ``<id>.settings.json`` beside holds the session's model and token
totals (``tokenUsage: {inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens,
thinkingTokens}``), counted once on its last reply.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    Chain,
    as_str,
    image_block,
    iter_dicts,
    make_session,
    read_json_file,
    read_values,
    register,
    session_header,
    token_usage,
    tool_result_message,
    tool_use_call,
)
from sessiontree.readers.kimi import is_injected
from sessiontree.store.entries import content_blocks
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

SETTINGS_BYTES = 16 << 20
FACTORY_KINDS = (LineKind("factory:context", "Context", show="meta", context=False, dumped=False),)
"""What droid writes into the user's turn (see ``store.kinds``)."""
add_kinds(FACTORY_KINDS)

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)


def split_reminders(text: str) -> tuple[str, list[str]]:
    """A user text block's typed part, and the blocks droid injected into it."""
    injected = _REMINDER.findall(text)
    rest = _REMINDER.sub("", text).strip()
    if rest and is_injected(rest):
        return "", [*injected, rest]
    return rest, injected


class _Made(Chain):
    def __init__(self) -> None:
        super().__init__()
        self.names: dict[str, str] = {}

    def message(self, lineno: int, line: dict[str, Any]) -> None:
        message = line.get("message")
        message = message if isinstance(message, dict) else {}
        role, mid, ts = message.get("role"), as_str(line.get("id")) or f"F{lineno}", line.get("timestamp")
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content_blocks(content)
        made: list[dict[str, Any]] = []
        for at, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "text" and isinstance(block.get("text"), str):
                text = block["text"]
                if role == "user":
                    text, injected = split_reminders(text)
                    for n, shown in enumerate(injected):
                        self.add({"type": "custom", "id": f"{mid}.c{at}.{n}", "customType": "factory:context",
                                  "content": shown}, ts)  # fmt: skip
                if text:
                    made.append({"type": "text", "text": text})
            elif kind == "thinking" and as_str(block.get("thinking")):
                made.append({"type": "thinking", "thinking": block["thinking"]})
            elif kind == "image" and (image := image_block(block)) is not None:
                made.append(image)
            elif kind == "tool_use" and role == "assistant":
                made.append(tool_use_call(block, self.names, f"{mid}.{at}"))
            elif kind == "tool_result":
                result = tool_result_message(block, self.names, f"{mid}.{at}")
                self.add({"type": "message", "id": f"{mid}.r{at}", "message": result}, ts)
        if (
            made
            and role in ("user", "assistant")
            and (role == "assistant" or any(b["type"] == "text" for b in made))
        ):
            self.add({"type": "message", "id": mid, "message": {"role": role, "content": made}}, ts)


def settings_of(path: Path) -> dict[str, Any]:
    """A session's ``<id>.settings.json`` beside it (none: empty)."""
    try:
        settings = read_json_file(path.with_name(f"{path.stem}.settings.json"), SETTINGS_BYTES)
    except (OSError, ValueError):
        return {}
    return settings if isinstance(settings, dict) else {}


class FactoryReader:
    """Factory droid's session files (JSON lines)."""

    agent: ClassVar[str] = "factory"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session (read-only)."""
        values, bad = read_values(path)
        made = _Made()
        start: dict[str, Any] = {}
        for lineno, line in iter_dicts(values, bad):
            kind = line.get("type")
            if kind == "session_start" and not start:
                start = line
            elif kind == "message":
                made.message(lineno, line)
            elif isinstance(kind, str):
                made.add(
                    {"type": "custom", "id": f"F{lineno}", "customType": f"factory:{kind}", "data": line}
                )
        settings = settings_of(path)
        replies = [e for e in made.entries if e.get("message", {}).get("role") == "assistant"]
        used = settings.get("tokenUsage")
        keys = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheCreationTokens")
        usage = token_usage(used, keys) if isinstance(used, dict) else None
        if replies and usage is not None:  # the session's totals, counted once: on its last reply
            replies[-1]["message"]["usage"] = usage
        for reply in replies if as_str(settings.get("model")) else []:
            reply["message"]["model"] = settings["model"]
        first = next((e.get("timestamp") for e in made.entries if e.get("timestamp")), None)
        header = session_header(
            "factory",
            as_str(start.get("id")) or path.stem,
            as_str(start.get("cwd")) or "",
            timestamp=first,
            title=start.get("sessionTitle") or start.get("title"),
        )
        return make_session(path, header if values else {}, made.entries, bad, made.last_id())


register(FactoryReader())
