"""OpenCode's storage folder (``~/.local/share/opencode/storage/``) read into the session model.

OpenCode (sst/opencode, ``packages/opencode/src/session/`` and ``storage/``) keeps one session as
many pretty-printed JSON files under its storage root: ``session/<projectID>/<sessionID>.json``
(``{id: "ses_…", projectID, directory, title, time {created, updated}, revert?}``),
``message/<sessionID>/<messageID>.json`` (``role`` user / assistant; an assistant message has
``modelID``, ``providerID``, ``tokens {input, output, reasoning, cache {read, write}}``, ``cost``,
``error?``) and ``part/<messageID>/<partID>.json`` (``type`` text / reasoning / tool / file /
step-start / step-finish / patch / subtask / retry / compaction / agent / snapshot). Its ids
ascend with time, so file names give the order. The session's JSON file is the "session file":
its messages and parts are read from the sibling folders of the storage root, never written.
Times are milliseconds since the epoch.

Checked against anomalyco/opencode (sst/opencode moved there) at commit 007a9409
(``session/message-v2.ts``): the same twelve part types; a completed tool's ``state.attachments``
(file parts: the images a tool read) are shown with its result, and an interrupted tool's error
keeps the output it had made (``state.metadata.output``, what the model was sent).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import as_str, make_session, read_json_file, register, session_header
from sessiontree.readers.opencode_layout import field, iso_time
from sessiontree.store.entries import Entry, strings_of
from sessiontree.store.formats import is_opencode_export, is_opencode_file, is_sqlite_file
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import KINDS, LineKind, add_kinds
from sessiontree.store.session import Session
from sessiontree.store.storage import read_reason, resolves_inside

OPENCODE_KINDS = (
    LineKind("opencode:error", "Error", show="error", counted=True),
    LineKind("opencode:retry", "Retry", show="error", counted=True),
    LineKind("opencode:patch", "Patch", show="meta", context=False),
    LineKind("opencode:compaction", "Compaction", context=False),
    LineKind("opencode:subtask", "Subtask", context=False),
    LineKind("opencode:synthetic", "Context", show="meta"),
    LineKind("opencode:agent", "Agent", context=False),
    LineKind("opencode:running", "Still running", show="meta", context=False),
)
"""OpenCode's parts and messages that are not conversation (see ``store.kinds``)."""
add_kinds(OPENCODE_KINDS)

SKIPPED_PARTS = frozenset({"step-start", "step-finish", "snapshot"})
"""Parts that add nothing a page shows (step-finish's tokens and cost repeat the message's)."""

FILE_BYTES = 64 << 20
"""A message or part file larger than this is skipped (reported as damaged)."""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_of(message: dict[str, Any]) -> dict[str, Any] | None:
    """An assistant message's ``tokens`` and ``cost`` as the store's usage (reasoning as output)."""
    tokens = message.get("tokens")
    if not isinstance(tokens, dict):
        return None
    cache = field(tokens, "cache")
    usage: dict[str, Any] = {
        "input": _count(tokens.get("input")),
        "output": _count(tokens.get("output")) + _count(tokens.get("reasoning")),
        "cacheRead": _count(cache.get("read")),
        "cacheWrite": _count(cache.get("write")),
    }
    usage["totalTokens"] = sum(usage.values())
    cost = message.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        usage["cost"] = cost  # recorded by OpenCode: wins over an estimate (store.pricing)
    return usage


