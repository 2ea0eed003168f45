"""Real OpenCode databases for the tests: the tables of OpenCode 1.x (``session.sql.ts``), filled
from the storage-folder fixture the way OpenCode's own migration moves it (ids out of ``data``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

STORAGE = Path(__file__).resolve().parents[1] / "fixtures" / "opencode" / "storage"

SCHEMA = """
CREATE TABLE `project` (`id` text PRIMARY KEY NOT NULL, `worktree` text NOT NULL, `vcs` text,
  `name` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
CREATE TABLE `session` (`id` text PRIMARY KEY NOT NULL, `project_id` text NOT NULL, `workspace_id` text,
  `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL,
  `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer,
  `summary_files` integer, `summary_diffs` text, `cost` real DEFAULT 0 NOT NULL,
  `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL,
  `revert` text, `permission` text, `agent` text, `model` text,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer,
  `time_archived` integer,
  FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE cascade);
CREATE TABLE `message` (`id` text PRIMARY KEY NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE cascade);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`, `time_created`, `id`);
CREATE TABLE `part` (`id` text PRIMARY KEY NOT NULL, `message_id` text NOT NULL, `session_id` text NOT NULL,
  `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
  FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE cascade);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`, `id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE TABLE `event` (`id` text PRIMARY KEY NOT NULL, `aggregate_id` text NOT NULL, `seq` integer NOT NULL,
  `type` text NOT NULL, `data` text NOT NULL);
"""


def load(path: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return value


def fixture_session() -> dict[str, Any]:
    (path,) = sorted((STORAGE / "session").glob("*/ses_*.json"))
    return load(path)


def fixture_messages(session_id: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """(message, its parts) of the storage fixture, in id order."""
    found = []
    for path in sorted((STORAGE / "message" / session_id).glob("*.json")):
        message = load(path)
        parts = [load(p) for p in sorted((STORAGE / "part" / message["id"]).glob("*.json"))]
        found.append((message, parts))
    return found


def insert_session(db: sqlite3.Connection, info: dict[str, Any], parent: str | None = None) -> None:
    times = info["time"]
    db.execute("INSERT OR IGNORE INTO project VALUES (?, ?, 'git', NULL, ?, ?)",
               (info["projectID"], info["directory"], times["created"], times["created"]))  # fmt: skip
    db.execute(
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created,"
        " time_updated, revert) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (info["id"], info["projectID"], parent, info.get("slug", "s"), info["directory"], info["title"],
         info.get("version", "1.16.0"), times["created"], times["updated"],
         json.dumps(info["revert"]) if "revert" in info else None),
    )  # fmt: skip


def insert_message(db: sqlite3.Connection, message: dict[str, Any], parts: list[dict[str, Any]]) -> None:
    created = message["time"]["created"]
    data = {k: v for k, v in message.items() if k not in ("id", "sessionID")}
    db.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)",
               (message["id"], message["sessionID"], created, created, json.dumps(data)))  # fmt: skip
    for part in parts:
        body = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
        row = (part["id"], message["id"], message["sessionID"], created, created, json.dumps(body))
        db.execute("INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", row)


def make_database(db_path: Path, *, wal: bool = True) -> dict[str, Any]:
    """A database holding the storage fixture's session; returns its session info."""
    info = fixture_session()
    db = sqlite3.connect(db_path)
    try:
        if wal:
            db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        insert_session(db, info)
        for message, parts in fixture_messages(info["id"]):
            insert_message(db, message, parts)
        db.commit()
    finally:
        db.close()
    return info


def export_document(info: dict[str, Any]) -> dict[str, Any]:
    """The fixture's session as ``opencode export`` prints it."""
    messages = [{"info": m, "parts": p} for m, p in fixture_messages(info["id"])]
    return {"info": info, "messages": messages, "todos": []}
