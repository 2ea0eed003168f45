"""Gemini CLI chat files (``~/.gemini/tmp/<project>/chats/session-*.jsonl``) read into the session model.

A chat file (Gemini CLI's ``chatRecordingService``) is JSONL: a metadata line ``{sessionId,
projectHash, startTime, lastUpdated, kind?}``, then message records ``{id, timestamp, type,
content}`` of type ``user``, ``gemini`` (with ``thoughts``, ``toolCalls`` and their results,
``tokens``, ``model``), ``info``, ``warning`` or ``error``. A record written again under the same
id replaces the first (a reply gains its tool results that way); ``{"$set": {...}}`` updates the
metadata (``summary`` is the title; ``messages`` is a checkpoint: the conversation from then on);
``{"$rewindTo": id}`` takes that message and all after it off the conversation: here they stay,
as a side branch, and what follows hangs under the message before it. The older form, one JSON
object with a ``messages`` list (``session-*.json``), reads the same way.

Checked against google-gemini/gemini-cli at commit 5411f113 (``chatRecordingTypes.ts``: the record
types are still these five; a tool's images ride in its result, nested as ``functionResponse.parts``
or beside it as ``inlineData`` parts, as ``convertToFunctionResponse`` makes them: shown as images).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    as_str,
    iter_dicts,
    make_session,
    read_values,
    read_whole_object,
    register,
    session_header,
)
from sessiontree.store.entries import Entry, strings_of
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.parts import part_path
from sessiontree.store.session import Session

REPLY_TYPES = {"gemini": "google", "qwen": "qwen"}
"""A reply's record type -> its provider (Qwen Code's first releases, a fork, wrote ``qwen``)."""
NOTICE_TYPES = {"info": "gemini:info", "warning": "gemini:warning", "error": "gemini:error"}
GEMINI_KINDS = (
    LineKind("gemini:info", "Info", context=False),
    LineKind("gemini:warning", "Warning", context=False, counted=True),
    LineKind("gemini:error", "Error", show="error", context=False, counted=True),
)
"""Gemini CLI's records that are not conversation (see ``store.kinds``)."""
add_kinds(GEMINI_KINDS)

WHOLE_JSON_BYTES = 64 << 20
"""The older one-object form is parsed whole; a larger file of that form is refused."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_of(tokens: Any) -> dict[str, int] | None:
    """``tokens {input, output, cached, thoughts, tool, total}`` as the store's usage."""
    if not isinstance(tokens, dict):
        return None
    cached = _count(tokens.get("cached"))
    inputs = max(_count(tokens.get("input")) - cached, 0)
    output = _count(tokens.get("output")) + _count(tokens.get("thoughts"))
    total = _count(tokens.get("total")) or inputs + cached + output
    return {"input": inputs, "output": output, "cacheRead": cached, "cacheWrite": 0, "totalTokens": total}


def _parts(content: Any) -> list[Any]:
    """A ``PartListUnion`` (a string, a part, or a list of either) as a list of parts."""
    if content is None:
        return []
    return content if isinstance(content, list) else [content]


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """Text and images of a ``PartListUnion`` as content blocks (function parts are tool calls)."""
    blocks: list[dict[str, Any]] = []
    for part in _parts(content):
        if isinstance(part, str):
            if part:
                blocks.append({"type": "text", "text": part})
        elif isinstance(part, dict):
            text = part.get("text")
            inline = part.get("inlineData")
            if isinstance(text, str) and text and not part.get("thought"):
                blocks.append({"type": "text", "text": text})
            elif isinstance(inline, dict) and isinstance(inline.get("data"), str):
                mime = as_str(inline.get("mimeType")) or "application/octet-stream"
                if mime.startswith("image/"):
                    blocks.append({"type": "image", "data": inline["data"], "mimeType": mime})
                else:
                    blocks.append({"type": "text", "text": f"[{mime} attachment]"})
            elif isinstance(part.get("fileData"), dict):
                uri = as_str(part["fileData"].get("fileUri")) or "file"
                blocks.append({"type": "text", "text": f"[{uri}]"})
    return blocks


