"""Qwen Code chat files (``~/.qwen/projects/<cwd>/chats/<sessionId>.jsonl``) read into the session model.

Qwen Code (QwenLM/qwen-code, a fork of Gemini CLI; ``packages/core/src/services/chatRecordingService.ts``)
appends one ``ChatRecord`` a line: ``{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd,
version, message?, usageMetadata?, model?, toolCallResult?, systemPayload?}``. ``type`` is ``user``
(what the person typed; a ``mid_turn_user_message`` is one typed while the model worked; a
``notification`` / ``cron`` / ``background_task_completed`` one is written by Qwen Code),
``assistant`` (``message.parts``: text, ``thought`` text, ``functionCall``), ``tool_result``
(``functionResponse`` parts, ``toolCallResult.status``) or ``system`` (``chat_compression``,
``slash_command``, ``custom_title``, telemetry, ...). ``uuid`` / ``parentUuid`` make the tree.
Its first releases wrote Gemini CLI's one-object chat files under ``~/.qwen/tmp/<hash>/chats/``
with replies of type ``qwen``: those are read by ``readers.gemini``.

Checked against QwenLM/qwen-code at commit 015346f1 (``ChatRecord``): a typed prompt whose
``systemPayload.displayText`` is written shows that (the parts may carry hook context appended for
the model); a ``user`` record of a subagent (``isSidechain``) is its task, never a typed prompt; a
tool's images (``functionResponse.parts``, as in Gemini CLI) are shown with its result; ``rewind``
and ``session_model`` records are notices.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import as_str, iter_dicts, make_session, read_values, register, session_header
from sessiontree.readers.gemini import content_blocks
from sessiontree.readers.gemini import usage_of as gemini_usage
from sessiontree.store.entries import Entry, strings_of
from sessiontree.store.formats import is_gemini_file
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

QWEN_KINDS = (
    LineKind("qwen:notification", "Notification"),
    LineKind("qwen:compression", "Compaction", context=False),
    LineKind("qwen:command", "Command", context=False),
    LineKind("qwen:at_command", "Files read", show="meta", context=False),
    LineKind("qwen:subagent_prompt", "Subagent task"),
    LineKind("qwen:rewind", "Rewind", context=False),
    LineKind("qwen:model", "Model", context=False),
)
"""Qwen Code's records that are not conversation (see ``readers.kinds``)."""
add_kinds(QWEN_KINDS)

TYPED_SUBTYPES = frozenset({None, "mid_turn_user_message"})
"""``user`` records a person typed (the rest are written by Qwen Code: notifications, cron, tasks)."""


def usage_of(meta: Any) -> dict[str, int] | None:
    """``usageMetadata`` (the Gemini API's counts) as the store's usage, as Gemini CLI's ``tokens`` are."""
    if not isinstance(meta, dict):
        return None
    names = {
        "input": "prompt",
        "output": "candidates",
        "cached": "cachedContent",
        "thoughts": "thoughts",
        "total": "total",
    }
    return gemini_usage({ours: meta.get(f"{theirs}TokenCount") for ours, theirs in names.items()})


def _parts(record: dict[str, Any]) -> list[Any]:
    message = record.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else []


def _text(record: dict[str, Any]) -> str:
    return "\n".join(b["text"] for b in content_blocks(_parts(record)) if b["type"] == "text")


def _reply(record: dict[str, Any]) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for index, part in enumerate(_parts(record)):
        if not isinstance(part, dict):
            continue
        call = part.get("functionCall")
        if part.get("thought") and isinstance(part.get("text"), str) and part["text"]:
            content.append({"type": "thinking", "thinking": part["text"]})
        elif isinstance(call, dict):
            args = call.get("args")
            content.append(
                {
                    "type": "toolCall",
                    "id": as_str(call.get("id")) or f"{record['uuid']}.{index}",
                    "name": as_str(call.get("name")) or "tool",
                    "arguments": args if isinstance(args, dict) else {},
                }
            )
        else:
            content.extend(content_blocks([part]))
    message: dict[str, Any] = {"role": "assistant", "content": content, "provider": "qwen"}
    if as_str(record.get("model")):
        message["model"] = record["model"]
    if (usage := usage_of(record.get("usageMetadata"))) is not None:
        message["usage"] = usage
    return message


def _results(record: dict[str, Any]) -> list[dict[str, Any]]:
    status = record.get("toolCallResult")
    failed = isinstance(status, dict) and status.get("status") in ("error", "cancelled")
    found = []
    for part in _parts(record):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            continue
        body = response.get("response")
        text = next(
            (
                body[k]
                for k in ("output", "error", "content")
                if isinstance(body, dict) and isinstance(body.get(k), str)
            ),
            json.dumps(body, ensure_ascii=False),
        )
        nested = response.get("parts")
        found.append(
            {
                "role": "toolResult",
                "toolCallId": as_str(response.get("id")) or str(record["uuid"]),
                "toolName": as_str(response.get("name")) or "tool",
                "content": [
                    {"type": "text", "text": text},
                    *content_blocks(nested if isinstance(nested, list) else []),
                ],
                "isError": failed or (isinstance(body, dict) and "error" in body and "output" not in body),
            }
        )
    return found