class _Folder:
    """The JSON files of one folder of a storage root, parsed, in name order (damage reported)."""

    def __init__(self, real_root: Path, bad: list[BadLine]) -> None:
        self.real_root = real_root
        self.bad = bad

    def read(self, folder: Path) -> list[dict[str, Any]]:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
        except FileNotFoundError:
            return []  # no messages (or parts) yet
        except OSError as exc:  # a folder not ours to read: said, never a silently empty session
            reason = f"{folder.parent.name}/{folder.name}: unreadable: {read_reason(exc)}"
            self.bad.append(BadLine(len(self.bad) + 1, reason, ""))
            return []
        found: list[dict[str, Any]] = []
        for name in names:
            path = folder / name
            value = self.read_file(path)
            if isinstance(value, dict):
                found.append(value)
        return found

    def read_file(self, path: Path) -> Any:
        label = f"{path.parent.name}/{path.name}"
        if not resolves_inside(path, self.real_root):
            return None  # a link out of the storage root: never opened
        try:
            return read_json_file(path, FILE_BYTES)
        except OSError as exc:  # a named pipe, a folder, a file too large: refused, never read
            self.bad.append(BadLine(len(self.bad) + 1, f"{label}: unreadable: {read_reason(exc)}", ""))
        except ValueError as exc:
            self.bad.append(BadLine(len(self.bad) + 1, f"{label}: {exc.__class__.__name__}", ""))
        return None


def _file_block(part: dict[str, Any]) -> dict[str, Any]:
    url = as_str(part.get("url")) or ""
    mime = as_str(part.get("mime")) or ""
    if mime.startswith("image/") and url.startswith("data:") and "," in url:
        return {"type": "image", "data": url.split(",", 1)[1], "mimeType": mime}
    return {"type": "text", "text": f"[{as_str(part.get('filename')) or url or 'file'}]"}


def _tool_result(part: dict[str, Any]) -> dict[str, Any] | None:
    state = field(part, "state")
    status = state.get("status")
    if status not in ("completed", "error"):
        return None  # pending or running when the files were read
    text = state.get("output") if status == "completed" else state.get("error")
    text = text if isinstance(text, str) else json.dumps(text)
    meta = field(state, "metadata")
    if status == "error" and meta.get("interrupted") is True and isinstance(meta.get("output"), str):
        text = f"{meta['output']}\n\n{text}"  # what the tool had made before it was stopped, then why
    attached = state.get("attachments") if status == "completed" else None
    files = [_file_block(f) for f in (attached if isinstance(attached, list) else ()) if isinstance(f, dict)]
    result: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": as_str(part.get("callID")) or str(part.get("id")),
        "toolName": as_str(part.get("tool")) or "tool",
        "content": [{"type": "text", "text": text}, *files],
        "isError": status == "error",
    }
    child = as_str(meta.get("sessionId"))
    if child is not None:  # the task tool (a subtask) ran in a session of its own
        result["details"] = {"sessionId": child}
    return result