def _result_text(call: dict[str, Any]) -> str:
    """What a tool call returned: its function response's output or error, else what the UI showed."""
    for part in _parts(call.get("result")):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            for key in ("output", "error", "content"):
                value = body.get(key)
                if isinstance(value, str):
                    return value
            return json.dumps(body, ensure_ascii=False)
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            return str(part["text"])
        if isinstance(part, str):
            return part
    display = call.get("resultDisplay")
    if isinstance(display, str):
        return display
    if isinstance(display, dict):
        diff = display.get("fileDiff")
        if isinstance(diff, str):
            return diff
        return json.dumps(display, ensure_ascii=False)
    return ""


def result_blocks(call: dict[str, Any]) -> list[dict[str, Any]]:
    """A tool result as blocks: its text, then the images and files it returned (nested in the
    function response when the model takes them there, else parts beside it)."""
    binary: list[Any] = []
    for part in _parts(call.get("result")):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and isinstance(response.get("parts"), list):
            binary.extend(response["parts"])
        elif isinstance(part, dict) and ("inlineData" in part or "fileData" in part):
            binary.append(part)
    return [{"type": "text", "text": _result_text(call)}, *content_blocks(binary)]


class _Chat:
    """The records of one chat file in the order they take, rewinds and checkpoints applied."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.records: dict[str, dict[str, Any]] = {}  # id -> the newest record written under it
        self.parent: dict[str, str | None] = {}  # id -> the message it followed when first written
        self.line: dict[str, int] = {}  # id -> the line it was first written on
        self.path: list[str] = []  # the conversation as it stands (ids)
        self.rewound = 0
        self.prefix = ""  # ids of a later session in the same file (its own ids may repeat)
        self.sessions: list[str] = []  # the sessions the file holds, in order (an a2a server's)
        self.metas: dict[str, dict[str, Any]] = {}  # a later session's id -> its metadata
        self.session_of: dict[str, str] = {}  # a later session's message id -> that session's id

    def message(self, lineno: int, record: dict[str, Any]) -> None:
        if self.prefix:
            record = {**record, "id": self.prefix + record["id"]}
        mid = record["id"]
        if self.prefix:
            self.session_of[mid] = self.sessions[-1]
        if mid not in self.records:
            self.parent[mid] = self.path[-1] if self.path else None
            self.line[mid] = lineno
            self.path.append(mid)
        self.records[mid] = record

    def rewind(self, target: Any) -> None:
        self.rewound += 1
        target = self.prefix + target if isinstance(target, str) else target
        if isinstance(target, str) and target in self.path:
            del self.path[self.path.index(target) :]
        else:
            self.path.clear()

    def begun(self, lineno: int, sid: str, when: Any) -> None:
        """A later session of the same file begins: a notice in the conversation, then its messages."""
        text = f"Session {sid} began"
        self.message(lineno, {"id": "begun", "type": "info", "content": text, "timestamp": when})

    def mark_first(self) -> None:
        """In a file of several sessions, the first one's ids take its id too (``<session>:<id>``,
        as the later ones' do): every entry then names its session (``search_parts``)."""
        first = self.sessions[0]
        renamed = {m: m if m in self.session_of else f"{first}:{m}" for m in self.records}

        def rename(ids: dict[str, Any]) -> dict[str, Any]:
            return {renamed[m]: value for m, value in ids.items()}

        self.records = {renamed[m]: {**r, "id": renamed[m]} for m, r in self.records.items()}
        self.parent = {renamed[m]: None if p is None else renamed.get(p, p) for m, p in self.parent.items()}
        self.line = rename(self.line)
        self.path = [renamed.get(m, m) for m in self.path]
        self.session_of = {m: self.session_of.get(m, first) for m in self.records}

    def checkpoint(self, lineno: int, messages: list[Any]) -> None:
        self.path.clear()
        for record in messages:
            if _is_message(record):
                self.message(lineno, record)

    def update(self, lineno: int, values: dict[str, Any]) -> None:
        messages = values.get("messages")
        if isinstance(messages, list):
            self.checkpoint(lineno, messages)
        meta = self.metas[self.sessions[-1]] if self.prefix else self.meta
        meta.update({k: v for k, v in values.items() if k != "messages"})


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("id"), str) and isinstance(value.get("type"), str)