def _system(record: dict[str, Any]) -> tuple[str, str] | None:
    """The row and text of a system record shown as a notice, or None (carried under "all")."""
    payload = record.get("systemPayload")
    data: dict[str, Any] = payload if isinstance(payload, dict) else {}
    subtype = record.get("subtype")
    if subtype == "chat_compression":
        return "qwen:compression", "Context compacted"
    if subtype == "slash_command" and data.get("phase") != "result":
        return "qwen:command", as_str(data.get("rawCommand")) or "/"
    if subtype == "at_command":
        return "qwen:at_command", "\n".join(strings_of(data.get("filesRead")))
    if subtype == "rewind":
        count = data.get("truncatedCount")
        return "qwen:rewind", f"Rewound {count} item{'' if count == 1 else 's'}" if isinstance(
            count, int
        ) else "Rewound"
    if subtype == "session_model" and as_str(data.get("modelId")):
        return "qwen:model", f"Model: {data['modelId']}"
    return None


def _prompt(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A typed prompt's blocks: what the UI showed (``displayText``) when written, with its images."""
    blocks = content_blocks(_parts(record))
    payload = record.get("systemPayload")
    shown = as_str(payload.get("displayText")) if isinstance(payload, dict) else None
    if not shown:
        return blocks
    return [{"type": "text", "text": shown}, *(b for b in blocks if b["type"] != "text")]


class _Made:
    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.meta: dict[str, Any] = {}
        self.ids: set[str] = set()

    def add(self, entry: Entry, parent: Any, ts: Any) -> None:
        entry["parentId"] = parent if isinstance(parent, str) and parent in self.ids else self.last()
        if isinstance(ts, str):
            entry["timestamp"] = ts
        self.entries.append(entry)
        self.ids.add(str(entry["id"]))

    def last(self) -> str | None:
        return str(self.entries[-1]["id"]) if self.entries else None

    def record(self, lineno: int, record: dict[str, Any]) -> None:
        for key in ("sessionId", "cwd", "timestamp", "gitBranch", "version"):
            if key not in self.meta and as_str(record.get(key)):
                self.meta[key] = record[key]
        uid, parent, ts = str(record["uuid"]), record.get("parentUuid"), record.get("timestamp")
        kind, subtype = record.get("type"), record.get("subtype")
        if kind == "user" and subtype in TYPED_SUBTYPES and record.get("isSidechain") is not True:
            message = {"role": "user", "content": _prompt(record)}
            self.add({"type": "message", "id": uid, "message": message}, parent, ts)
        elif kind == "user":
            row = "qwen:notification" if subtype not in TYPED_SUBTYPES else "qwen:subagent_prompt"
            entry: Entry = {"type": "custom_message", "id": uid, "customType": row,
                            "content": _text(record), "display": True}  # fmt: skip
            self.add(entry, parent, ts)
        elif kind == "assistant":
            self.add({"type": "message", "id": uid, "message": _reply(record)}, parent, ts)
        elif kind == "tool_result":
            for index, result in enumerate(_results(record)):
                rid = uid if index == 0 else f"{uid}.{index}"
                self.add(
                    {"type": "message", "id": rid, "message": result}, parent if index == 0 else None, ts
                )
        elif kind == "system" and subtype == "custom_title":
            payload = record.get("systemPayload")
            if isinstance(payload, dict) and as_str(payload.get("customTitle")):
                self.meta["title"] = payload["customTitle"]
        elif kind == "system" and (shown := _system(record)) is not None:
            self.add({"type": "custom", "id": uid, "customType": shown[0], "content": shown[1]}, parent, ts)
        else:
            self.add(
                {"type": "custom", "id": uid, "customType": f"qwen:{subtype or kind}", "data": record},
                parent,
                ts,
            )


class QwenReader:
    """Qwen Code chat files (JSONL; its first releases' one-object files go to the Gemini CLI reader)."""

    agent: ClassVar[str] = "qwen"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the chat (read-only)."""
        from sessiontree.readers.base import read_prefix_values

        if is_gemini_file(read_prefix_values(path, 1)):
            from sessiontree.readers.gemini import GeminiReader

            return GeminiReader().read(path, agent_dir=agent_dir, blobs_dir=blobs_dir)
        values, bad = read_values(path)
        made = _Made()
        for lineno, record in iter_dicts(values, bad):
            if not as_str(record.get("uuid")) or not isinstance(record.get("type"), str):
                bad.append(BadLine(lineno, "not a Qwen Code record", json.dumps(record)[:120]))
                continue
            made.record(lineno, record)
        meta = made.meta
        header = session_header(
            "qwen",
            as_str(meta.get("sessionId")) or path.stem,
            as_str(meta.get("cwd")) or "",
            timestamp=meta.get("timestamp"),
            title=meta.get("title"),
        )
        if not made.entries and not meta:
            header = {}
        return make_session(path, header, made.entries, bad, made.last())


register(QwenReader())