class _Entries:
    """The session's entries in order, one chain (each entry's parent is the one before)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.last: str | None = None
        self.first_of: dict[str, str] = {}  # message id -> the id of its first entry
        self.agent: str | None = None  # the agent (build, plan, ...) that wrote the last reply

    def add(self, entry: Entry, ts: str | None) -> None:
        entry["parentId"] = self.last
        if ts is not None:
            entry["timestamp"] = ts
        self.entries.append(entry)
        self.last = str(entry["id"])

    def notice(self, eid: str, kind: str, text: str, ts: str | None) -> None:
        if KINDS[kind].context:  # in the model's context: dumped
            entry: Entry = {
                "type": "custom_message",
                "id": eid,
                "customType": kind,
                "content": text,
                "display": True,
            }
        else:
            entry = {"type": "custom", "id": eid, "customType": kind, "content": text}
        self.add(entry, ts)

    def message(self, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        mid = str(info["id"])
        start = len(self.entries)
        ts = iso_time(field(info, "time").get("created"))
        if info.get("role") == "assistant":
            self._reply(mid, info, parts, ts)
        else:
            self._prompt(mid, parts, ts)
        if len(self.entries) > start:
            self.first_of[mid] = str(self.entries[start]["id"])

    def _prompt(self, mid: str, parts: list[dict[str, Any]], ts: str | None) -> None:
        content: list[dict[str, Any]] = []
        added: list[dict[str, Any]] = []  # text OpenCode added (a file read for the prompt): not typed
        for part in parts:
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str) and not part.get("ignored"):
                if part.get("synthetic"):
                    added.append(part)
                else:
                    content.append({"type": "text", "text": part["text"]})
            elif kind == "file":
                content.append(_file_block(part))
            elif kind not in SKIPPED_PARTS and kind != "text":
                added.append(part)
        if content:
            message: dict[str, Any] = {"role": "user", "content": content}
            self.add({"type": "message", "id": mid, "message": message}, ts)
        for part in added:
            if part.get("type") == "text":
                self.notice(str(part.get("id")), "opencode:synthetic", part["text"], ts)
            else:
                self._other(part, ts)

    def _reply(self, mid: str, info: dict[str, Any], parts: list[dict[str, Any]], ts: str | None) -> None:
        agent = as_str(info.get("agent")) or as_str(info.get("mode"))
        if agent is not None and self.agent is not None and agent != self.agent:
            self.notice(f"{mid}.agent", "opencode:agent", f"{self.agent} → {agent}", ts)
        self.agent = agent or self.agent
        content: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        others: list[dict[str, Any]] = []
        for part in parts:
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str) and part["text"]:
                content.append({"type": "text", "text": part["text"]})
            elif kind == "reasoning" and isinstance(part.get("text"), str) and part["text"]:
                content.append({"type": "thinking", "thinking": part["text"]})
            elif kind == "tool":
                state = field(part, "state")
                args = state.get("input")
                content.append(
                    {
                        "type": "toolCall",
                        "id": as_str(part.get("callID")) or str(part.get("id")),
                        "name": as_str(part.get("tool")) or "tool",
                        "arguments": args if isinstance(args, dict) else {},
                    }
                )
                if (result := _tool_result(part)) is not None:
                    results.append({"id": str(part.get("id")), "message": result})
                else:
                    others.append({**part, "type": "running"})
            elif kind == "file":
                content.append(_file_block(part))
            elif kind not in SKIPPED_PARTS:
                others.append(part)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        for key, name in (("provider", "providerID"), ("model", "modelID")):
            if as_str(info.get(name)):
                message[key] = info[name]
        usage = usage_of(info)
        if usage is not None:
            message["usage"] = usage
        if content or (usage is not None and (usage["totalTokens"] or usage.get("cost"))):
            self.add({"type": "message", "id": mid, "message": message}, ts)  # else its error alone
        for result in results:
            self.add({"type": "message", "id": result["id"], "message": result["message"]}, ts)
        for part in others:
            self._other(part, ts)
        error = info.get("error")
        if isinstance(error, dict):
            data = field(error, "data")
            name = as_str(error.get("name")) or "Error"
            text = as_str(data.get("message"))
            self.notice(f"{mid}.error", "opencode:error", f"{name}: {text}" if text else name, ts)

    def _other(self, part: dict[str, Any], ts: str | None) -> None:
        kind = part.get("type")
        pid = str(part.get("id"))
        if kind == "patch":
            files = strings_of(part.get("files"))  # a number or true there: no file named
            self.notice(pid, "opencode:patch", "\n".join(files), ts)
        elif kind == "retry":
            error = field(part, "error")
            data = field(error, "data")
            text = as_str(data.get("message")) or as_str(error.get("name")) or "retry"
            self.notice(pid, "opencode:retry", f"attempt {part.get('attempt')}: {text}", ts)
        elif kind == "running":
            state = field(part, "state")
            what = as_str(state.get("title")) or as_str(part.get("tool")) or "tool"
            self.notice(
                f"{pid}.running", "opencode:running", f"{state.get('status') or 'pending'}: {what}", ts
            )
        elif kind == "agent":
            self.notice(pid, "opencode:agent", f"@{as_str(part.get('name')) or 'agent'}", ts)
        elif kind == "compaction":
            self.notice(pid, "opencode:compaction", "Context compacted", ts)
        elif kind == "subtask":
            text = as_str(part.get("description")) or as_str(part.get("prompt")) or ""
            self.notice(pid, "opencode:subtask", f"{as_str(part.get('agent')) or 'agent'}: {text}", ts)
        else:  # a part type of a later release: carried, shown as JSON under "all"
            entry: Entry = {"type": "custom", "id": pid, "customType": f"opencode:{kind}", "data": part}
            self.add(entry, ts)


def _message_order(info: dict[str, Any]) -> tuple[float, str]:
    created = field(info, "time").get("created")
    when = created if isinstance(created, int | float) and not isinstance(created, bool) else 0
    return (when, str(info.get("id")))


def read_storage(path: Path, info: dict[str, Any], bad: list[BadLine]) -> _Entries:
    """The entries of a session from the storage root its file is in (``<root>/session/<p>/<id>.json``)."""
    root = path.parent.parent.parent
    folder = _Folder(root.resolve(), bad)
    sid = as_str(info.get("id")) or path.stem
    made = _Entries()
    messages = [m for m in folder.read(root / "message" / sid) if as_str(m.get("id"))]
    for message in sorted(messages, key=_message_order):
        parts = folder.read(root / "part" / str(message["id"]))
        made.message(message, [p for p in parts if isinstance(p.get("type"), str)])
    return made


def _leaf(made: _Entries, info: dict[str, Any]) -> str | None:
    """The active leaf: the entry before a revert's message (what follows stays, off the path)."""
    revert = info.get("revert")
    target = revert.get("messageID") if isinstance(revert, dict) else None
    first = made.first_of.get(target) if isinstance(target, str) else None
    if first is not None:
        parent = next(e.get("parentId") for e in made.entries if e["id"] == first)
        return parent if isinstance(parent, str) else None
    return made.last


