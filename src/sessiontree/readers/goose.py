"""Goose's session files (``$XDG_DATA_HOME/goose/sessions/<id>.jsonl``) read into the session model.

Goose (block/goose, ``crates/goose/src/session/storage.rs`` and ``message.rs``) writes a metadata
line ``{working_dir, description, message_count, total_tokens, input_tokens?, output_tokens?}``,
then one message a line: ``{id?, role: user | assistant, created: <unix seconds>, content: [...]}``
whose items are ``text``, ``image`` (``data``, ``mimeType``), ``thinking``, ``redactedThinking``,
``toolRequest`` (``id``, ``toolCall: {status, value: {name, arguments}}``), ``toolResponse``
(``id``, ``toolResult: {status, value: [content]}``, in a user-role message),
``toolConfirmationRequest``, ``contextLengthExceeded`` and ``summarizationRequested``. Goose 1.x
keeps its sessions in a SQLite database instead (``readers.goose_db``): its sessions' documents, and
the database itself, are read here too.

Checked against block/goose at commit 05132966 (``crates/goose/src/conversation/message.rs``): a
message's ``metadata.userVisible: false`` (what Goose gives the model alone: a compaction's summary,
its continuation note) is context, never a typed prompt; a ``systemNotification`` (``msg``, shown in
the chat) and an ``actionRequired`` (a tool confirmation or an elicitation the user answered) are
notices; a ``frontendToolRequest`` is a tool call; a tool response's value given as a
``CallToolResult`` (``{content, isError}``) is read as its content, and its images are shown.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    Chain,
    as_str,
    iter_dicts,
    make_session,
    read_prefix_values,
    read_values,
    read_whole_object,
    register,
    session_header,
)
from sessiontree.store.entries import content_blocks, dicts_of
from sessiontree.store.formats import is_goose_document, is_sqlite_file
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

GOOSE_KINDS = (
    LineKind("goose:context", "Context limit", context=False, counted=True),
    LineKind("goose:summarize", "Summarized", context=False),
    LineKind("goose:notification", "Notification", context=False),
    LineKind("goose:action", "Action required", context=False),
    LineKind("goose:agent_only", "Context", show="meta"),
)
"""Goose's content items that are not conversation (see ``store.kinds``)."""
add_kinds(GOOSE_KINDS)

DOCUMENT_BYTES = 256 << 20
"""A database session's document is parsed whole; a larger one is refused."""

NOTICES = {"contextLengthExceeded": "goose:context", "summarizationRequested": "goose:summarize"}


