"""Goose's SQLite store (``$XDG_DATA_HOME/goose/sessions/sessions.db``, Goose 1.x) as one document a
session, for ``readers.db_mirror`` and for a database given by hand.

Read as block/goose writes it (``crates/goose/src/session/session_manager.rs``, schema version 5):
``sessions(id, name, description, working_dir, created_at, updated_at, total_tokens, input_tokens,
output_tokens, accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, ...)``
and ``messages(id, session_id, role, content_json, created_timestamp, ...)``, whose
``content_json`` holds the same content items as the JSONL files of the releases before it
(``readers.goose``). A session's document is ``{"gooseSession": <row>, "messages": [{id, role,
created, content}]}``; the reader of the JSONL files reads it.
"""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessiontree.readers.database_copy import named_rows
from sessiontree.store.jsonl import decode_column
from sessiontree.store.numbers import count_of
from sessiontree.store.paths import default_data_dir

DATABASE = "sessions.db"


def database_path(data_dir: Path | None = None, *, windows: bool = os.name == "nt") -> Path:
    """Where Goose keeps its database: ``$XDG_DATA_HOME/goose/sessions/sessions.db`` on Linux and
    macOS (its paths are etcetera's XDG app strategy there too), ``%APPDATA%\\Block\\goose\\data\\
    sessions\\sessions.db`` on Windows (that strategy's data dir for author Block, app goose)."""
    if data_dir is None and windows and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "Block" / "goose" / "data" / "sessions" / DATABASE
    return (data_dir or default_data_dir()) / "goose" / "sessions" / DATABASE


def _millis(value: Any) -> int:
    """A row's time (``2025-10-01 12:00:00`` as SQLite writes it, or seconds) in milliseconds, else 0."""
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return 0
        return int((when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp() * 1000)
    seconds = count_of(value)
    return seconds * 1000 if 0 < seconds < 10**11 else 0


def session_stamps(connection: sqlite3.Connection) -> dict[str, int]:
    """Session id -> its last change (its update time, its newest message, their count), for a mirror."""
    rows = connection.execute(
        "SELECT s.id, s.updated_at, (SELECT max(created_timestamp) FROM messages m"
        " WHERE m.session_id = s.id), (SELECT count(*) FROM messages m WHERE m.session_id = s.id)"
        " FROM sessions s"
    ).fetchall()
    # A message replaced in place keeps the stamp; its count or its session's update time changes it.
    return {
        str(sid): max(_millis(updated), _millis(newest)) + count_of(count)
        for sid, updated, newest, count in rows
    }


def documents(connection: sqlite3.Connection, ids: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """(session id, document) of the sessions of ``ids`` (all: None), oldest update first."""
    wanted = None if ids is None else set(ids)
    found = []
    for row in named_rows(connection, "SELECT * FROM sessions ORDER BY updated_at, id"):
        if wanted is not None and str(row.get("id")) not in wanted:
            continue
        rows = named_rows(
            connection,
            "SELECT id, role, content_json, created_timestamp FROM messages WHERE session_id = ? ORDER BY id",
            (row.get("id"),),
        )
        messages = [{"id": f"M{m['id']}", "role": m["role"], "created": m["created_timestamp"],
                     "content": decode_column(m["content_json"])} for m in rows]  # fmt: skip
        row = {k: v for k, v in row.items() if k not in ("recipe_json", "user_recipe_values_json")}
        found.append((str(row.get("id")), {"gooseSession": row, "messages": messages}))
    return found


def session_meta(row: dict[str, Any]) -> dict[str, Any]:
    """A session row as the metadata line of Goose's JSONL files (its totals the accumulated ones)."""
    meta = {"working_dir": row.get("working_dir"), "description": row.get("name") or row.get("description")}
    for key in ("input_tokens", "output_tokens"):
        value = row.get(f"accumulated_{key}")
        meta[key] = value if isinstance(value, int) else row.get(key)
    return meta
