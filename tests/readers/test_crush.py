"""Crush's SQLite database, built with its own migration's tables, counted from the rows."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive.catalog import Catalog
from sessiontree.readers import detect_agent, load_any
from sessiontree.readers.discovery import default_roots
from tests.readers.helpers import run

# internal/db/migrations/20250424200609_initial.sql (the tables and columns the reader uses)
SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL);
CREATE TABLE files (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, path TEXT NOT NULL, content TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL,
  parts BLOB NOT NULL default '[]', model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  finished_at INTEGER);
"""

T = 1764000000


def part(kind: str, **data: Any) -> dict[str, Any]:
    return {"type": kind, "data": data}


MESSAGES = [
    ("m1", "s1", "user", [part("text", text="why is the cache cold?")]),
    ("m2", "s1", "assistant", [
        part("reasoning", thinking="Look at the cache first."), part("text", text="Reading the config."),
        part("tool_call", id="call_1", name="view", input='{"file_path": "cache.go"}', finished=True),
        part("tool_call", id="call_2", name="agent", input='{"prompt": "find callers"}', finished=True),
        part("finish", reason="tool_use", time=T + 2),
    ]),
    ("m3", "s1", "tool", [
        part("tool_result", tool_call_id="call_1", name="view", content="ttl = 0", is_error=False),
        part("tool_result", tool_call_id="call_2", name="agent", content="no such file", is_error=True),
    ]),
    ("m4", "s1", "assistant", [
        part("text", text="The TTL is zero."), part("finish", reason="end_turn", time=T + 4),
    ]),
    ("m5", "s1", "user", [part("text", text="fix it")]),
    ("m6", "s1", "assistant", [
        part("finish", reason="error", time=T + 6, message="Provider error", details="rate limited"),
    ]),
    ("c1", "s2", "user", [part("text", text="find callers")]),
    ("c2", "s2", "assistant", [part("text", text="None."), part("finish", reason="end_turn", time=T + 3)]),
]  # fmt: skip


def make_db(folder: Path) -> Path:
    (folder / ".crush").mkdir(parents=True)
    db_path = folder / ".crush" / "crush.db"
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.execute(
        "INSERT INTO sessions VALUES ('s1', NULL, 'Cold cache', 6, 5200, 340, 0.0215, ?, ?)", (T + 6, T)
    )
    db.execute(
        "INSERT INTO sessions VALUES ('s2', 's1', 'find callers', 2, 800, 20, 0.001, ?, ?)", (T + 3, T + 2)
    )
    for index, (mid, sid, role, parts) in enumerate(MESSAGES):
        db.execute("INSERT INTO messages VALUES (?, ?, ?, ?, 'claude-sonnet-4', ?, ?, NULL)",
                   (mid, sid, role, json.dumps(parts), T + index, T + index))  # fmt: skip
    db.commit()
    db.close()
    return db_path


def test_the_database_counts_what_its_rows_hold(tmp_path: Path) -> None:
    db = make_db(tmp_path / "proj")
    assert detect_agent(db) == "crush"
    code, out, err = run("inspect", "--json", str(db))
    assert code == 0, err
    summary = json.loads(out)
    s1 = [(r, p) for _, s, r, p in MESSAGES if s == "s1"]
    assert summary["title"] == "Cold cache" and summary["agent"] == "crush"
    assert summary["prompts"] == sum(1 for r, _ in s1 if r == "user")
    results = [x for r, p in s1 if r == "tool" for x in p]
    replies = [p for r, p in s1 if r == "assistant" and any(x["type"] != "finish" for x in p)]
    assert summary["message_roles"] == {"user": 2, "assistant": len(replies), "toolResult": len(results)}
    assert summary["tokens"]["input"] == 5200 and summary["tokens"]["output"] == 340
    assert summary["cost"] == pytest.approx(0.0215) and summary["cost_estimated"] is False
    assert summary["notices"] == {"Error": 1}
    session = load_any(db)
    failed = [e["message"]["toolName"] for e in session.entries if e.get("message", {}).get("isError")]
    assert failed == [x["data"]["name"] for x in results if x["data"]["is_error"]]


def test_list_finds_the_projects_crush_notes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "proj"
    db = make_db(project)
    data = tmp_path / "data"
    (data / "crush").mkdir(parents=True)
    listed = {
        "projects": [{"path": str(project), "data_dir": ".crush", "last_accessed": "2025-11-24T10:00:00Z"}]
    }
    (data / "crush" / "projects.json").write_text(json.dumps(listed), encoding="utf-8")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in db.parent.iterdir()}
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    found = {s["id"]: s for s in json.loads(out) if s.get("agent") == "crush"}
    assert set(found) == {"s1"}  # its agent tool's sub-session hangs under it
    assert found["s1"]["cwd"] == str(project) and found["s1"]["firstMessage"] == "why is the cache cold?"
    [root] = [folder for agent, folder in default_roots() if agent == "crush"]
    entries = {e.id: e for e in Catalog(root).scan()}
    assert entries["s2"].parent_session == "s1" and entries["s2"].parent_key == entries["s1"].key
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in db.parent.iterdir()}
    assert after == before  # the project's .crush folder: byte for byte, no file made


def test_the_projects_file_is_looked_for_where_crush_keeps_it_on_each_os(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux and macOS: $XDG_DATA_HOME/crush (~/.local/share); Windows: %LOCALAPPDATA%\\crush."""
    from sessiontree.readers.crush import projects_file

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert projects_file() == tmp_path / "xdg" / "crush" / "projects.json"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert projects_file(windows=True) == tmp_path / "local" / "crush" / "projects.json"
    monkeypatch.setenv("CRUSH_GLOBAL_DATA", str(tmp_path / "moved"))
    assert projects_file() == projects_file(windows=True) == tmp_path / "moved" / "projects.json"
