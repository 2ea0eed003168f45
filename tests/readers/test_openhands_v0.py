"""OpenHands' 0.x server conversations (``~/.openhands/sessions/<id>/metadata.json`` and
``events/<n>.json``), written in the shape its ``events/serialization`` gives, counted from the raw
event files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.readers.helpers import inspected, run

SID = "0f5a3c2e9b7d4e1f8a6c5b4d3e2f1a0b"
METADATA: dict[str, Any] = {"conversation_id": SID, "title": "Fix the flaky upload test",
            "selected_repository": "acme/shop",
            "created_at": "2025-03-01T10:00:00Z", "last_updated_at": "2025-03-01T10:05:00Z",
            "llm_model": "anthropic/claude-3-7-sonnet", "accumulated_cost": 0.042,
            "prompt_tokens": 5200, "completion_tokens": 310}  # fmt: skip
CALL = {"function_name": "execute_bash", "tool_call_id": "toolu_01"}
EVENTS: list[dict[str, Any]] = [
    {"id": 0, "timestamp": "2025-03-01T10:00:00", "source": "agent", "message": "system", "action": "system",
     "args": {"content": "You are OpenHands agent."}},
    {"id": 1, "timestamp": "2025-03-01T10:00:01", "source": "user", "message": "why does upload flake?",
     "action": "message", "args": {"content": "why does upload flake? quokka", "image_urls": None}},
    {"id": 2, "timestamp": "2025-03-01T10:00:02", "source": "environment", "message": "",
     "observation": "agent_state_changed", "content": "", "extras": {"agent_state": "running"}},
    {"id": 3, "timestamp": "2025-03-01T10:00:03", "source": "agent", "message": "Running pytest",
     "action": "run", "args": {"command": "pytest -x tests/test_upload.py", "thought": "Run it first."},
     "tool_call_metadata": CALL},
    {"id": 4, "timestamp": "2025-03-01T10:00:09", "source": "agent", "message": "exit 1", "cause": 3,
     "observation": "run", "content": "FAILED test_upload - TimeoutError", "extras": {"exit_code": 1},
     "tool_call_metadata": CALL},
    {"id": 5, "timestamp": "2025-03-01T10:00:10", "source": "agent", "message": "edit",
     "action": "edit",
     "args": {"path": "/workspace/upload.py", "command": "str_replace"},
     "tool_call_metadata": {"function_name": "str_replace_editor", "tool_call_id": "toolu_02"}},
    {"id": 6, "timestamp": "2025-03-01T10:00:11", "source": "agent", "message": "denied", "cause": 5,
     "observation": "user_rejected", "content": "The user rejected it."},
    {"id": 7, "timestamp": "2025-03-01T10:01:00", "source": "agent", "message": "The timeout is 1 s.",
     "action": "message",
     "args": {"content": "The upload timeout is 1 s; raise it.", "wait_for_response": True}},
    {"id": 8, "timestamp": "2025-03-01T10:02:00", "source": "user", "message": "raise it",
     "action": "message", "args": {"content": "raise it to 10"}},
    {"id": 9, "timestamp": "2025-03-01T10:02:05", "source": "agent", "message": "done", "action": "finish",
     "args": {"final_thought": "Raised to 10 s."}},
]  # fmt: skip


def write_conversation(home: Path, folder: str = ".openhands/sessions") -> Path:
    conversation = home / folder / SID
    (conversation / "events").mkdir(parents=True)
    (conversation / "metadata.json").write_text(json.dumps(METADATA), encoding="utf-8")
    for event in EVENTS:  # numbered files: 10.json sorts before 2.json by name, read by number
        (conversation / "events" / f"{event['id']}.json").write_text(json.dumps(event), encoding="utf-8")
    (conversation / "events" / "10.json").write_text(json.dumps({**EVENTS[7], "id": 10}), encoding="utf-8")
    return conversation / "metadata.json"


def test_a_conversation_counts_what_its_events_say(tmp_path: Path) -> None:
    summary = inspected(write_conversation(tmp_path), "openhands")
    events = [*EVENTS, {**EVENTS[7], "id": 10}]
    prompts = [e for e in events if e.get("action") == "message" and e["source"] == "user"]
    calls = [
        e for e in events if e.get("source") == "agent" and e.get("action") not in (None, "message", "system")
    ]
    replies = [e for e in events if e.get("action") == "message" and e["source"] == "agent"] + calls
    results = [e for e in events if "cause" in e]
    assert summary["prompts"] == len(prompts) == 2
    assert summary["message_roles"] == {"user": 2, "assistant": len(replies), "toolResult": len(results)}
    assert summary["title"] == METADATA["title"]
    code, out, err = run("dump", "--stdout", str(tmp_path / ".openhands/sessions" / SID / "metadata.json"))
    assert code == 0, err
    assert out.index("pytest -x") < out.index("TimeoutError") < out.index("raise it to 10")


def test_the_default_folders_are_listed_searched_counted_and_built(tmp_path: Path) -> None:
    path = write_conversation(Path.home())
    write_conversation(Path.home(), ".openhands-state/sessions")  # the older store's folder
    before = sorted((p.name, p.read_bytes()) for p in path.parent.rglob("*") if p.is_file())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    found = [s for s in json.loads(out) if s.get("agent") == "openhands"]
    assert [s["id"] for s in found] == [SID, SID] and found[0][
        "firstMessage"
    ] == "why does upload flake? quokka"
    code, out, err = run("search", "quokka", "--json")
    assert code == 0 and SID in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err  # 5,200 + 310 tokens, on its last reply: the one conversation (in both stores) once
    assert json.loads(out)["total"]["tokens"] == METADATA["prompt_tokens"] + METADATA["completion_tokens"]
    code, _, err = run("build", "-o", str(tmp_path / "site"), "--no-search", "-q")
    assert code == 0, err
    assert sorted((p.name, p.read_bytes()) for p in path.parent.rglob("*") if p.is_file()) == before
