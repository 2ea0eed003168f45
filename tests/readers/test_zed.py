"""Zed's agent threads, in a ``threads.db`` made with the table of Zed's ``crates/agent/src/db.rs``
and threads serialized as its ``DbThread`` (zstd-compressed JSON, version 0.3.0), counted from the
thread objects."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from sessiontree.readers import detect_agent
from tests.readers.helpers import run

SCHEMA = """CREATE TABLE threads (id TEXT PRIMARY KEY, summary TEXT NOT NULL, updated_at TEXT NOT NULL,
    data_type TEXT NOT NULL, data BLOB NOT NULL, parent_id TEXT, folder_paths TEXT, folder_paths_order TEXT,
    created_at TEXT)"""

TOOL_USE = {"id": "toolu_1", "name": "grep", "raw_input": "{}", "input": {"regex": "retry"},
            "is_input_complete": True}  # fmt: skip
MESSAGES: list[Any] = [
    {"User": {"id": "u1", "content": [{"Text": "why does the retry loop spin?"},
                                      {"Mention": {"uri": {"File": {"abs_path": "/w/src/net.rs"}},
                                                   "content": "fn retry() {}"}}]}},
    {"Agent": {"content": [{"Thinking": {"text": "A missing backoff.", "signature": None}},
                           {"Text": "Searching for it."}, {"ToolUse": TOOL_USE}],
               "tool_results": {"toolu_1": {"tool_use_id": "toolu_1", "tool_name": "grep", "is_error": False,
                                            "content": {"Text": "src/net.rs:12: retry()"}, "output": None}}}},
    {"Agent": {"content": [{"Text": "The loop has no backoff."}], "tool_results": {}}},
    "Resume",
    {"User": {"id": "u2", "content": [{"Text": "add exponential backoff"}]}},
    {"Agent": {"content": [{"Text": "Added exponential backoff."}], "tool_results": {}}},
]  # fmt: skip

USAGE = {"input_tokens": 2100, "output_tokens": 150, "cache_creation_input_tokens": 30,
         "cache_read_input_tokens": 900}  # fmt: skip


def thread(title: str) -> dict[str, Any]:
    return {"title": title, "messages": MESSAGES, "updated_at": "2026-03-01T10:00:00Z",
            "cumulative_token_usage": USAGE, "request_token_usage": {"u1": USAGE},
            "model": {"provider": "anthropic", "model": "claude-sonnet-4-5"}, "version": "0.3.0"}  # fmt: skip


THREADS = [("t-one", "Spinning retry loop", "2026-03-01T10:00:00+00:00"),
           ("t-two", "Second thread", "2026-03-02T10:00:00+00:00")]  # fmt: skip


def make_db(folder: Path, data_type: str = "zstd") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "threads.db"
    db = sqlite3.connect(path)
    db.execute(SCHEMA)
    for tid, title, updated in THREADS:
        raw = json.dumps(thread(title)).encode()
        data = zstandard.ZstdCompressor(level=3).compress(raw) if data_type == "zstd" else raw
        row = (tid, title, updated, data_type, data, "/w", updated)
        db.execute("INSERT INTO threads (id, summary, updated_at, data_type, data, folder_paths, created_at)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?)", row)  # fmt: skip
    db.commit()
    db.close()
    return path


@pytest.mark.parametrize("data_type", ["zstd", "json"])
def test_the_database_is_read_and_its_newest_thread_shown(tmp_path: Path, data_type: str) -> None:
    db = make_db(tmp_path, data_type)
    assert detect_agent(db) == "zed"
    code, out, err = run("inspect", "--json", str(db))
    assert code == 0, err
    summary = json.loads(out)
    agents = [m["Agent"] for m in MESSAGES if isinstance(m, dict) and "Agent" in m]
    assert summary["title"] == "Second thread" and summary["prompts"] == 2
    results = sum(len(a["tool_results"]) for a in agents)
    assert summary["message_roles"] == {"user": 2, "assistant": len(agents), "toolResult": results}
    assert summary["tokens"]["input"] == USAGE["input_tokens"] and summary["cwd"] == "/w"


def test_the_default_folder_lists_every_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db = make_db(tmp_path / "data" / "zed" / "threads")
    before = sorted((p.name, p.read_bytes()) for p in db.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    found = {s["id"]: s for s in json.loads(out) if s.get("agent") == "zed"}
    assert sorted(found) == ["t-one", "t-two"]
    assert found["t-one"]["firstMessage"] == "why does the retry loop spin?"
    code, out, err = run("search", "exponential backoff", "--json")
    assert code == 0 and "t-one" in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    assert json.loads(out)["total"]["tokens"] == sum(USAGE.values())  # the two threads' copies count once
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Zed<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.read_bytes()) for p in db.parent.iterdir()) == before
