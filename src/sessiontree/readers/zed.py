"""Zed's agent threads (``threads.db`` in Zed's data dir) read into the session model.

Read as Zed writes them (``crates/agent/src/db.rs``, thread format "0.3.0"): one SQLite table
``threads(id, summary, updated_at, data_type: zstd | json, data, parent_id?, folder_paths?,
created_at?)`` whose ``data`` is a zstd-compressed (or plain) JSON ``DbThread``: ``{title, messages,
updated_at, cumulative_token_usage, request_token_usage, model: {provider, model}, version}``. A
message is ``{"User": {id, content: [{"Text": …} | {"Mention": {content, …}} | {"Image": …}]}}``,
``{"Agent": {content: [{"Text": …} | {"Thinking": {text}} | {"RedactedThinking": …} | {"ToolUse":
{id, name, input}}], tool_results: {id: {tool_use_id, tool_name, is_error, content, output}}}}`` or
``"Resume"``. The thread's cumulative tokens (``input_tokens``, ``output_tokens``,
``cache_read_input_tokens``, ``cache_creation_input_tokens``) go on its last reply. The database is
mirrored into our cache (``readers.db_mirror``): one document ``{"zedThread": row, "thread": …}``
a thread; given by hand, it shows its newest thread.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    Chain,
    as_str,
    make_session,
    read_json_file,
    register,
    session_header,
    token_usage,
)
from sessiontree.readers.database_copy import named_rows
from sessiontree.store.entries import dicts_of
from sessiontree.store.formats import is_sqlite_file
from sessiontree.store.jsonl import BadLine, decode_json, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

ZED_KINDS = (LineKind("zed:mention", "Context", show="meta", context=False, dumped=False),)
"""What a prompt mentions (a file, a symbol, a thread), shown apart from the typed text."""
add_kinds(ZED_KINDS)

MAX_THREAD = 256 << 20
"""A thread's JSON is decompressed up to this size; a larger one is read as empty."""

DOCUMENT_BYTES = 512 << 20


def data_dir(home: Path | None = None) -> Path:
    """Zed's data dir: ``$XDG_DATA_HOME/zed`` on Linux, ``~/Library/Application Support/Zed`` on
    macOS, ``%LOCALAPPDATA%\\Zed`` on Windows."""
    import os
    import sys

    from sessiontree.store.paths import default_data_dir

    base = home if home is not None else Path.home()
    if sys.platform == "darwin":
        return base / "Library" / "Application Support" / "Zed"
    if os.name == "nt":
        local = os.environ.get("LOCALAPPDATA") if home is None else None
        return (Path(local) if local else base / "AppData" / "Local") / "Zed"
    return (default_data_dir() if home is None else base / ".local" / "share") / "zed"


def thread_data(data_type: Any, data: Any) -> Any:
    """A thread's JSON from its ``data`` cell (zstd-compressed or plain), else None."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if not isinstance(raw, bytes):
        return None
    if data_type == "zstd":
        import zstandard

        try:  # a frame with no content size (Zed's streaming encoder) is bounded by max_output_size
            raw = zstandard.ZstdDecompressor().decompress(raw, max_output_size=MAX_THREAD)
        except zstandard.ZstdError:
            return None
    try:
        return decode_json(decode_text(raw))
    except ValueError:
        return None


def _millis(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except (ValueError, OverflowError, OSError):
        return 0


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Thread id -> its last change (its update time and its data's length), for a mirror."""
    rows = connection.execute("SELECT id, updated_at, length(data) FROM threads").fetchall()
    return {
        str(tid): _millis(updated) + (size if isinstance(size, int) else 0) for tid, updated, size in rows
    }