class OpenCodeReader:
    """OpenCode sessions: the session's JSON file, its messages and parts beside it in the storage root."""

    agent: ClassVar[str] = "opencode"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read a session file, an export document or a database's latest session (read-only)."""
        bad: list[BadLine] = []
        if is_sqlite_file(path):
            return read_database(path)
        try:
            value = read_json_file(path)
        except ValueError as exc:
            value = None
            bad.append(BadLine(1, f"not a JSON object ({exc.__class__.__name__})", ""))
        if isinstance(value, dict) and is_opencode_export([value]):
            return read_export(path, value, bad)
        info = value if isinstance(value, dict) else {}
        if not is_opencode_file([info]):
            return make_session(path, {}, [], bad or [BadLine(1, "not an OpenCode session", "")], None)
        return session_of(path, info, read_storage(path, info, bad), bad)


def session_of(path: Path, info: dict[str, Any], made: _Entries, bad: list[BadLine]) -> Session:
    """The session of a session info and the entries made of its messages."""
    times = field(info, "time")
    header = session_header(
        "opencode",
        as_str(info.get("id")) or path.stem,
        as_str(info.get("directory")) or "",
        timestamp=iso_time(times.get("created")),
        title=info.get("title"),
        parent=info.get("parentID"),
    )
    return make_session(path, header, made.entries, bad, _leaf(made, info))


def read_export(path: Path, document: dict[str, Any], bad: list[BadLine]) -> Session:
    """A session from an ``opencode export`` document (``{info, messages: [{info, parts}]}``)."""
    info = field(document, "info")
    made = _Entries()
    listed = document.get("messages")
    found: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for index, item in enumerate(listed if isinstance(listed, list) else []):
        message = field(item, "info")
        parts = item.get("parts") if isinstance(item, dict) else None
        if not as_str(message.get("id")) or not isinstance(parts, list):
            bad.append(BadLine(index + 1, "not an OpenCode message", json.dumps(item)[:120]))
            continue
        found.append((message, [p for p in parts if isinstance(p, dict) and isinstance(p.get("type"), str)]))
    for message, parts in sorted(found, key=lambda pair: _message_order(pair[0])):
        made.message(message, parts)
    return session_of(path, info, made, bad)


def read_database(path: Path) -> Session:
    """The most recently updated session of an OpenCode database (read from a private copy)."""
    from sessiontree.readers.opencode_db import load_documents

    documents = load_documents(path)
    if not documents:
        return make_session(path, {}, [], [BadLine(1, "an OpenCode database with no session", "")], None)
    return read_export(path, documents[-1], [])


register(OpenCodeReader())