class _Entries:
    """The session's entries, made from the chat's records."""

    def __init__(self, chat: _Chat) -> None:
        self.chat = chat
        self.entries: list[Entry] = []
        self.last: dict[str, str] = {}  # message id -> the id of the last entry made from it

    def add(self, entry: Entry, parent: str | None, ts: Any) -> str:
        entry["parentId"] = parent
        if isinstance(ts, str):
            entry["timestamp"] = ts
        self.entries.append(entry)
        return str(entry["id"])

    def make(self, mid: str) -> None:
        record = self.chat.records[mid]
        before = self.chat.parent[mid]
        parent = self.last.get(before) if before is not None else None
        kind = record["type"]
        ts = record.get("timestamp")
        if kind == "user":
            shown = record.get("displayContent")
            blocks = content_blocks(shown if shown else record.get("content"))
            message = {"role": "user", "content": blocks}
            self.last[mid] = self.add({"type": "message", "id": mid, "message": message}, parent, ts)
        elif kind in REPLY_TYPES:
            self.last[mid] = self._reply(mid, record, parent, ts)
        elif kind in NOTICE_TYPES:
            text = "\n".join(b["text"] for b in content_blocks(record.get("content")) if b["type"] == "text")
            entry: Entry = {"type": "custom", "id": mid, "customType": NOTICE_TYPES[kind], "content": text}
            self.last[mid] = self.add(entry, parent, ts)
        else:
            entry = {"type": "custom", "id": mid, "customType": f"gemini:{kind}", "data": record}
            self.last[mid] = self.add(entry, parent, ts)

    def _reply(self, mid: str, record: dict[str, Any], parent: str | None, ts: Any) -> str:
        content: list[dict[str, Any]] = []
        thoughts = record.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else []:
            if isinstance(thought, dict):
                subject = as_str(thought.get("subject"))
                text = "\n\n".join(
                    t for t in (subject and f"**{subject}**", as_str(thought.get("description"))) if t
                )
                if text:
                    content.append({"type": "thinking", "thinking": text})
        content.extend(content_blocks(record.get("content")))
        listed = record.get("toolCalls")
        calls = (
            [c for c in listed if isinstance(c, dict) and as_str(c.get("name"))]
            if isinstance(listed, list)
            else []
        )
        for call in calls:
            args = call.get("args")
            content.append(
                {
                    "type": "toolCall",
                    "id": as_str(call.get("id")) or f"{mid}.{calls.index(call)}",
                    "name": call["name"],
                    "arguments": args if isinstance(args, dict) else {},
                }
            )
        provider = REPLY_TYPES[record["type"]]
        message: dict[str, Any] = {"role": "assistant", "content": content, "provider": provider}
        if as_str(record.get("model")):
            message["model"] = record["model"]
        usage = usage_of(record.get("tokens"))
        if usage is not None:
            message["usage"] = usage
        last = self.add({"type": "message", "id": mid, "message": message}, parent, ts)
        for index, call in enumerate(calls):
            if call.get("result") is None and call.get("resultDisplay") is None:
                continue  # still running when the file was written
            result = {
                "role": "toolResult",
                "toolCallId": content[len(content) - len(calls) + index]["id"],
                "toolName": call["name"],
                "content": result_blocks(call),
                "isError": call.get("status") in ("error", "cancelled"),
            }
            entry: Entry = {"type": "message", "id": f"{mid}.r{index}", "message": result}
            last = self.add(entry, last, call.get("timestamp", ts))
        return last


