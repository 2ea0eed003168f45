"""Cursor's editor chats (its composer: ``<config>/Cursor/User/globalStorage/state.vscdb``) read
into the session model.

Cursor is not public; the shape read here is the one public readers of its database describe
(agentsview's and chatrxiv's Cursor references, composer ``_v`` 10 and bubble ``_v`` 3, 2025-26):
a key-value table ``cursorDiskKV(key, value)`` where ``composerData:<composer id>`` holds a
conversation's JSON ``{composerId, name?, createdAt (ms), lastUpdatedAt?, modelConfig: {modelName},
fullConversationHeadersOnly: [{bubbleId, type}]}`` (older ones keep the bubbles inline as
``conversation``), and ``bubbleId:<composer id>:<bubble id>`` each message ``{type: 1 (user) | 2
(assistant), text, createdAt (ISO), thinking?: {text}, toolFormerData?: {toolCallId, name,
rawArgs, params, result, status}, tokenCount?: {inputTokens, outputTokens}, modelInfo?:
{modelName}, workspaceUris?}``. The database is mirrored into our cache (``readers.db_mirror``):
one document a conversation, ``{"cursorComposer": its metadata, "bubbles": [...]}``; the editor's
large fields (file states, code block data) stay out of it.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sessiontree.readers.base import Chain, as_str, number_or_zero
from sessiontree.readers.chat_messages import arguments_of
from sessiontree.readers.continue_dev import workspace_path
from sessiontree.readers.opencode_layout import iso_time
from sessiontree.store.entries import dicts_of
from sessiontree.store.jsonl import decode_column
from sessiontree.store.numbers import count_of

TABLE = "cursorDiskKV"
KEPT = ("composerId", "name", "createdAt", "lastUpdatedAt", "modelConfig", "unifiedMode", "status")
"""What a conversation's document keeps of its metadata (the rest is the editor's state)."""


def is_composer_database(connection: sqlite3.Connection) -> bool:
    """Tell whether a database is Cursor's editor store (its key-value table), not a CLI chat."""
    found = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,))
    return found.fetchone() is not None


