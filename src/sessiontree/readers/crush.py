"""Crush's SQLite database (``<project>/.crush/crush.db``) read into the session model.

Crush (charmbracelet/crush, ``internal/db/migrations``, ``internal/message/content.go``) keeps a
project's sessions in ``sessions`` (``id``, ``parent_session_id``: an agent tool's sub-session,
``title``, ``prompt_tokens``, ``completion_tokens``, ``cost``, ``created_at`` / ``updated_at`` in
seconds) and ``messages`` (``id``, ``session_id``, ``role`` user / assistant / tool / system,
``parts``: a JSON list of ``{type, data}`` with type ``text``, ``reasoning``, ``tool_call``
(``input`` a JSON string), ``tool_result``, ``finish`` (``reason``: end_turn, tool_use, canceled,
error, ...), ``image_url``, ``binary``, ``shell_command``; ``model``, ``created_at``). Crush notes
every project it opened in ``$XDG_DATA_HOME/crush/projects.json`` (``{projects: [{path,
data_dir}]}``): that is how its databases are found. The database is read through a private copy
(``readers.database_copy``); a session of it, for the many-session commands, is the document
``{"crushSession": <session row>, "messages": [<message row, parts parsed>]}`` (``readers.db_mirror``).

Checked against charmbracelet/crush at commit 37f36e93 (``internal/message/content.go``): the part
types are these; a tool result's image (``data`` base64 with ``mime_type``: a viewed image, an MCP
tool's), an attached image (``binary``: ``Path``, ``MIMEType``, ``Data`` base64, Go's field names)
and a ``data:`` ``image_url`` are shown as images, where only their names were.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import Chain, as_str, make_session, read_json_file, register, session_header
from sessiontree.readers.database_copy import named_rows, open_copy
from sessiontree.store.entries import Entry, dicts_of
from sessiontree.store.formats import is_crush_file, is_sqlite_file
from sessiontree.store.jsonl import BadLine, decode_column, decode_json
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.numbers import amount_of, count_of
from sessiontree.store.paths import default_data_dir
from sessiontree.store.session import Session

CRUSH_KINDS = (
    LineKind("crush:error", "Error", show="error", counted=True),
    LineKind("crush:canceled", "Canceled", context=False),
)
"""Crush's message endings that are not conversation (see ``store.kinds``)."""
add_kinds(CRUSH_KINDS)


