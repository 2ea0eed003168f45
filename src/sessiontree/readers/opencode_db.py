"""OpenCode's SQLite database (``$XDG_DATA_HOME/opencode/opencode.db``) read as ``opencode export`` documents.

OpenCode 1.x keeps every session in one database (``packages/opencode/src/session/session.sql.ts``):
``session`` (one row per session: ``id``, ``parent_id``, ``directory``, ``title``, ``time_created``
/ ``time_updated`` in ms, ``revert`` JSON, ...), ``message`` (``id``, ``session_id``,
``time_created``, ``data``: the message info as JSON without its ids) and ``part`` (``id``,
``message_id``, ``session_id``, ``data``: the part as JSON without its ids). Each session read
here becomes the document ``opencode export`` prints (``{info, messages: [{info, parts}]}``),
so one reader (``readers.opencode``) reads both.

It is read through a private copy (``readers.database_copy``).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from sessiontree.errors import InvalidSession
from sessiontree.readers.database_copy import named_rows, open_copy
from sessiontree.store.jsonl import decode_column
from sessiontree.store.numbers import count_of

SESSION_TIMES = ("created", "updated", "compacting", "archived")


def _loads(text: Any) -> dict[str, Any]:
    value = decode_column(text)
    return value if isinstance(value, dict) else {}


def _session_info(row: dict[str, Any]) -> dict[str, Any]:
    """A ``session`` row as OpenCode's session info (camelCase, times under ``time``)."""
    keys = row.keys()
    info: dict[str, Any] = {"id": row["id"]}
    for column, name in (
        ("project_id", "projectID"),
        ("parent_id", "parentID"),
        ("directory", "directory"),
        ("title", "title"),
        ("version", "version"),
        ("slug", "slug"),
    ):
        if column in keys and row[column] is not None:
            info[name] = row[column]
    info["time"] = {t: row[f"time_{t}"] for t in SESSION_TIMES if f"time_{t}" in keys and row[f"time_{t}"]}
    if "revert" in keys and (revert := _loads(row["revert"])):
        info["revert"] = revert
    if "share_url" in keys and row["share_url"]:
        info["share"] = {"url": row["share_url"]}
    return info


def _document(connection: sqlite3.Connection, row: dict[str, Any]) -> dict[str, Any]:
    """One session as ``opencode export`` prints it."""
    sid = row["id"]
    parts: dict[str, list[dict[str, Any]]] = {}
    for pid, mid, data in connection.execute(
        "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id", (sid,)
    ):
        part = _loads(data)
        parts.setdefault(mid, []).append({**part, "id": pid, "sessionID": sid, "messageID": mid})
    messages = []
    for mid, data in connection.execute(
        "SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id", (sid,)
    ):
        info = {**_loads(data), "id": mid, "sessionID": sid}
        messages.append({"info": info, "parts": parts.get(mid, [])})
    return {"info": _session_info(row), "messages": messages}


def read_documents(connection: sqlite3.Connection, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """The sessions of a database copy (every one, or those of ``ids``) as export documents,
    the most recently updated last."""
    rows = named_rows(connection, "SELECT * FROM session ORDER BY time_updated, id")
    wanted = None if ids is None else set(ids)
    return [_document(connection, row) for row in rows if wanted is None or row["id"] in wanted]


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Session id -> the last time it, one of its messages or one of its parts changed (ms)."""
    rows = connection.execute(
        "SELECT s.id, max(s.time_updated,"
        " coalesce((SELECT max(time_updated) FROM message m WHERE m.session_id = s.id), 0),"
        " coalesce((SELECT max(time_updated) FROM part p WHERE p.session_id = s.id), 0))"
        " FROM session s"
    ).fetchall()
    return {str(sid): count_of(stamp) for sid, stamp in rows}  # any column type: a number


def load_documents(db: Path, ids: list[str] | None = None) -> list[dict[str, Any]]:
    """The sessions of a database file (read through a private copy) as export documents."""
    with open_copy(db) as connection:
        try:
            return read_documents(connection, ids)
        except sqlite3.DatabaseError as exc:
            raise InvalidSession(f"{db}: not a readable OpenCode database ({exc})") from None


def id_documents(
    connection: sqlite3.Connection, ids: list[str], db: Path
) -> list[tuple[str, dict[str, Any]]]:
    """(session id, export document) of the sessions of ``ids``, for a mirror (``readers.db_mirror``)."""
    return [(str(d["info"]["id"]), d) for d in read_documents(connection, ids)]


def database_path(data_dir: Path | None = None) -> Path:
    """Where OpenCode keeps its database: ``$XDG_DATA_HOME/opencode/opencode.db``."""
    from sessiontree.store.paths import default_data_dir

    return (data_dir or default_data_dir()) / "opencode" / "opencode.db"
