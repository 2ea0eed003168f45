"""GitHub Copilot CLI's session logs (``~/.copilot/session-state/<id>/events.jsonl``) read as sessions.

Copilot CLI appends one event a line (the session events of github/copilot-sdk's
``generated/session_events``): ``{type, data, id, timestamp, parentId}``. ``session.start``
(``sessionId``, ``copilotVersion``, ``context.cwd`` / ``branch``) opens the log; ``user.message``
(``content``: what the person typed) and ``assistant.message`` (``content``, ``toolRequests``
``[{toolCallId, name, arguments}]``, ``reasoningText``) are the conversation; a tool's run is
``tool.execution_start`` then ``tool.execution_complete`` (``success``, ``result.content``,
``error.message``); ``assistant.usage`` (``model``, ``inputTokens``, ``outputTokens``,
``cacheReadTokens``, ``cacheWriteTokens``, ``cost``) counts a reply; ``session.model_change``,
``session.info``, ``session.error``, ``session.compaction_complete``, ``abort`` and the rest are
notices. Older releases wrote the same events to ``session-state/<id>.jsonl``.

Checked against github/copilot-sdk's ``session-events.ts`` (the schema of late 2026): a tool's
result shows ``detailedContent`` (what the timeline shows; ``content`` is the copy cut for the
model) and the images of ``contents``; ``session.task_complete`` (the agent's summary),
``session.warning``, ``session.mode_changed``, ``skill.invoked``, ``subagent.failed`` and
``system.notification`` (a background agent or shell finished: Copilot's words, never typed) are notices.
At copilot-sdk commit cc0438d6 (nodejs/src/generated/session-events.ts): a failed ``hook.end``
(``hookType``, ``error.message`` / ``source``) is a 'Hook failed' notice, ``session.handoff``
(``sourceType``, ``repository {owner, name, branch}``, ``summary``, ``context``) a 'Handoff' one and
``session.truncation`` (messages and tokens removed, by ``performedBy``) a 'Truncation' one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import Chain, as_str, iter_dicts, make_session, read_values, register
from sessiontree.readers.claude_blocks import convert_usage
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

COPILOT_KINDS = (
    LineKind("copilot:error", "Error", show="error", counted=True),
    LineKind("copilot:info", "Info", context=False),
    LineKind("copilot:model", "Model", context=False),
    LineKind("copilot:compaction", "Compaction", context=False),
    LineKind("copilot:abort", "Interrupted", context=False),
    LineKind("copilot:task_complete", "Task complete", context=False),
    LineKind("copilot:warning", "Warning", context=False, counted=True),
    LineKind("copilot:mode", "Mode", context=False),
    LineKind("copilot:skill", "Skill", context=False),
    LineKind("copilot:subagent_failed", "Subagent failed", show="error", context=False, counted=True),
    LineKind("copilot:notification", "Notification", context=False, counted=True),
    LineKind("copilot:hook_failed", "Hook failed", show="error", context=False, counted=True),
    LineKind("copilot:handoff", "Handoff", context=False),
    LineKind("copilot:truncation", "Truncation", context=False),
)
"""Copilot CLI's events that are not conversation (see ``store.kinds``)."""
add_kinds(COPILOT_KINDS)

SKIPPED = frozenset({"assistant.turn_start", "assistant.turn_end", "session.idle", "tool.execution_start"})
"""Events a page adds nothing from (a tool's start is its call, already in the reply)."""


def usage_of(data: dict[str, Any]) -> dict[str, Any] | None:
    """``assistant.usage`` as the store's usage (its ``cost``, when written, wins over an estimate)."""
    names = {
        "input_tokens": "inputTokens",
        "output_tokens": "outputTokens",
        "cache_read_input_tokens": "cacheReadTokens",
        "cache_creation_input_tokens": "cacheWriteTokens",
    }
    return convert_usage({ours: data.get(theirs) for ours, theirs in names.items()}, data.get("cost"))


def _attachments(value: Any) -> list[str]:
    """The names of a prompt's attachments (files, folders, selections): shown name, else path."""
    names: list[str] = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            name = as_str(item.get("displayName")) or as_str(item.get("path")) or as_str(item.get("filePath"))
            if name:
                names.append(name)
    return names


