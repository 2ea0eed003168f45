"""Cursor CLI's chats (``~/.cursor/chats/<hash>/<id>/store.db``), made in the shape public readers of
them describe (``meta`` with hex-encoded JSON, JSON message blobs among binary tree blobs), counted
from the message blobs."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from sessiontree.readers import detect_agent
from tests.readers.helpers import run

CHAT_ID = "ac437fdf-3e7e-4a54-98a4-7bb04fd3efc6"
META = {"agentId": CHAT_ID, "latestRootBlobId": "ab12", "name": "Slow image resize", "mode": "default",
        "createdAt": 1767000000000, "lastUsedModel": "gpt-5"}  # fmt: skip
CONTEXT = "<user_info>\nOS Version: linux\nWorkspace Path: /home/dev/images\n</user_info>"

QUERY = "<user_query>\nwhy is resize slow?\n</user_query>"
RESULT = {
    "type": "tool-result",
    "toolCallId": "tc1",
    "toolName": "read_file",
    "result": "im.resize(size, LANCZOS)",
}
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are a coding agent."},
    {"role": "user", "content": [{"type": "text", "text": CONTEXT},
                                 {"type": "text", "text": QUERY}]},
    {"role": "assistant", "id": "a1", "content": [
        {"type": "reasoning", "text": "Probably PIL's default filter."},
        {"type": "text", "text": "Looking at the resize call."},
        {"type": "tool-call", "toolCallId": "tc1", "toolName": "read_file", "args": {"path": "img.py"}}]},
    {"role": "tool", "id": "t1", "content": [RESULT]},
    {"role": "assistant", "id": "a2", "content": [{"type": "text", "text": "LANCZOS is the slow filter."}]},
    {"role": "user", "content": "<user_query>use BILINEAR for thumbnails</user_query>"},
    {"role": "assistant", "id": "a3", "content": [{"type": "text", "text": "Thumbnails use BILINEAR now."}]},
]  # fmt: skip


def make_store(home: Path, workspace: str = "/home/dev/images") -> Path:
    folder = home / ".cursor" / "chats" / hashlib.md5(workspace.encode()).hexdigest() / CHAT_ID
    folder.mkdir(parents=True)
    path = folder / "store.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    db.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(META).encode().hex(),))
    for index, message in enumerate(MESSAGES):
        data = json.dumps(message).encode()
        db.execute("INSERT INTO blobs VALUES (?, ?)", (hashlib.sha256(data).hexdigest(), data))
        tree = b"\x0a\x20" + hashlib.sha256(data).digest() + bytes([index])  # a binary tree blob between
        db.execute("INSERT INTO blobs VALUES (?, ?)", (hashlib.sha256(tree).hexdigest(), tree))
    db.commit()
    db.close()
    return path


def _parts(content: Any) -> list[dict[str, Any]]:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def test_a_chat_counts_what_its_message_blobs_say(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    assert detect_agent(store) == "cursor"
    code, out, err = run("inspect", "--json", str(store))
    assert code == 0, err
    summary = json.loads(out)
    parts = [(m["role"], p) for m in MESSAGES for p in _parts(m["content"])]
    assert (
        summary["prompts"] == sum("<user_query>" in p.get("text", "") for r, p in parts if r == "user") == 2
    )
    replies = sum(m["role"] == "assistant" for m in MESSAGES)
    results = sum(p["type"] == "tool-result" for _, p in parts)
    assert summary["message_roles"] == {"user": 2, "assistant": replies, "toolResult": results}
    assert summary["title"] == META["name"] and summary["cwd"] == "/home/dev/images"


def test_the_default_folder_is_listed_searched_and_built(tmp_path: Path) -> None:
    store = make_store(Path.home())
    before = sorted((p.name, p.read_bytes()) for p in store.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "cursor"]
    assert found["id"] == CHAT_ID and found["firstMessage"] == "why is resize slow?"
    code, out, err = run("search", "BILINEAR", "--json")
    assert code == 0 and CHAT_ID in out, err
    code, _, err = run("stats", "--json")
    assert code == 0, err
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Cursor<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.read_bytes()) for p in store.parent.iterdir()) == before
