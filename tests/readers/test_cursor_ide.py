"""Cursor's editor conversations (``<config>/Cursor/User/globalStorage/state.vscdb``: ``cursorDiskKV``
rows ``composerData:<id>`` and ``bubbleId:<id>:<bubble>``), made in the shape public readers of it
describe, counted from the bubbles."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import database_copy
from tests.readers.helpers import inspected, run

COMPOSER = "7f1c2a3b-0000-4000-8000-000000000001"
EMPTY = "7f1c2a3b-0000-4000-8000-000000000002"
BUBBLES: list[dict[str, Any]] = [
    {"_v": 3, "type": 1, "bubbleId": "u1", "text": "why is the login slow?",
     "createdAt": "2026-02-01T10:00:00.000Z", "workspaceUris": ["file:///home/dev/shop"],
     "modelInfo": {"modelName": "claude-4.5-sonnet"}},
    {"_v": 3, "type": 2, "bubbleId": "a1", "text": "", "thinking": {"text": "Check the hashing rounds."},
     "toolFormerData": {"toolCallId": "tc1", "name": "read_file", "rawArgs": '{"path": "auth.py"}',
                        "status": "completed", "result": '{"contents": "bcrypt.hash(pw, rounds=16)"}'}},
    {"_v": 3, "type": 2, "bubbleId": "a2", "text": "Sixteen bcrypt rounds cost 4 s.",
     "tokenCount": {"inputTokens": 1200, "outputTokens": 80}},
    {"_v": 3, "type": 1, "bubbleId": "u2", "text": "lower them to 12",
     "createdAt": "2026-02-01T10:01:00.000Z"},
    {"_v": 3, "type": 2, "bubbleId": "a3", "text": "",
     "toolFormerData": {"toolCallId": "tc2", "name": "edit_file", "rawArgs": '{"path": "auth.py"}',
                        "status": "error", "result": None}},
    {"_v": 3, "type": 2, "bubbleId": "a4", "text": "Rounds are 12 now: kiwifruit."},
]  # fmt: skip
DATA: dict[str, Any] = {"_v": 10, "composerId": COMPOSER, "name": "Slow login", "createdAt": 1769940000000,
        "lastUpdatedAt": 1769940060000, "modelConfig": {"modelName": "claude-4.5-sonnet"},
        "fullConversationHeadersOnly": [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in BUBBLES],
        "originalFileStates": {"auth.py": {"content": "x" * 1000}}}  # fmt: skip


def make_state(config: Path) -> Path:
    """A global ``state.vscdb`` with one conversation and one never used."""
    path = config / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True)
    db = sqlite3.connect(path)
    for table in ("ItemTable", "cursorDiskKV"):
        db.execute(f"CREATE TABLE {table} (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
    rows = [
        (f"composerData:{COMPOSER}", DATA),
        (f"composerData:{EMPTY}", {"composerId": EMPTY, "fullConversationHeadersOnly": []}),
    ]
    rows += [(f"bubbleId:{COMPOSER}:{b['bubbleId']}", b) for b in BUBBLES]
    rows += [(f"checkpointId:{COMPOSER}:x", {"files": []})]
    db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", [(k, json.dumps(v).encode()) for k, v in rows])
    db.execute("INSERT INTO ItemTable VALUES ('cursorAuth/cachedEmail', 'someone')")
    db.commit()
    db.close()
    return path


def test_a_conversation_counts_what_its_bubbles_say(tmp_path: Path) -> None:
    state = make_state(tmp_path)
    summary = inspected(state, "cursor")
    typed = [b for b in BUBBLES if b["type"] == 1 and b["text"].strip()]
    replies = [b for b in BUBBLES if b["type"] == 2]
    calls = [b for b in replies if "toolFormerData" in b]
    assert summary["prompts"] == len(typed) == 2
    assert summary["message_roles"] == {"user": 2, "assistant": len(replies), "toolResult": len(calls)}
    assert summary["title"] == DATA["name"] and summary["cwd"] == "/home/dev/shop"
    code, out, err = run("dump", "--stdout", str(state))
    assert code == 0, err
    assert "bcrypt.hash(pw, rounds=16)" in out and "Sixteen bcrypt rounds" in out


def test_the_default_folder_is_listed_searched_counted_and_built(tmp_path: Path) -> None:
    state = make_state(Path.home() / ".config")
    before = sorted((p.name, p.read_bytes()) for p in state.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "cursor"]  # the empty one is no session
    assert found["id"] == COMPOSER and found["firstMessage"] == "why is the login slow?"
    code, out, err = run("search", "kiwifruit", "--json")
    assert code == 0 and COMPOSER in out, err
    code, out, err = run("stats", "--json")
    assert code == 0 and "1280" in out.replace(",", ""), out  # 1200 + 80 tokens
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Cursor<' in (site / "index.html").read_text(encoding="utf-8")
    db = sqlite3.connect(state)  # a message added while the editor runs is seen next time
    bubble = {"_v": 3, "type": 1, "bubbleId": "u3", "text": "and the signup? pomegranate"}
    db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{COMPOSER}:u3", json.dumps(bubble)))
    headers = [*DATA["fullConversationHeadersOnly"], {"bubbleId": "u3", "type": 1}]
    data = {**DATA, "fullConversationHeadersOnly": headers, "lastUpdatedAt": DATA["lastUpdatedAt"] + 5000}
    db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{COMPOSER}", json.dumps(data)))
    db.commit()
    db.close()
    before = sorted((p.name, p.read_bytes()) for p in state.parent.iterdir())
    code, out, err = run("search", "pomegranate", "--json")
    assert code == 0 and COMPOSER in out, err
    assert sorted((p.name, p.read_bytes()) for p in state.parent.iterdir()) == before  # nothing written


def test_a_database_too_large_to_copy_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = make_state(tmp_path)
    monkeypatch.setattr(database_copy, "MAX_COPY_BYTES", 1024)
    code, _, err = run("inspect", str(state))
    assert code != 0 and "over the" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_an_older_conversation_keeps_its_bubbles_inline() -> None:
    """Before the split storage, a composer held its bubbles as ``conversation`` (no bubble rows)."""
    state = make_state(Path.home() / ".config")
    inline = {"composerId": EMPTY, "name": "Inline era", "createdAt": 1760000000000,
              "conversation": [{"type": 1, "bubbleId": "i1", "text": "rename the flag"},
                               {"type": 2, "bubbleId": "i2", "text": "Renamed to --dry-run."}]}  # fmt: skip
    db = sqlite3.connect(state)
    db.execute("INSERT INTO cursorDiskKV VALUES (?, ?)", (f"composerData:{EMPTY}", json.dumps(inline)))
    db.commit()
    db.close()
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    found = {s["id"]: s for s in json.loads(out) if s.get("agent") == "cursor"}
    assert sorted(found) == sorted([COMPOSER, EMPTY])
    assert found[EMPTY]["firstMessage"] == "rename the flag" and found[EMPTY]["messageCount"] == 2