def _composers(connection: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    """Composer id -> its metadata, for every conversation that holds a message."""
    found: dict[str, dict[str, Any]] = {}
    rows = connection.execute(f"SELECT key, value FROM {TABLE} WHERE key LIKE 'composerData:%'")
    for key, value in rows:
        data = decode_column(value)
        cid = str(key).removeprefix("composerData:")
        if isinstance(data, dict) and cid and (dicts_of(data.get("fullConversationHeadersOnly")) or
                                               dicts_of(data.get("conversation"))):  # fmt: skip
            found[cid] = data
    return found


def _updated(data: dict[str, Any]) -> int:
    return count_of(data.get("lastUpdatedAt")) or count_of(data.get("createdAt"))


def composer_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Composer id -> its last update and how many messages it holds, for a mirror."""
    return {
        cid: _updated(data) + len(dicts_of(data.get("fullConversationHeadersOnly")))
        for cid, data in _composers(connection).items()
    }


def composer_documents(
    connection: sqlite3.Connection, ids: list[str] | None
) -> list[tuple[str, dict[str, Any]]]:
    """(composer id, document) of the conversations of ``ids`` (all: None), oldest first."""
    composers = _composers(connection)
    wanted = sorted(
        composers if ids is None else set(ids) & set(composers), key=lambda c: _updated(composers[c])
    )
    found = []
    for cid in wanted:
        data = composers[cid]
        bubbles = dicts_of(data.get("conversation"))
        headers = dicts_of(data.get("fullConversationHeadersOnly"))
        if headers:
            keys = [
                f"bubbleId:{cid}:{as_str(h.get('bubbleId'))}" for h in headers if as_str(h.get("bubbleId"))
            ]
            values: dict[str, Any] = {}
            for at in range(0, len(keys), 500):  # SQLite's bound parameters: a few hundred at a time
                part = keys[at : at + 500]
                marks = ",".join("?" * len(part))
                for key, value in connection.execute(
                    f"SELECT key, value FROM {TABLE} WHERE key IN ({marks})", part
                ):
                    values[str(key)] = decode_column(value)
            bubbles = [v for k in keys if isinstance(v := values.get(k), dict)]
        meta = {k: data[k] for k in KEPT if k in data}
        found.append((cid, {"cursorComposer": meta, "bubbles": bubbles}))
    return found


def composer_info(document: dict[str, Any]) -> dict[str, Any]:
    """What a listing shows of a conversation's document: id, title, time."""
    meta = document.get("cursorComposer")
    meta = meta if isinstance(meta, dict) else {}
    return {
        "sessionId": meta.get("composerId"),
        "title": meta.get("name"),
        "timestamp": iso_time(meta.get("createdAt")),
    }


def _model(bubble: dict[str, Any], default: str | None) -> str | None:
    info = bubble.get("modelInfo")
    name = as_str(info.get("modelName")) if isinstance(info, dict) else None
    return name if name and name != "default" else default


class ComposerEntries(Chain):
    """A conversation's bubbles as entries: prompts, replies (thinking, text, a tool call), results."""

    def __init__(self, model: str | None) -> None:
        super().__init__()
        self.model = model if model != "default" else None
        self.folder = ""

    def bubble(self, index: int, bubble: dict[str, Any], when: str | None) -> None:
        bid = f"B{index}"
        ts = as_str(bubble.get("createdAt")) or when
        text = as_str(bubble.get("text"))
        if bubble.get("type") == 1:
            uris = bubble.get("workspaceUris")
            if not self.folder and isinstance(uris, list) and uris and isinstance(uris[0], str):
                self.folder = workspace_path(uris[0])
            if text and text.strip():
                prompt = {"role": "user", "content": [{"type": "text", "text": text}]}
                self.add({"type": "message", "id": bid, "message": prompt}, ts)
            return
        if bubble.get("type") != 2:
            return
        blocks: list[dict[str, Any]] = []
        thinking = bubble.get("thinking")
        if isinstance(thinking, dict) and as_str(thinking.get("text")):
            blocks.append({"type": "thinking", "thinking": thinking["text"]})
        if text and text.strip():
            blocks.append({"type": "text", "text": text})
        tool = bubble.get("toolFormerData")
        tool = tool if isinstance(tool, dict) and as_str(tool.get("name")) else None
        if tool is not None:
            cid = as_str(tool.get("toolCallId")) or f"{bid}.call"
            args = arguments_of(tool.get("rawArgs") or tool.get("params"))
            blocks.append({"type": "toolCall", "id": cid, "name": tool["name"], "arguments": args})
        if not blocks:
            return
        message: dict[str, Any] = {"role": "assistant", "content": blocks}
        model = _model(bubble, self.model)
        if model:
            message["model"] = model
        tokens = bubble.get("tokenCount")
        if isinstance(tokens, dict):
            inputs, outputs = (
                number_or_zero(tokens.get("inputTokens")),
                number_or_zero(tokens.get("outputTokens")),
            )
            if inputs or outputs:
                usage = {"input": inputs, "output": outputs, "cacheRead": 0, "cacheWrite": 0}
                message["usage"] = {**usage, "totalTokens": inputs + outputs}
        self.add({"type": "message", "id": bid, "message": message}, ts)
        if tool is not None and (
            tool.get("result") is not None or tool.get("status") in ("error", "cancelled")
        ):
            value = tool.get("result")
            shown = value if isinstance(value, str) else "" if value is None else str(value)
            shown = shown or f"[{as_str(tool.get('status')) or 'no result'}]"
            result = {"role": "toolResult", "toolCallId": blocks[-1]["id"], "toolName": tool["name"],
                      "content": [{"type": "text", "text": shown}],
                      "isError": tool.get("status") in ("error", "cancelled")}  # fmt: skip
            self.add({"type": "message", "id": f"{bid}.r", "message": result}, ts)


def composer_entries(document: dict[str, Any]) -> ComposerEntries:
    """The entries of a conversation's document (``{"cursorComposer": meta, "bubbles": [...]}``)."""
    meta = document.get("cursorComposer")
    meta = meta if isinstance(meta, dict) else {}
    config = meta.get("modelConfig")
    made = ComposerEntries(as_str(config.get("modelName")) if isinstance(config, dict) else None)
    when = iso_time(meta.get("createdAt"))
    for index, bubble in enumerate(dicts_of(document.get("bubbles"))):
        made.bubble(index, bubble, when)
    return made
