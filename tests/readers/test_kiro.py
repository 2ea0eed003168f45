"""Kiro's chat sessions, written in the shape its agent extension keeps them (Continue's session
shape with ``workspacePath``, under ``kiro.kiroagent/workspace-sessions``), counted from the raw object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

SESSION_ID = "8c1d2e3f-4a5b-4c6d-9e7f-0a1b2c3d4e5f"
HISTORY: list[dict[str, Any]] = [
    {"message": {"role": "user", "content": [{"type": "text", "text": "add a health endpoint"}], "id": "m1"}},
    {"message": {"role": "assistant", "content": "On it.", "id": "m2"}, "executionId": "x1"},
    {"message": {"role": "user", "content": "<steering_context>Use FastAPI.</steering_context>", "id": "m3"}},
    {"message": {"role": "user", "content": "and a readiness probe", "id": "m4"}},
    {"message": {"role": "assistant", "content": "Added /healthz.", "id": "m5"}, "executionId": "x2"},
]  # fmt: skip
SESSION = {"sessionId": SESSION_ID, "title": "Health endpoint", "workspacePath": "/home/dev/svc",
           "selectedModel": "claude-sonnet-4.5", "history": HISTORY}  # fmt: skip


def write_session(config: Path) -> Path:
    folder = config / "Kiro" / "User" / "globalStorage" / "kiro.kiroagent" / "workspace-sessions" / "L2hvbWU"
    folder.mkdir(parents=True)
    (folder / "sessions.json").write_text(json.dumps([{"sessionId": SESSION_ID}]), encoding="utf-8")
    path = folder / f"{SESSION_ID}.json"
    path.write_text(json.dumps(SESSION, indent=2), encoding="utf-8")
    return path


def test_a_session_counts_what_its_object_says(tmp_path: Path) -> None:
    path = write_session(tmp_path)
    assert detect_agent(path) == "kiro"
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary = json.loads(out)
    users = [h for h in HISTORY if h["message"]["role"] == "user"]
    typed = [h for h in users if "<steering_context>" not in json.dumps(h)]
    assert summary["prompts"] == len(typed) == 2
    assert summary["message_roles"] == {"user": 2, "assistant": len(HISTORY) - len(users)}
    assert summary["title"] == SESSION["title"] and summary["cwd"] == "/home/dev/svc"
    assert load_any(path).header["agent"] == "kiro"


def test_the_default_folder_is_listed_searched_and_built(tmp_path: Path) -> None:
    path = write_session(Path.home() / ".config")
    before = sorted((p.name, p.read_bytes()) for p in path.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "kiro"]
    assert found["id"] == SESSION_ID and found["firstMessage"] == "add a health endpoint"
    code, out, err = run("search", "readiness", "--json")
    assert code == 0 and SESSION_ID in out, err
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Kiro<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.read_bytes()) for p in path.parent.iterdir()) == before