def read_chat(values: list[tuple[int, Any]], bad: list[BadLine]) -> _Chat:
    """The chat a file's lines describe (unknown lines are reported as bad lines)."""
    chat = _Chat()
    for lineno, obj in iter_dicts(values, bad):
        if "$rewindTo" in obj:
            chat.rewind(obj.get("$rewindTo"))
        elif "$set" in obj:
            if isinstance(obj["$set"], dict):
                chat.update(lineno, obj["$set"])
        elif _is_message(obj):
            chat.message(lineno, obj)
        elif isinstance(obj.get("sessionId"), str):
            sid = obj["sessionId"]
            if chat.sessions and sid not in chat.sessions and chat.records:
                # A file that holds several sessions one after the other (Gemini CLI's a2a
                # server): the next one's records go on after the last, their ids its own.
                chat.sessions.append(sid)
                chat.prefix = f"{sid}:"
                chat.metas[sid] = {}
                chat.update(lineno, {k: v for k, v in obj.items() if k != "messages"})
                chat.begun(lineno, sid, obj.get("startTime"))
                continue
            if not chat.records:
                chat.sessions = [sid]  # a session that wrote nothing before this one is none
            chat.update(lineno, obj)  # the metadata line (or the whole older one-object form)
        else:
            bad.append(BadLine(lineno, "not a Gemini CLI record", json.dumps(obj)[:120]))
    if len(chat.sessions) > 1:
        chat.mark_first()
    return chat


def _whole_json(path: Path) -> list[tuple[int, Any]] | None:
    """The older one-object form, pretty-printed over many lines: (1, the object), else None."""
    value = read_whole_object(path, WHOLE_JSON_BYTES)
    return [(1, value)] if value is not None and isinstance(value.get("messages"), list) else None


class GeminiReader:
    """Gemini CLI chat files (JSONL, and the older one-object JSON form); one session of a file
    that holds several (``store.parts``) read on its own."""

    agent: ClassVar[str] = "gemini"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the chat (read-only), every session it holds."""
        return self.read_part(path, None)

    def read_part(self, path: Path, part: str | None) -> Session:
        """Read one session of the chat (``part``: its id; None: all of them, the first's header)."""
        bad: list[BadLine] = []
        chat = _read_file(path, bad)
        first = chat.sessions[0] if chat.sessions else None
        if part is not None and part not in chat.sessions:
            from sessiontree.errors import SessionNotFound

            raise SessionNotFound(f"{path} holds no session {part!r}")
        made = _Entries(chat)
        for mid in sorted(chat.records, key=lambda m: chat.line[m]):
            if part is None or (chat.session_of.get(mid, first) == part and mid != f"{part}:begun"):
                made.make(mid)
        meta = chat.meta if part in (None, first) else chat.metas[part]
        header = session_header(
            "qwen" if any(r.get("type") == "qwen" for r in chat.records.values()) else "gemini",
            as_str(meta.get("sessionId")) or path.stem,
            next(iter(strings_of(meta.get("directories"))), ""),
            timestamp=meta.get("startTime"),
            title=meta.get("summary"),
        )
        shown = [m for m in chat.path if part is None or chat.session_of.get(m, first) == part]
        leaf = made.last.get(shown[-1]) if shown else None
        if leaf is None and made.entries and not chat.rewound:
            leaf = str(made.entries[-1]["id"])
        return make_session(path if part is None else part_path(path, part), header, made.entries, bad, leaf)

    def session_ids(self, path: Path) -> list[str]:
        """The sessions a chat file holds, in order, when it may hold several (Gemini CLI's a2a
        server's); none for a file that names one (its bytes counted: the file is not parsed again)."""
        from sessiontree.store.bounded import read_regular

        try:
            several = read_regular(path, WHOLE_JSON_BYTES).count(b'"sessionId"') > 1
        except OSError:
            return []
        return _read_file(path, []).sessions if several else []


def _read_file(path: Path, bad: list[BadLine]) -> _Chat:
    """The chat of a file, either form."""
    values, found = read_values(path)
    if found and (whole := _whole_json(path)) is not None:
        values, found = whole, []
    bad.extend(found)
    return read_chat(values, bad)


register(GeminiReader())
