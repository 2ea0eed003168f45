"""Cursor's CLI chats (``~/.cursor/chats/<md5 of the folder>/<chat id>/store.db``) read into the
session model (its editor's conversations: ``readers.cursor_ide``).

``cursor-agent`` is not public; the shape read here is the one its files have as public readers of
them describe it (cass's and agent-sessions' Cursor connectors, 2026): a SQLite database a chat with
``meta(key, value)``, whose key ``0`` holds hex-encoded JSON ``{agentId, latestRootBlobId, name,
mode, createdAt (ms), lastUsedModel}``, and ``blobs(id, data)``, content-addressed: the messages are
the JSON blobs ``{role: system | user | assistant | tool, id?, content: text | [{type: text |
reasoning | tool-call | tool-result, text?, toolCallId?, toolName?, args?, result?}]}`` in the
order written (the tree blobs that link them are binary, skipped). What the person typed is inside
``<user_query>``; the rest of a user turn (``<user_info>``, rules, attached files) is context. The
database is mirrored into our cache (``readers.db_mirror``): one document ``{"cursorChat": meta,
"messages": [...]}``.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers import cursor_ide
from sessiontree.readers.base import Chain, as_str, make_session, read_json_file, register, session_header
from sessiontree.readers.chat_messages import arguments_of
from sessiontree.readers.opencode_layout import iso_time
from sessiontree.store.entries import dicts_of
from sessiontree.store.formats import is_sqlite_file
from sessiontree.store.jsonl import BadLine, decode_column, decode_json, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.numbers import count_of
from sessiontree.store.session import Session

CURSOR_KINDS = (LineKind("cursor:context", "Context", show="meta", context=False, dumped=False),)
"""What the CLI writes into the user's turn around the typed query (see ``store.kinds``)."""
add_kinds(CURSOR_KINDS)

DOCUMENT_BYTES = 512 << 20
_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.DOTALL)
_WORKSPACE = re.compile(r"Workspace Path: ([^\n<]+)")


def chat_meta(connection: sqlite3.Connection) -> dict[str, Any]:
    """A chat's metadata (``meta`` key ``0``: hex-encoded JSON), else empty."""
    row = connection.execute("SELECT value FROM meta WHERE key = '0'").fetchone()
    value = row[0] if row else None
    try:
        meta = decode_json(decode_text(bytes.fromhex(value))) if isinstance(value, str) else None
    except ValueError:
        meta = decode_column(value)
    return meta if isinstance(meta, dict) else {}


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Chat id -> its creation time and how many blobs it holds (a new message adds one), for a
    mirror; of the editor's database, each conversation's (``readers.cursor_ide``)."""
    if cursor_ide.is_composer_database(connection):
        return cursor_ide.composer_stamps(connection)
    meta = chat_meta(connection)
    count = connection.execute("SELECT count(*) FROM blobs").fetchone()[0]
    return {str(as_str(meta.get("agentId")) or "chat"): count_of(meta.get("createdAt")) + count_of(count)}


def documents(connection: sqlite3.Connection, ids: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """The chat's one document (its metadata and its JSON message blobs in the order written); of
    the editor's database, one a conversation (``readers.cursor_ide``)."""
    if cursor_ide.is_composer_database(connection):
        return cursor_ide.composer_documents(connection, ids)
    meta = chat_meta(connection)
    messages = []
    for (data,) in connection.execute("SELECT data FROM blobs ORDER BY rowid"):
        value = decode_column(data)
        if isinstance(value, dict) and isinstance(value.get("role"), str):
            messages.append(value)
    return [(str(as_str(meta.get("agentId")) or "chat"), {"cursorChat": meta, "messages": messages})]


def split_query(text: str) -> tuple[list[str], str]:
    """What the person typed in a user text (inside ``<user_query>``), and the context around it."""
    typed = [m for m in _QUERY.findall(text) if m.strip()]
    rest = _QUERY.sub("", text).strip()
    if not typed and rest and not rest.lstrip().startswith("<"):
        return [rest], ""
    return typed, rest


