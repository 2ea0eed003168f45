"""Goose 1.x's SQLite store (``$XDG_DATA_HOME/goose/sessions/sessions.db``), made with the tables of
block/goose's session manager (schema version 5) and the messages of ``test_goose``, counted from
its rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run
from tests.readers.test_goose import LINES

SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '', user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
    accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
    schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP, tokens INTEGER, metadata_json TEXT);
"""

SESSIONS = [  # id, name, working dir, updated, accumulated input and output tokens
    ("20251124_1", "Fix the flaky test", "/home/dev/api", "2025-11-24 16:05:00", 4000, 200),
    ("20251125_1", "Rename the module", "/home/dev/web", "2025-11-25 09:00:00", 900, 40),
]
MESSAGES = list(LINES[1:])
ADD = "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, ?)"


def make_db(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sessions.db"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.execute("INSERT INTO schema_version (version) VALUES (5)")
    for sid, name, cwd, updated, inputs, outputs in SESSIONS:
        db.execute("INSERT INTO sessions (id, name, working_dir, created_at, updated_at,"
                   " accumulated_input_tokens, accumulated_output_tokens) VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (sid, name, cwd, updated, updated, inputs, outputs))  # fmt: skip
    for sid, messages in (("20251124_1", MESSAGES), ("20251125_1", MESSAGES[:1])):
        for message in messages:
            content = json.dumps(message["content"])
            db.execute(ADD, (sid, message["role"], content, message["created"]))
    db.commit()
    db.close()
    return path


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return make_db(tmp_path / "data" / "goose" / "sessions")


def test_the_database_is_read_and_its_newest_session_shown(database: Path) -> None:
    assert detect_agent(database) == "goose"
    code, out, err = run("inspect", "--json", str(database))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["title"] == "Rename the module" and summary["prompts"] == 1


def test_the_default_folder_lists_every_session_of_the_database(
    database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    before = sorted((p.name, p.read_bytes()) for p in database.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    found = {s["id"]: s for s in json.loads(out) if s.get("agent") == "goose"}
    assert sorted(found) == [s[0] for s in SESSIONS]
    assert found["20251124_1"]["firstMessage"] == "why does test_login flake?"
    assert found["20251124_1"]["cwd"] == "/home/dev/api"
    path = Path(found["20251124_1"]["path"])
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary = json.loads(out)
    roles = [m["role"] for m in MESSAGES]
    assert summary["prompts"] == 2 and summary["message_roles"]["assistant"] == roles.count("assistant") - 1
    assert summary["tokens"]["input"] == 4000 and summary["tokens"]["output"] == 200
    code, out, err = run("search", "frozen clock", "--json")
    assert code == 0 and "20251124_1" in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    assert json.loads(out)["total"]["tokens"] == sum(s[4] + s[5] for s in SESSIONS[:1])
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    pages = " ".join(p.read_text(encoding="utf-8") for p in (site / "sessions").rglob("*.html"))
    assert "Done: the test uses the frozen clock." in pages
    assert sorted((p.name, p.read_bytes()) for p in database.parent.iterdir()) == before


def test_a_new_message_in_the_database_is_seen(
    database: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    run("list", "--all", "--json")
    db = sqlite3.connect(database)
    newer = json.dumps([{"type": "text", "text": "zqnewer prompt"}])
    db.execute(ADD, ("20251125_1", "user", newer, 1764100000))
    db.commit()
    db.close()
    code, out, err = run("search", "zqnewer", "--json")
    assert code == 0 and "20251125_1" in out, err
    assert load_any(Path(json.loads(run("list", "--all", "--json")[1])[0]["path"])) is not None


def test_the_database_is_looked_for_where_goose_keeps_it_on_each_os(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linux and macOS: $XDG_DATA_HOME (Goose takes etcetera's XDG strategy on both); Windows:
    %APPDATA%\\Block\\goose\\data (its Windows strategy)."""
    from sessiontree.readers.goose_db import database_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert database_path() == tmp_path / "xdg" / "goose" / "sessions" / "sessions.db"
    monkeypatch.setenv("APPDATA", str(tmp_path / "roaming"))
    windows = tmp_path / "roaming" / "Block" / "goose" / "data" / "sessions" / "sessions.db"
    assert database_path(windows=True) == windows
