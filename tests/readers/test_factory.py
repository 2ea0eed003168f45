"""Factory droid's session files, written in the shape droid keeps them (``~/.factory/sessions/<encoded
cwd>/<id>.jsonl`` with its ``<id>.settings.json``), counted from the raw lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

SESSION_ID = "b2f4c6d8-1a3e-4f5b-9c7d-0e2f4a6b8c1d"
REMINDER = "<system-reminder>\nThe todo list is empty.\n</system-reminder>"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def line(n: int, role: str, *content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "id": f"m{n}", "timestamp": f"2026-02-01T10:00:{n:02d}.000Z",
            "message": {"role": role, "content": list(content)}}  # fmt: skip


LINES: list[dict[str, Any]] = [
    {"type": "session_start", "id": SESSION_ID, "title": "Flaky upload test", "owner": "dev", "version": 2,
     "cwd": "/home/dev/uploads"},
    line(1, "user", text(REMINDER), text("why does the upload test time out?")),
    line(2, "assistant", {"type": "thinking", "thinking": "Network mock.", "signature": "s"},
         text("Checking the test."), {"type": "tool_use", "id": "toolu_1", "name": "Read",
                                      "input": {"file_path": "tests/test_upload.py"}}),
    line(3, "user", {"type": "tool_result", "tool_use_id": "toolu_1", "content": "def test_upload(): ..."}),
    line(4, "assistant", text("The mock server never answers HEAD.")),
    {"type": "todo_state", "id": "t1", "todos": [{"content": "fix HEAD", "status": "pending"}]},
    line(5, "user", text("make the mock answer HEAD")),
    line(6, "assistant", text("The mock answers HEAD now.")),
]  # fmt: skip

SETTINGS = {"model": "claude-sonnet-4-5-20250929", "providerLock": "anthropic", "assistantActiveTimeMs": 420,
            "tokenUsage": {"inputTokens": 7300, "outputTokens": 480, "cacheCreationTokens": 120,
                           "cacheReadTokens": 35000, "thinkingTokens": 0}}  # fmt: skip


def write_session(folder: Path, lines: list[dict[str, Any]] = LINES, session_id: str = SESSION_ID) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    path.write_text("".join(json.dumps(v) + "\n" for v in lines), encoding="utf-8")
    (folder / f"{session_id}.settings.json").write_text(json.dumps(SETTINGS, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / ".factory" / "sessions" / "-home-dev-uploads")


def test_a_session_counts_what_its_lines_say(session_file: Path) -> None:
    assert detect_agent(session_file) == "factory"
    code, out, err = run("inspect", "--json", str(session_file))
    assert code == 0, err
    summary = json.loads(out)
    blocks = [
        (v["message"]["role"], b) for v in LINES if v["type"] == "message" for b in v["message"]["content"]
    ]
    typed = [
        b for role, b in blocks if role == "user" and b["type"] == "text" and not b["text"].startswith("<")
    ]
    assert summary["prompts"] == len(typed) == 2
    assert summary["message_roles"] == {
        "user": 2,
        "assistant": sum(v.get("message", {}).get("role") == "assistant" for v in LINES),
        "toolResult": sum(b["type"] == "tool_result" for _, b in blocks),
    }
    used = SETTINGS["tokenUsage"]
    assert summary["tokens"]["input"] == used["inputTokens"]  # type: ignore[index]
    assert summary["tokens"]["output"] == used["outputTokens"]  # type: ignore[index]
    assert summary["title"] == "Flaky upload test" and summary["cwd"] == "/home/dev/uploads"
    entries = load_any(session_file).entries
    [prompt, *_] = [e for e in entries if e.get("message", {}).get("role") == "user"]
    assert prompt["message"]["content"] == [text("why does the upload test time out?")]
    assert [e["content"] for e in entries if e.get("customType") == "factory:context"] == [REMINDER]


def test_the_default_folder_is_listed_searched_counted_and_built(tmp_path: Path) -> None:
    path = write_session(Path.home() / ".factory" / "sessions" / "-home-dev-uploads")
    before = sorted((p.name, p.read_bytes()) for p in path.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "factory"]
    assert found["id"] == SESSION_ID and found["firstMessage"] == "why does the upload test time out?"
    code, out, err = run("search", "HEAD", "--json")
    assert code == 0 and SESSION_ID in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    used = SETTINGS["tokenUsage"]
    assert json.loads(out)["total"]["tokens"] == sum(v for k, v in used.items() if k != "thinkingTokens")  # type: ignore[attr-defined]
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Factory Droid<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.read_bytes()) for p in path.parent.iterdir()) == before
