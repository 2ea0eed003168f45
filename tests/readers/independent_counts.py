"""An independent count of what a real session file holds, from its raw JSON lines alone (no
sessiontree code): typed prompts, assistant messages and tool calls, for pi, Claude Code, Codex and
Continue (one JSON object a session)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# What Claude Code writes into a user record that is no prompt: its markup and notices, and a
# command (a slash command, a ! shell command) the person ran rather than a prompt.
_CLAUDE_NOT_TYPED = re.compile(
    r"^\s*(<command-name>|<command-message>|<local-command-|<system-reminder>|<task-notification>|"
    r"<bash-input>|<bash-stdout>|<bash-stderr>|Caveat: |\[Request interrupted|"
    r"This session is being continued|Your task is to create a detailed summary)"
)
_CODEX_NOT_TYPED = ("<environment_context>", "<user_instructions>", "# AGENTS.md", "<permissions",
                    "<user_shell_command>", "<turn_aborted>", "<INSTRUCTIONS>")  # fmt: skip
_CODEX_OUTPUT = {"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"}
_CODEX_CALLS = _CODEX_OUTPUT - {"reasoning"}


@dataclass
class Counts:
    prompts: int = 0
    assistant: int = 0
    tool_calls: int = 0


def _objects(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of every line (a line where a writer left two objects with no newline
    between them holds both)."""
    decoder, out = json.JSONDecoder(), []
    for line in path.read_bytes().decode("utf-8", "replace").splitlines():
        at = 0
        while at < len(line.rstrip()):
            try:
                value, end = decoder.raw_decode(line, at)
            except ValueError:
                break
            if isinstance(value, dict):
                out.append(value)
            at = end + len(line[end:]) - len(line[end:].lstrip())
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b)
    return ""


def count_claude(path: Path) -> Counts:
    counts, seen, replies, calls = Counts(), set(), set(), set()
    for obj in _objects(path):
        uuid = obj.get("uuid")
        if uuid in seen:
            continue
        seen.add(uuid)
        attachment = obj.get("attachment")
        if obj.get("type") == "attachment" and isinstance(attachment, dict):
            if attachment.get("type") == "queued_command" and _text(attachment.get("prompt")).strip():
                counts.prompts += 1
            continue
        message = obj.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if obj.get("type") == "assistant":
            if message.get("id") not in replies or message.get("id") is None:
                counts.assistant += 1
            replies.add(message.get("id"))
            for block in blocks:
                if (
                    isinstance(block, dict)
                    and block.get("type") == "tool_use"
                    and block.get("id") not in calls
                ):
                    calls.add(block.get("id"))
                    counts.tool_calls += 1
        elif obj.get("type") == "user":
            if obj.get("isMeta") or obj.get("isCompactSummary") or obj.get("isSidechain"):
                continue
            if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in blocks):
                continue
            text = _text(content)
            if text.strip() and not _CLAUDE_NOT_TYPED.match(text):
                counts.prompts += 1
    return counts


def count_codex(path: Path) -> Counts:
    counts, in_reply = Counts(), False
    objs = _objects(path)
    events = sum(
        1
        for o in objs
        if o.get("type") == "event_msg" and (o.get("payload") or {}).get("type") == "user_message"
    )
    for obj in objs:
        inner = obj.get("payload")
        payload: dict[str, Any] = inner if isinstance(inner, dict) else obj
        kind = payload.get("type")
        if obj.get("type") == "event_msg" and kind == "user_message":
            text = str(payload.get("message", ""))
            if text.strip() and not text.lstrip().startswith(_CODEX_NOT_TYPED):
                counts.prompts += 1
            continue
        if isinstance(obj.get("payload"), dict) and obj.get("type") != "response_item":
            continue  # session_meta, turn_context, other events (the old format has no envelope)
        if kind == "message" and payload.get("role") == "user":
            text = _text(payload.get("content"))
            if not events and text.strip() and not text.lstrip().startswith(_CODEX_NOT_TYPED):
                counts.prompts += 1
            in_reply = False
        elif (kind == "message" and payload.get("role") == "assistant") or kind in _CODEX_OUTPUT:
            if not in_reply:
                counts.assistant += 1
            in_reply = True
            counts.tool_calls += kind in _CODEX_CALLS
        elif kind in ("function_call_output", "custom_tool_call_output"):
            in_reply = False
    return counts


def count_pi(path: Path) -> Counts:
    counts = Counts()
    for obj in _objects(path):
        message = obj.get("message")
        if obj.get("type") != "message" or not isinstance(message, dict):
            continue
        content = message.get("content")
        if message.get("role") == "user" and _text(content).strip():
            counts.prompts += 1
        elif message.get("role") == "assistant":
            counts.assistant += 1
            blocks = content if isinstance(content, list) else []
            counts.tool_calls += sum(1 for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall")
    return counts


_WRAPPED = re.compile(r"^\s*<([A-Za-z][\w:-]*)[^>]*>.*</\1>\s*$", re.S)
"""A text that is one tag-wrapped block (what an extension writes into the user's turn)."""


def count_continue(path: Path) -> Counts:
    counts = Counts()
    session = json.loads(path.read_bytes())
    for item in session.get("history") or []:
        message = item.get("message") if isinstance(item, dict) else None
        if not isinstance(message, dict):
            continue
        text = _text(message.get("content"))
        if message.get("role") == "user" and text.strip() and not _WRAPPED.match(text):
            counts.prompts += 1
        elif message.get("role") == "assistant":
            counts.assistant += 1
            counts.tool_calls += len(message.get("toolCalls") or [])
    return counts


COUNTERS = {"claude": count_claude, "codex": count_codex, "pi": count_pi, "continue": count_continue}
"""The counter of each agent whose real files are kept, by the folder they are kept in."""