def _iso(value: Any) -> str | None:
    """Crush's times (seconds since the epoch; milliseconds in a few releases) as ISO (UTC)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
        return None
    try:
        seconds = value / 1000 if value > 1e11 else value
        return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _number(value: Any) -> float:
    return amount_of(value)  # NaN, Infinity, 400 digits: a number to sort by still


def _parts(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, bytes | str):
        value = decode_column(value)
    return dicts_of(value)


def _data(part: dict[str, Any]) -> dict[str, Any]:
    data = part.get("data")
    return data if isinstance(data, dict) else {}


def _arguments(text: Any) -> dict[str, Any]:
    try:
        value = decode_json(text) if isinstance(text, str) and text else {}
    except ValueError:
        return {"input": text}
    return value if isinstance(value, dict) else {"input": value}


def _image(data: Any, mime: Any) -> list[dict[str, Any]]:
    """An image block of base64 data and an ``image/*`` type, else none."""
    if as_str(data) and isinstance(mime, str) and mime.startswith("image/"):
        return [{"type": "image", "data": data, "mimeType": mime}]
    return []


def _attached(data: dict[str, Any]) -> list[dict[str, Any]]:
    """An attached image (a ``binary`` part, or an ``image_url`` given as a data URL), else none."""
    url = as_str(data.get("url")) or ""
    head, sep, body = url.partition(";base64,")
    if url.startswith("data:") and sep:
        return _image(body, head[5:])
    return _image(data.get("Data"), data.get("MIMEType"))


class _Made(Chain):
    def message(self, row: dict[str, Any]) -> None:
        mid, role, ts = str(row.get("id")), row.get("role"), _iso(row.get("created_at"))
        parts = _parts(row.get("parts"))
        if role == "tool":
            for index, part in enumerate(p for p in parts if p.get("type") == "tool_result"):
                data = _data(part)
                result = {
                    "role": "toolResult",
                    "toolCallId": as_str(data.get("tool_call_id")) or mid,
                    "toolName": as_str(data.get("name")) or "tool",
                    "content": [
                        {"type": "text", "text": str(data.get("content") or "")},
                        *_image(data.get("data"), data.get("mime_type")),
                    ],
                    "isError": data.get("is_error") is True,
                }
                self.add(
                    {"type": "message", "id": mid if index == 0 else f"{mid}.{index}", "message": result}, ts
                )
            return
        content: list[dict[str, Any]] = []
        finish: dict[str, Any] = {}
        for part in parts:
            kind, data = part.get("type"), _data(part)
            if kind == "text" and as_str(data.get("text")) and not data.get("hidden"):
                content.append({"type": "text", "text": data["text"]})
            elif kind == "reasoning" and as_str(data.get("thinking")):
                content.append({"type": "thinking", "thinking": data["thinking"]})
            elif kind == "tool_call":
                call = {
                    "type": "toolCall",
                    "id": as_str(data.get("id")) or mid,
                    "name": as_str(data.get("name")) or "tool",
                }
                content.append({**call, "arguments": _arguments(data.get("input"))})
            elif kind == "shell_command":
                command, output = data.get("command", ""), data.get("output", "")
                shown = f"$ {command}\n{output}(exit code {data.get('exit_code')})"
                content.append({"type": "text", "text": shown})
            elif kind in ("image_url", "binary") and (image := _attached(data)):
                content.extend(image)
            elif kind in ("image_url", "binary"):
                content.append(
                    {
                        "type": "text",
                        "text": f"[{as_str(data.get('url')) or as_str(data.get('Path')) or kind}]",
                    }
                )
            elif kind == "finish":
                finish = data
        if role in ("user", "assistant") and content:
            message: dict[str, Any] = {"role": role, "content": content}
            if role == "assistant":
                for key, column in (("model", "model"), ("provider", "provider")):
                    if as_str(row.get(column)):
                        message[key] = row[column]
            self.add({"type": "message", "id": mid, "message": message}, ts)
        reason = finish.get("reason")
        if reason in ("error", "canceled", "content_filter"):
            text = " ".join(t for t in (as_str(finish.get("message")), as_str(finish.get("details"))) if t)
            kind = "crush:canceled" if reason == "canceled" else "crush:error"
            entry: Entry = {
                "type": "custom",
                "id": f"{mid}.finish",
                "customType": kind,
                "content": text or str(reason),
            }
            self.add(entry, ts)


def _usage(made: _Made, info: dict[str, Any]) -> None:
    """Crush counts tokens and cost per session: they go on its last reply."""
    replies = [e for e in made.entries if e.get("message", {}).get("role") == "assistant"]
    if not replies:
        return
    numbers: dict[str, float] = {}
    for key in ("prompt_tokens", "completion_tokens", "cost"):
        value = info.get(key)
        numbers[key] = value if isinstance(value, int | float) and not isinstance(value, bool) else 0
    usage: dict[str, Any] = {
        "input": numbers["prompt_tokens"],  # range-checked with every agent's (store.sane)
        "output": numbers["completion_tokens"],
        "cacheRead": 0,
        "cacheWrite": 0,
    }
    usage["totalTokens"] = usage["input"] + usage["output"]
    if numbers["cost"]:
        usage["cost"] = numbers["cost"]
    replies[-1]["message"]["usage"] = usage


def read_document(path: Path, document: dict[str, Any], bad: list[BadLine]) -> Session:
    """A session from its document (``{"crushSession": row, "messages": [rows]}``)."""
    info = document.get("crushSession")
    info = info if isinstance(info, dict) else {}
    made = _Made()
    rows = dicts_of(document.get("messages"))
    for row in sorted(rows, key=lambda r: (_number(r.get("created_at")), str(r.get("id")))):
        made.message(row)
    _usage(made, info)
    header = session_header(
        "crush",
        as_str(info.get("id")) or path.stem,
        as_str(document.get("cwd")) or "",
        timestamp=_iso(info.get("created_at")),
        title=info.get("title"),
        parent=info.get("parent_session_id"),
    )
    last = made.last_id()
    return make_session(path, header, made.entries, bad, last)


def _documents(
    connection: sqlite3.Connection, ids: list[str] | None, cwd: str
) -> list[tuple[str, dict[str, Any]]]:
    sessions = named_rows(connection, "SELECT * FROM sessions ORDER BY updated_at, id")
    wanted = None if ids is None else set(ids)
    found = []
    for info in sessions:
        if wanted is not None and info["id"] not in wanted:
            continue
        rows = named_rows(connection, "SELECT * FROM messages WHERE session_id = ?", (info["id"],))
        for row in rows:
            row["parts"] = _parts(row.get("parts"))
        found.append((str(info["id"]), {"crushSession": info, "cwd": cwd, "messages": rows}))
    return found


def _cwd_of(db: Path) -> str:
    """The project a database belongs to: the folder holding its data dir (``.crush``)."""
    return str(db.absolute().parent.parent)


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Session id -> the last time it or one of its messages changed, for a mirror."""
    rows = connection.execute(
        "SELECT s.id, max(s.updated_at, coalesce((SELECT max(updated_at) FROM messages m"
        " WHERE m.session_id = s.id), 0)) FROM sessions s"
    ).fetchall()
    # count_of: a stamp of TEXT, a BLOB, a REAL NaN or 20 digits is a number still (a change detector).
    return {str(sid): count_of(stamp) * (1 if count_of(stamp) > 1e11 else 1000) for sid, stamp in rows}


def id_documents(
    connection: sqlite3.Connection, ids: list[str], db: Path
) -> list[tuple[str, dict[str, Any]]]:
    """(session id, document) of the sessions of ``ids``, for a mirror (``readers.db_mirror``)."""
    return _documents(connection, ids, _cwd_of(db))


PROJECTS_BYTES = 16 << 20
"""The largest ``projects.json`` read (Crush notes a line per project)."""


def projects_file(data_dir: Path | None = None, *, windows: bool = os.name == "nt") -> Path:
    """Where Crush notes its projects, beside its data file (crush's internal/config
    GlobalConfigData): ``$CRUSH_GLOBAL_DATA``, else ``$XDG_DATA_HOME/crush`` (``~/.local/share`` on
    Linux and macOS), else ``%LOCALAPPDATA%\\crush`` on Windows."""
    if data_dir is None and os.environ.get("CRUSH_GLOBAL_DATA"):
        return Path(os.environ["CRUSH_GLOBAL_DATA"]) / "projects.json"
    if (
        data_dir is None
        and windows
        and not os.environ.get("XDG_DATA_HOME")
        and os.environ.get("LOCALAPPDATA")
    ):
        return Path(os.environ["LOCALAPPDATA"]) / "crush" / "projects.json"
    return (data_dir or default_data_dir()) / "crush" / "projects.json"


def project_databases(
    data_dir: Path | None = None, is_file: Callable[[Path], bool] = Path.is_file
) -> list[Path]:
    """The databases of the projects Crush notes in ``projects.json`` (``projects_file``)."""
    try:
        listed = read_json_file(projects_file(data_dir), PROJECTS_BYTES)
    except (OSError, ValueError, RecursionError):
        return []
    projects = listed.get("projects") if isinstance(listed, dict) else None
    found = []
    for project in projects if isinstance(projects, list) else []:
        where, data = (
            (project.get("path"), project.get("data_dir")) if isinstance(project, dict) else (None, None)
        )
        if isinstance(where, str) and isinstance(data, str):
            db = Path(where, data, "crush.db")  # data_dir is absolute, or relative to the project
            if is_file(db):
                found.append(db)
    return found


def crush_info(document: dict[str, Any]) -> dict[str, Any]:
    """What a listing shows of a session's document: id, title, cwd, time, first prompt."""
    info = document.get("crushSession")
    info = info if isinstance(info, dict) else {}
    found = {"sessionId": info.get("id"), "title": info.get("title"), "cwd": document.get("cwd"),
             "parent": info.get("parent_session_id"),
             "timestamp": _iso(info.get("created_at"))}  # fmt: skip
    listed = document.get("messages")
    for row in listed if isinstance(listed, list) else []:
        if isinstance(row, dict) and row.get("role") == "user":
            texts = [_data(p).get("text") for p in _parts(row.get("parts")) if p.get("type") == "text"]
            text = "\n".join(t for t in texts if isinstance(t, str)).strip()
            if text:
                found["prompt"] = text
                break
    return found


class CrushReader:
    """Crush sessions: its database (the most recently updated session) or a session's document."""

    agent: ClassVar[str] = "crush"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session (read-only)."""
        if is_sqlite_file(path):
            with open_copy(path) as connection:
                try:
                    documents = _documents(connection, None, _cwd_of(path))
                except sqlite3.DatabaseError as exc:
                    return make_session(path, {}, [], [BadLine(1, f"not a Crush database ({exc})", "")], None)
            if not documents:
                return make_session(path, {}, [], [BadLine(1, "a Crush database with no session", "")], None)
            return read_document(path, documents[-1][1], [])
        try:
            value = read_json_file(path)
        except ValueError as exc:
            return make_session(
                path, {}, [], [BadLine(1, f"not a JSON object ({exc.__class__.__name__})", "")], None
            )
        if not isinstance(value, dict) or not is_crush_file([value]):
            return make_session(path, {}, [], [BadLine(1, "not a Crush session", "")], None)
        return read_document(path, value, [])


register(CrushReader())