NOTICES = {
    "session.task_complete": ("copilot:task_complete", "summary"),
    "session.warning": ("copilot:warning", "message"),
    "skill.invoked": ("copilot:skill", "name"),
    "subagent.failed": ("copilot:subagent_failed", "error"),
    "system.notification": ("copilot:notification", "content"),
}
"""Events shown as one notice: event type -> (row, the field holding its text)."""


def _hook_failed(data: dict[str, Any]) -> str:
    """A failed ``hook.end``: the hook's type, its error and where the hook came from."""
    found = data.get("error")
    error: dict[str, Any] = found if isinstance(found, dict) else {}
    text = f"{as_str(data.get('hookType')) or 'hook'}: {_text(error.get('message')) or 'failed'}"
    return f"{text} ({error['source']})" if as_str(error.get("source")) else text


def _handoff(data: dict[str, Any]) -> str:
    """``session.handoff``: where the session came from, then its summary and context."""
    found = data.get("repository")
    repo: dict[str, Any] = found if isinstance(found, dict) else {}
    name = "/".join(t for t in (as_str(repo.get("owner")), as_str(repo.get("name"))) if t)
    if name and as_str(repo.get("branch")):
        name = f"{name}@{repo['branch']}"
    head = f"Handed off from a {as_str(data.get('sourceType')) or 'remote'} session"
    head += f" ({name})" if name else ""
    return "\n\n".join(t for t in (head, _text(data.get("summary")), _text(data.get("context"))) if t)


def _truncation(data: dict[str, Any]) -> str:
    """``session.truncation``: what was cut from the conversation, and what is left of its window."""

    def num(key: str) -> str:
        value = data.get(key)
        return f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else "?"

    by = as_str(data.get("performedBy"))
    return (
        f"Context truncated{f' by {by}' if by else ''}: {num('messagesRemovedDuringTruncation')} messages"
        f" ({num('tokensRemovedDuringTruncation')} tokens) removed;"
        f" {num('postTruncationMessagesLength')} messages, {num('postTruncationTokensInMessages')}"
        f" of {num('tokenLimit')} tokens left"
    )


def _images(contents: Any) -> list[dict[str, Any]]:
    """The images of a tool result's ``contents`` blocks (MCP's shape) as image blocks."""
    return [
        {"type": "image", "data": c["data"], "mimeType": c["mimeType"]}
        for c in (contents if isinstance(contents, list) else ())
        if isinstance(c, dict)
        and c.get("type") == "image"
        and as_str(c.get("data"))
        and as_str(c.get("mimeType"))
    ]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return _text(value.get("content") or value.get("message") or value.get("detailedContent"))
    return json.dumps(value, ensure_ascii=False) if value is not None else ""


