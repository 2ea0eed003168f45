"""Claude Code's lines that are not conversation: the rows of its kinds and the text of each.

Each row says how the page shows a kind, whether ``dump`` prints it and whether ``inspect``
counts it (``store.kinds``); the functions here give the text a line of that kind shows.
The reader (``claude.py``) calls ``notice_of`` for every line that is not a message and makes a
``custom_message`` entry of what it returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from sessiontree.readers.base import as_str, strip_csi
from sessiontree.store.claude_markup import (
    OUTPUT_TAGS,
    command_of,
    content_parts,
    describe_markup,
    split_markup,
)
from sessiontree.store.content import text_of
from sessiontree.store.kinds import LineKind, add_kinds

API_ERROR = "claude:system/api_error"
LOCAL_COMMAND = "claude:system/local_command"
TASK_NOTIFICATION = "claude:task-notification"


_TAG = re.compile(r"<([a-z][a-z_-]*)>(.*?)</\1>", re.S)


def _tags(text: str) -> dict[str, str]:
    """The tags of a notification body (``<summary>``, ``<status>``...) inside its wrapper."""
    outer = _TAG.fullmatch(text.strip())
    inner = outer[2] if outer is not None else text
    return {name: value.strip() for name, value in _TAG.findall(inner)}


def _error_message(error: Any) -> str:
    """The innermost message of an API error object (Anthropic nests ``error.error.message``)."""
    for _ in range(4):
        if not isinstance(error, Mapping):
            return error if isinstance(error, str) else ""
        message = as_str(error.get("message"))
        if message:
            return message
        cause = error.get("cause")
        if isinstance(cause, Mapping) and as_str(cause.get("code")):
            return str(cause["code"])
        error = error.get("error")
    return ""


def api_error_details(obj: Mapping[str, Any]) -> dict[str, Any]:
    """Status, message and retry attempt of an ``api_error`` line."""
    error = obj.get("error")
    status = error.get("status") if isinstance(error, Mapping) else None
    details: dict[str, Any] = {"count": 1}
    if isinstance(status, int) and not isinstance(status, bool):
        details["status"] = status
    message = _error_message(error) or strip_csi(text_of(obj.get("content")))
    if message:
        details["message"] = message
    for key in ("retryAttempt", "maxRetries"):
        value = obj.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            details[key] = value
    return details


def api_error_text(details: Mapping[str, Any]) -> str:
    """``API error 529: Overloaded (retry 3/10; 3 attempts)``."""
    head = "API error" + (f" {details['status']}" if "status" in details else "")
    text = head + (f": {details['message']}" if details.get("message") else "")
    notes = []
    if "retryAttempt" in details:
        of = f"/{details['maxRetries']}" if "maxRetries" in details else ""
        notes.append(f"retry {details['retryAttempt']}{of}")
    count = details.get("count", 1)
    if isinstance(count, int) and count > 1:
        notes.append(f"{count} attempts")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def same_error(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Tell whether two API errors are retries of one failure (folded into one notice)."""
    return a.get("status") == b.get("status") and a.get("message") == b.get("message")


def fold_error(into: dict[str, Any], details: Mapping[str, Any]) -> None:
    """Count one more retry of an API error into its notice's details."""
    into["count"] = into.get("count", 1) + 1
    for key in ("retryAttempt", "maxRetries"):
        if key in details:
            into[key] = details[key]


def task_notification_text(text: str) -> str:
    """A background task's notification: its summary (else its status), tags left out."""
    tags = _tags(text)
    summary = tags.get("summary") or tags.get("result") or ""
    status = tags.get("status") or ""
    if summary:
        return summary + (f" ({status})" if status and status not in summary else "")
    if status:
        task = tags.get("task-id") or tags.get("task_id") or ""
        return f"Task {task} {status}".replace("  ", " ")
    return _TAG.sub("", text).strip() or text.strip()


def is_task_notification(obj: Mapping[str, Any], text: str) -> bool:
    """A user line Claude Code wrote for a finished background task (not typed by the user)."""
    origin = obj.get("origin")
    if isinstance(origin, Mapping) and origin.get("kind") == "task-notification":
        return True
    return text.lstrip().startswith("<task-notification>")


def command_text(content: Any) -> str:
    """A local command as typed, then its output (what ``dump`` prints of a command line), from
    the parts the reader parsed."""
    parts = content_parts(content) or split_markup(text_of(content))
    output = "\n".join(p.text.strip("\n") for p in parts if p.kind in OUTPUT_TAGS and p.text.strip())
    return "\n".join(t for t in (command_of(parts), strip_csi(output)) if t)