def documents(connection: sqlite3.Connection, ids: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """(thread id, document) of the threads of ``ids`` (all: None), oldest update first."""
    wanted = None if ids is None else set(ids)
    found = []
    for row in named_rows(connection, "SELECT * FROM threads ORDER BY updated_at, id"):
        if wanted is not None and str(row.get("id")) not in wanted:
            continue
        row.pop("data", None)
        raw = connection.cursor()
        raw.row_factory = None  # the compressed bytes as they are (open_copy's rows give BLOBs as text)
        cell = raw.execute("SELECT data FROM threads WHERE id = ?", (row.get("id"),)).fetchone()
        thread = thread_data(row.pop("data_type", None), cell[0] if cell else None)
        found.append((str(row.get("id")), {"zedThread": row, "thread": thread}))
    return found


def _variant(value: Any) -> tuple[str, Any]:
    """A Rust enum as serde writes it: ``{"Name": value}`` or ``"Name"``."""
    if isinstance(value, dict) and len(value) == 1:
        name, inner = next(iter(value.items()))
        return str(name), inner
    return (value, None) if isinstance(value, str) else ("", None)


def _text(value: Any) -> str:
    kind, inner = _variant(value)
    if isinstance(value, str):
        return value
    if kind == "Text" and isinstance(inner, str):
        return inner
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


class _Made(Chain):
    def user(self, index: int, message: dict[str, Any]) -> None:
        parts: list[dict[str, Any]] = []
        for block in _list(message.get("content")):
            kind, inner = _variant(block)
            if kind == "Text" and as_str(inner):
                parts.append({"type": "text", "text": inner})
            elif kind == "Mention" and isinstance(inner, dict) and as_str(inner.get("content")):
                mention = {
                    "type": "custom",
                    "id": f"Z{index}.m{len(self.entries)}",
                    "customType": "zed:mention",
                }
                self.add({**mention, "content": inner["content"]})
        if parts:
            self.add({"type": "message", "id": as_str(message.get("id")) or f"Z{index}",
                      "message": {"role": "user", "content": parts}})  # fmt: skip

    def agent(self, index: int, message: dict[str, Any]) -> None:
        blocks: list[dict[str, Any]] = []
        for at, block in enumerate(_list(message.get("content"))):
            kind, inner = _variant(block)
            if kind == "Text" and as_str(inner):
                blocks.append({"type": "text", "text": inner})
            elif kind == "Thinking" and isinstance(inner, dict) and as_str(inner.get("text")):
                blocks.append({"type": "thinking", "thinking": inner["text"]})
            elif kind == "ToolUse" and isinstance(inner, dict):
                args = inner.get("input")
                blocks.append({"type": "toolCall", "id": as_str(inner.get("id")) or f"Z{index}.{at}",
                               "name": as_str(inner.get("name")) or "tool",
                               "arguments": args if isinstance(args, dict) else {}})  # fmt: skip
        if blocks:
            self.add(
                {"type": "message", "id": f"Z{index}", "message": {"role": "assistant", "content": blocks}}
            )
        results = message.get("tool_results")
        for at, result in enumerate(dicts_of(list(results.values())) if isinstance(results, dict) else []):
            content = result.get("content")
            texts = [_text(c) for c in content] if isinstance(content, list) else [_text(content)]
            cid = as_str(result.get("tool_use_id")) or f"Z{index}.t{at}"
            name = as_str(result.get("tool_name")) or "tool"
            made = {"role": "toolResult", "toolCallId": cid, "toolName": name,
                    "content": [{"type": "text", "text": "\n".join(t for t in texts if t)}],
                    "isError": result.get("is_error") is True}  # fmt: skip
            self.add({"type": "message", "id": f"Z{index}.r{at}", "message": made})


def zed_info(document: dict[str, Any]) -> dict[str, Any]:
    """What a listing shows of a thread's document: id, title, folder, time, parent."""
    row = document.get("zedThread")
    row = row if isinstance(row, dict) else {}
    folders = as_str(row.get("folder_paths")) or ""
    return {"sessionId": row.get("id"), "title": row.get("summary"), "parent": row.get("parent_id"),
            "cwd": folders.splitlines()[0] if folders else "",
            "timestamp": as_str(row.get("created_at")) or as_str(row.get("updated_at"))}  # fmt: skip


def read_document(path: Path, document: dict[str, Any], bad: list[BadLine]) -> Session:
    """A thread from its document (``{"zedThread": row, "thread": {...}}``)."""
    row = document.get("zedThread")
    row = row if isinstance(row, dict) else {}
    thread = document.get("thread")
    thread = thread if isinstance(thread, dict) else {}
    made = _Made()
    for index, message in enumerate(_list(thread.get("messages"))):
        kind, inner = _variant(message)
        if kind == "User" and isinstance(inner, dict):
            made.user(index, inner)
        elif kind == "Agent" and isinstance(inner, dict):
            made.agent(index, inner)
    replies = [e["message"] for e in made.entries if e.get("message", {}).get("role") == "assistant"]
    model = thread.get("model")
    for reply in replies if isinstance(model, dict) and as_str(model.get("model")) else []:
        reply["model"] = model["model"]  # type: ignore[index]
    used = thread.get("cumulative_token_usage")
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    usage = token_usage(used, keys) if isinstance(used, dict) else None
    if replies and usage is not None:  # the thread's totals, counted once: on its last reply
        replies[-1]["usage"] = usage
    info = zed_info(document)
    header = session_header(
        "zed",
        as_str(row.get("id")) or path.stem,
        info["cwd"],
        timestamp=info["timestamp"],
        title=thread.get("title") or row.get("summary"),
        parent=row.get("parent_id"),
    )
    return make_session(path, header if row or thread else {}, made.entries, bad, made.last_id())


class ZedReader:
    """Zed's agent threads: its database (the newest thread) or a thread's document."""

    agent: ClassVar[str] = "zed"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the thread (read-only)."""
        if is_sqlite_file(path):
            from sessiontree.readers.database_copy import newest_document

            document, why = newest_document(path, "Zed", documents)
            if document is None:
                return make_session(path, {}, [], [BadLine(1, why, "")], None)
            return read_document(path, document, [])
        try:
            value = read_json_file(path, DOCUMENT_BYTES)
        except ValueError as exc:
            return make_session(
                path, {}, [], [BadLine(1, f"not a JSON object ({exc.__class__.__name__})", "")], None
            )
        return read_document(path, value if isinstance(value, dict) else {}, [])


register(ZedReader())