def _parts(content: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else dicts_of(content)


class _Made(Chain):
    def __init__(self, model: str | None) -> None:
        super().__init__()
        self.names: dict[str, str] = {}
        self.model = model

    def message(self, index: int, record: dict[str, Any]) -> None:
        role, mid = record.get("role"), f"C{index}"
        parts = _parts(record.get("content"))
        if role == "user":
            typed: list[str] = []
            for part in parts:
                if part.get("type") == "text" and isinstance(part.get("text"), str):
                    found, rest = split_query(part["text"])
                    typed += found
                    if rest:
                        self.add({"type": "custom", "id": f"{mid}.c{len(self.entries)}",
                                  "customType": "cursor:context", "content": rest})  # fmt: skip
            if typed:
                content = [{"type": "text", "text": t} for t in typed]
                self.add({"type": "message", "id": mid, "message": {"role": "user", "content": content}})
        elif role == "assistant":
            blocks: list[dict[str, Any]] = []
            for at, part in enumerate(parts):
                kind = part.get("type")
                if kind == "text" and as_str(part.get("text")):
                    blocks.append({"type": "text", "text": part["text"]})
                elif kind == "reasoning" and as_str(part.get("text")):
                    blocks.append({"type": "thinking", "thinking": part["text"]})
                elif kind == "tool-call":
                    cid = as_str(part.get("toolCallId")) or f"{mid}.{at}"
                    self.names[cid] = as_str(part.get("toolName")) or "tool"
                    blocks.append({"type": "toolCall", "id": cid, "name": self.names[cid],
                                   "arguments": arguments_of(part.get("args"))})  # fmt: skip
            if blocks:
                message: dict[str, Any] = {"role": "assistant", "content": blocks}
                if self.model:
                    message["model"] = self.model
                self.add({"type": "message", "id": mid, "message": message})
        elif role == "tool":
            for at, part in enumerate(p for p in parts if p.get("type") == "tool-result"):
                cid = as_str(part.get("toolCallId")) or f"{mid}.{at}"
                value = part.get("result")
                text = value if isinstance(value, str) else "" if value is None else str(value)
                failed = part.get("isError") is True
                result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, "tool"),
                          "content": [{"type": "text", "text": text}], "isError": failed}  # fmt: skip
                self.add({"type": "message", "id": f"{mid}.r{at}", "message": result})


def cursor_info(document: dict[str, Any]) -> dict[str, Any]:
    """What a listing shows of a chat's (or an editor conversation's) document: id, title, time."""
    if "cursorComposer" in document:
        return cursor_ide.composer_info(document)
    meta = document.get("cursorChat")
    meta = meta if isinstance(meta, dict) else {}
    return {
        "sessionId": meta.get("agentId"),
        "title": meta.get("name"),
        "timestamp": iso_time(meta.get("createdAt")),
    }


def read_document(path: Path, document: dict[str, Any]) -> Session:
    """A chat from its document (``{"cursorChat": meta, "messages": [...]}``), or an editor
    conversation from its (``{"cursorComposer": meta, "bubbles": [...]}``)."""
    if "cursorComposer" in document:
        conversation = cursor_ide.composer_entries(document)
        info = cursor_ide.composer_info(document)
        header = session_header("cursor", as_str(info["sessionId"]) or path.stem, conversation.folder,
                                timestamp=info["timestamp"], title=info["title"])  # fmt: skip
        return make_session(path, header, conversation.entries, [], conversation.last_id())
    meta = document.get("cursorChat")
    meta = meta if isinstance(meta, dict) else {}
    made = _Made(as_str(meta.get("lastUsedModel")))
    for index, record in enumerate(dicts_of(document.get("messages"))):
        made.message(index, record)
    info = cursor_info(document)
    context = " ".join(str(e.get("content")) for e in made.entries if e.get("customType") == "cursor:context")
    found = _WORKSPACE.search(context)
    folder = found[1].strip() if found else ""
    header = session_header("cursor", as_str(info["sessionId"]) or path.stem, folder,
                            timestamp=info["timestamp"], title=info["title"])  # fmt: skip
    return make_session(path, header if meta or made.entries else {}, made.entries, [], made.last_id())


class CursorReader:
    """Cursor CLI chats (a chat's ``store.db`` or its document) and the editor's conversations
    (its ``state.vscdb``, whose newest conversation shows when given by hand, or a document)."""

    agent: ClassVar[str] = "cursor"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the chat (read-only)."""
        if is_sqlite_file(path):
            from sessiontree.readers.database_copy import newest_document

            document, why = newest_document(path, "Cursor", documents)
            if document is None:
                return make_session(path, {}, [], [BadLine(1, why, "")], None)
            return read_document(path, document)
        try:
            value = read_json_file(path, DOCUMENT_BYTES)
        except ValueError as exc:
            return make_session(
                path, {}, [], [BadLine(1, f"not a JSON object ({exc.__class__.__name__})", "")], None
            )
        return read_document(path, value if isinstance(value, dict) else {})


register(CursorReader())