class _Made(Chain):
    def __init__(self) -> None:
        super().__init__()
        self.header: dict[str, Any] = {}
        self.names: dict[str, str] = {}  # tool call id -> tool name
        self.reply: dict[str, Any] | None = None
        self.model: str | None = None

    def notice(self, eid: str, kind: str, text: str, ts: Any) -> None:
        self.add({"type": "custom", "id": eid, "customType": kind, "content": text}, ts)

    def event(self, lineno: int, event: dict[str, Any]) -> None:
        kind, ts = event["type"], event.get("timestamp")
        eid = as_str(event.get("id")) or f"C{lineno}"
        raw = event.get("data")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if kind == "session.start":
            found = data.get("context")
            context: dict[str, Any] = found if isinstance(found, dict) else {}
            fields = {"id": data.get("sessionId"), "timestamp": data.get("startTime"),
                      "agentVersion": data.get("copilotVersion"), "cwd": context.get("cwd"),
                      "gitBranch": context.get("branch")}  # fmt: skip
            for key, value in fields.items():
                if as_str(value) and key not in self.header:
                    self.header[key] = value
        elif kind == "user.message":
            text = _text(data.get("content"))
            # What the person attached is part of the prompt: one with only an attachment is one.
            attached = [f"[attached: {name}]" for name in _attachments(data.get("attachments"))]
            text = "\n".join(t for t in (text, *attached) if t)
            self.add(
                {
                    "type": "message",
                    "id": eid,
                    "message": {"role": "user", "content": [{"type": "text", "text": text}]},
                },
                ts,
            )
            self.reply = None
        elif kind == "assistant.message":
            self._reply(eid, data, ts)
        elif kind == "assistant.reasoning" and as_str(data.get("content")):
            self._reply(eid, {"reasoningText": data["content"]}, ts)
        elif kind == "tool.execution_complete":
            call = as_str(data.get("toolCallId")) or eid
            failed = data.get("success") is False
            found = data.get("result")
            done: dict[str, Any] = found if isinstance(found, dict) else {}
            shown = as_str(done.get("detailedContent"))  # what the timeline showed, uncut
            text = _text(data.get("error") if failed and data.get("error") else shown or found)
            name = self.names.get(call) or as_str(data.get("toolName")) or "tool"
            result = {"role": "toolResult", "toolCallId": call, "toolName": name,
                      "content": [{"type": "text", "text": text}, *_images(done.get("contents"))],
                      "isError": failed}  # fmt: skip
            self.add({"type": "message", "id": eid, "message": result}, ts)
        elif kind == "assistant.usage" and self.reply is not None:
            self.reply["usage"] = usage_of(data)
            if as_str(data.get("model")):
                self.reply["model"] = data["model"]
        elif kind == "session.model_change" and as_str(data.get("newModel")):
            self.model = data["newModel"]
            self.notice(eid, "copilot:model", f"Model: {data['newModel']}", ts)
        elif kind == "session.error":
            self.notice(
                eid,
                "copilot:error",
                " ".join(t for t in (as_str(data.get("errorType")), as_str(data.get("message"))) if t),
                ts,
            )
        elif kind == "session.info":
            self.notice(eid, "copilot:info", _text(data.get("message")), ts)
        elif kind == "session.compaction_complete":
            self.notice(eid, "copilot:compaction", "Context compacted", ts)
        elif kind in NOTICES and (text := _text(data.get(NOTICES[kind][1]))):
            self.notice(eid, NOTICES[kind][0], text, ts)
        elif kind == "session.mode_changed" and as_str(data.get("newMode")):
            self.notice(eid, "copilot:mode", f"Mode: {data['newMode']}", ts)
        elif kind == "hook.end" and data.get("success") is False:
            self.notice(eid, "copilot:hook_failed", _hook_failed(data), ts)
        elif kind == "session.handoff":
            self.notice(eid, "copilot:handoff", _handoff(data), ts)
        elif kind == "session.truncation":
            self.notice(eid, "copilot:truncation", _truncation(data), ts)
        elif kind == "abort":
            self.notice(eid, "copilot:abort", as_str(data.get("reason")) or "Interrupted", ts)
        elif kind not in SKIPPED:
            self.add({"type": "custom", "id": eid, "customType": f"copilot:{kind}", "data": event}, ts)

    def _reply(self, eid: str, data: dict[str, Any], ts: Any) -> None:
        content: list[dict[str, Any]] = []
        if as_str(data.get("reasoningText")):
            content.append({"type": "thinking", "thinking": data["reasoningText"]})
        if as_str(data.get("content")):
            content.append({"type": "text", "text": data["content"]})
        requests = data.get("toolRequests")
        for request in requests if isinstance(requests, list) else []:
            if not isinstance(request, dict):
                continue
            call = as_str(request.get("toolCallId")) or f"{eid}.{len(content)}"
            name = as_str(request.get("name")) or "tool"
            self.names[call] = name
            args = request.get("arguments")
            content.append(
                {
                    "type": "toolCall",
                    "id": call,
                    "name": name,
                    "arguments": args if isinstance(args, dict) else {"input": args},
                }
            )
        if not content:
            return
        message: dict[str, Any] = {"role": "assistant", "content": content, "provider": "github-copilot"}
        if self.model:
            message["model"] = self.model
        self.add({"type": "message", "id": eid, "message": message}, ts)
        self.reply = message


class CopilotReader:
    """GitHub Copilot CLI session logs (``events.jsonl``)."""

    agent: ClassVar[str] = "copilot"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the log (read-only)."""
        values, bad = read_values(path)
        made = _Made()
        for lineno, event in iter_dicts(values, bad):
            if not isinstance(event.get("type"), str):
                bad.append(BadLine(lineno, "not a Copilot CLI event", json.dumps(event)[:120]))
                continue
            made.event(lineno, event)
        header = {"type": "session", "version": 3, "agent": "copilot", **made.header}
        header.setdefault("id", path.parent.name if path.name == "events.jsonl" else path.stem)
        header.setdefault("cwd", "")
        last = made.last_id()
        return make_session(path, header if made.entries or made.header else {}, made.entries, bad, last)


register(CopilotReader())