def _iso(value: Any) -> str | None:
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        return datetime.fromtimestamp(value, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _field(value: dict[str, Any], key: str) -> dict[str, Any]:
    inner = value.get(key)
    return inner if isinstance(inner, dict) else {}


def _result_items(result: dict[str, Any]) -> Any:
    """A tool response's value: its content list (a ``CallToolResult`` object gives its ``content``)."""
    value = (
        result.get("value") if result.get("status") == "success" else result.get("error", result.get("value"))
    )
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        return value["content"]
    return value


def _result_images(result: dict[str, Any]) -> list[dict[str, Any]]:
    items = _result_items(result)
    return [
        {"type": "image", "data": v["data"], "mimeType": as_str(v.get("mimeType")) or "image/png"}
        for v in (items if isinstance(items, list) else ())
        if isinstance(v, dict) and v.get("type") == "image" and as_str(v.get("data"))
    ]


def _action(item: dict[str, Any]) -> str:
    """What an ``actionRequired`` asked: a confirmation of a tool, or an elicitation's message."""
    data = _field(item, "data")
    kind = data.get("actionType")
    if kind == "toolConfirmation":
        return f"Confirm {as_str(data.get('toolName')) or 'tool'}" + (
            f": {data['prompt']}" if as_str(data.get("prompt")) else ""
        )
    if kind == "elicitation":
        return as_str(data.get("message")) or "Input requested"
    return "Answered" if kind == "elicitationResponse" else str(kind or "action")


def _result_text(result: dict[str, Any]) -> str:
    value = _result_items(result)
    if isinstance(value, list):
        return "\n".join(
            str(v.get("text", "")) for v in value if isinstance(v, dict) and v.get("type") == "text"
        )
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Made(Chain):
    def message(self, lineno: int, record: dict[str, Any]) -> None:
        mid, role, ts = (
            as_str(record.get("id")) or f"G{lineno}",
            record.get("role"),
            _iso(record.get("created")),
        )
        items = content_blocks(record.get("content"))
        content: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for index, item in enumerate(items):
            kind = item.get("type")
            if kind == "text" and as_str(item.get("text")):
                content.append({"type": "text", "text": item["text"]})
            elif kind == "image" and as_str(item.get("data")):
                content.append(
                    {
                        "type": "image",
                        "data": item["data"],
                        "mimeType": as_str(item.get("mimeType")) or "image/png",
                    }
                )
            elif kind == "thinking" and as_str(item.get("thinking")):
                content.append({"type": "thinking", "thinking": item["thinking"]})
            elif kind in ("toolRequest", "frontendToolRequest"):
                value = _field(_field(item, "toolCall"), "value")
                args = value.get("arguments")
                content.append({"type": "toolCall", "id": as_str(item.get("id")) or f"{mid}.{index}",
                                "name": as_str(value.get("name")) or "tool",
                                "arguments": args if isinstance(args, dict) else {}})  # fmt: skip
            elif kind == "toolResponse":
                result = _field(item, "toolResult")
                results.append({"role": "toolResult", "toolCallId": as_str(item.get("id")) or mid,
                                "toolName": "", "content": [{"type": "text", "text": _result_text(result)},
                                                            *_result_images(result)],
                                "isError": result.get("status") == "error"})  # fmt: skip
            elif kind == "systemNotification" and as_str(item.get("msg")):
                self.notice(f"{mid}.{index}", "goose:notification", item["msg"], ts)
            elif kind == "actionRequired":
                self.notice(f"{mid}.{index}", "goose:action", _action(item), ts)
            elif isinstance(kind, str) and kind in NOTICES:
                self.notice(f"{mid}.{index}", NOTICES[kind], kind, ts)
        for index, result in enumerate(results):
            self.add({"type": "message", "id": f"{mid}.r{index}", "message": result}, ts)
        meta = _field(record, "metadata")
        if content and role == "user" and meta.get("userVisible") is False:
            # Given to the model alone (a compaction's summary, a continuation note): never typed.
            entry = {
                "type": "custom_message",
                "id": mid,
                "customType": "goose:agent_only",
                "content": content,
            }
            self.add({**entry, "display": False}, ts)
        elif content and role in ("user", "assistant"):
            self.add({"type": "message", "id": mid, "message": {"role": role, "content": content}}, ts)

    def notice(self, eid: str, kind: str, text: str, ts: Any) -> None:
        """One line the chat showed, not conversation (see ``GOOSE_KINDS``)."""
        self.add({"type": "custom", "id": eid, "customType": kind, "content": text}, ts)


def read_records(path: Path, meta: dict[str, Any], records: Iterable[tuple[int, dict[str, Any]]],
                 bad: list[BadLine], session_id: str) -> Session:  # fmt: skip
    """A session from its metadata and its message records (a JSONL file's lines, a database's rows)."""
    made = _Made()
    for lineno, record in records:
        if isinstance(record.get("role"), str) and isinstance(record.get("content"), list):
            made.message(lineno, record)
        else:
            bad.append(BadLine(lineno, "not a Goose message", json.dumps(record, default=str)[:120]))
    names = {c["id"]: c["name"] for e in made.entries for c in e.get("message", {}).get("content", [])
             if isinstance(c, dict) and c.get("type") == "toolCall"}  # fmt: skip
    for entry in made.entries:
        message = entry.get("message", {})
        if message.get("role") == "toolResult":
            message["toolName"] = names.get(message["toolCallId"], "tool")
    replies = [e["message"] for e in made.entries if e.get("message", {}).get("role") == "assistant"]
    if replies and isinstance(meta.get("input_tokens"), int):
        out = meta.get("output_tokens") if isinstance(meta.get("output_tokens"), int) else 0
        usage = {"input": meta["input_tokens"], "output": out, "cacheRead": 0, "cacheWrite": 0}
        replies[-1]["usage"] = {**usage, "totalTokens": usage["input"] + usage["output"]}
    first = next((e.get("timestamp") for e in made.entries if e.get("timestamp")), None)
    header = session_header(
        "goose",
        session_id,
        as_str(meta.get("working_dir")) or "",
        timestamp=first,
        title=meta.get("description"),
    )
    last = made.last_id()
    return make_session(path, header if meta or made.entries else {}, made.entries, bad, last)


def read_document(path: Path, document: dict[str, Any]) -> Session:
    """A session of Goose's database from its document (``readers.goose_db``)."""
    from sessiontree.readers.goose_db import session_meta

    row = document.get("gooseSession")
    row = row if isinstance(row, dict) else {}
    records = enumerate(dicts_of(document.get("messages")), start=1)
    return read_records(path, session_meta(row), records, [], as_str(row.get("id")) or path.stem)


class GooseReader:
    """Goose's sessions: its JSONL files, its database's documents, its database (the newest session)."""

    agent: ClassVar[str] = "goose"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session (read-only)."""
        if is_sqlite_file(path):
            from sessiontree.readers.database_copy import newest_document
            from sessiontree.readers.goose_db import documents

            document, why = newest_document(path, "Goose", documents)
            if document is None:
                return make_session(path, {}, [], [BadLine(1, why, "")], None)
            return read_document(path, document)
        if is_goose_document(read_prefix_values(path, 1)):
            document = read_whole_object(path, DOCUMENT_BYTES)
            if document is not None:
                return read_document(path, document)
        values, bad = read_values(path)
        meta: dict[str, Any] = {}
        records = []
        for lineno, record in iter_dicts(values, bad):
            if "working_dir" in record and not meta:
                meta = record
            else:
                records.append((lineno, record))
        return read_records(path, meta, records, bad, path.stem)


register(GooseReader())