def thinking_evidence(blocks: list[Any]) -> bool:
    """Tell whether an assistant reply's blocks show the model thinking."""
    return any(isinstance(b, Mapping) and b.get("type") in ("thinking", "redacted_thinking") for b in blocks)


def _queue(obj: Mapping[str, Any]) -> str:
    content = text_of(obj.get("content"))
    if obj.get("operation") != "enqueue" or not content.strip():
        return ""  # dequeue / remove: bookkeeping of the queue, shown under "all" only
    if content.lstrip().startswith("<task-notification>"):
        return task_notification_text(content)
    return describe_markup(content)


def _stop_hooks(obj: Mapping[str, Any]) -> str:
    errors = obj.get("hookErrors")
    errors = [str(e) for e in errors if e] if isinstance(errors, list) else []
    stopped = obj.get("preventedContinuation") is True
    if not errors and not stopped:
        return ""  # hooks that ran cleanly say nothing
    count = obj.get("hookCount")
    text = f"Stop hooks ({count})" if isinstance(count, int) and not isinstance(count, bool) else "Stop hooks"
    if stopped:
        text += ": stopped the turn"
    return text + (": " + "; ".join(errors) if errors else "")


def _hook(attachment: Mapping[str, Any]) -> str:
    name = as_str(attachment.get("hookName")) or as_str(attachment.get("hookEvent")) or "hook"
    body = next(
        (
            v.strip()
            for k in ("content", "stdout", "stderr")
            if (v := as_str(attachment.get(k))) and v.strip()
        ),
        "",
    )
    return f"{name}: {strip_csi(body)}" if body else ""


def _mode(obj: Mapping[str, Any]) -> str:
    mode = as_str(obj.get("mode")) or as_str(obj.get("permissionMode"))
    return f"Mode: {mode}" if mode else ""


# line type (or "system/<subtype>") -> (customType, text of the line)
_LINE_NOTICES: dict[str, tuple[str, Callable[[Mapping[str, Any]], str]]] = {
    "queue-operation": ("claude:queue-operation", _queue),
    "system/stop_hook_summary": ("claude:system/stop_hook_summary", _stop_hooks),
    "system/away_summary": ("claude:system/away_summary", lambda o: strip_csi(text_of(o.get("content")))),
    "system/local_command": (LOCAL_COMMAND, lambda o: text_of(o.get("content"))),
    "mode": ("claude:mode", _mode),
    "permission-mode": ("claude:permission-mode", _mode),
}


AGENT_WRITTEN_PREFIXES = (
    "Unknown slash command: ",  # Claude Code's answer to a command it does not know
    "Your task is to create a detailed summary of the conversation so far",  # the compaction agent's task
)
"""How user-role texts that Claude Code, not the person, wrote begin (never typed prompts)."""


def is_agent_written(text: str) -> bool:
    """Tell whether a user-role text is one Claude Code wrote (see ``AGENT_WRITTEN_PREFIXES``)."""
    return text.lstrip().startswith(AGENT_WRITTEN_PREFIXES)


def notice_of(kind: str, obj: Mapping[str, Any]) -> tuple[str, str] | None:
    """(customType, text) for a line that is one of the kinds above, else None."""
    if kind == "attachment":
        attachment = obj.get("attachment")
        if not isinstance(attachment, Mapping):
            return None
        if str(attachment.get("type", "")).startswith("hook_"):
            return "claude:hook", _hook(attachment)
        if attachment.get("type") == "queued_command":  # typed while a reply ran, given to the model
            return "claude:queued-command", describe_markup(text_of(attachment.get("prompt")))
        return None
    found = _LINE_NOTICES.get(kind)
    return (found[0], found[1](obj)) if found is not None else None


CLAUDE_KINDS = (
    LineKind(API_ERROR, "API error", "error", counted=True),
    LineKind(LOCAL_COMMAND, "Command", "command", dump_text=command_text),
    LineKind(TASK_NOTIFICATION, "Task notification", counted=True),
    LineKind("claude:queue-operation", "Queued prompt", "meta", context=False),
    LineKind("claude:queued-command", "Queued prompt", context=False, typed=True),
    LineKind("claude:system/stop_hook_summary", "Hooks", context=False),
    LineKind("claude:hook", "Hook output", context=False),
    LineKind("claude:system/away_summary", "While you were away", context=False),
    LineKind("claude:mode", "Mode", context=False),
    LineKind("claude:permission-mode", "Mode", context=False),
)
add_kinds(CLAUDE_KINDS)
