"""OpenHands conversations, written in the shape the software-agent-sdk persists them
(``base_state.json`` and ``events/event-<index>-<id>.json``), counted from the event files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

CONVERSATION = "5f0e2c1a9b8d4e7f8a6b5c4d3e2f1a0b"


def text(value: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": value}]


def message(n: int, role: str, value: str) -> dict[str, Any]:
    return {"kind": "MessageEvent", "id": f"e{n}", "timestamp": f"2026-04-01T09:00:{n:02d}.000000",
            "source": "user" if role == "user" else "agent",
            "llm_message": {"role": role, "content": text(value)}}  # fmt: skip


EVENTS: list[dict[str, Any]] = [
    {"kind": "SystemPromptEvent", "id": "e0", "timestamp": "2026-04-01T09:00:00.000000", "source": "agent",
     "system_prompt": {"type": "text", "text": "You are OpenHands."}},
    message(1, "user", "why does the cron job run twice?"),
    {"kind": "ActionEvent", "id": "e2", "timestamp": "2026-04-01T09:00:02.000000", "source": "agent",
     "thought": text("Checking the crontab."), "reasoning_content": "Two schedulers?",
     "tool_name": "terminal",
     "tool_call_id": "call_1", "tool_call": {"id": "call_1", "name": "terminal",
                                            "arguments": json.dumps({"command": "crontab -l"})},
     "action": {"kind": "ExecuteBashAction", "command": "crontab -l"}, "llm_response_id": "r1"},
    {"kind": "ObservationEvent", "id": "e3", "timestamp": "2026-04-01T09:00:03.000000",
     "source": "environment", "tool_name": "terminal", "tool_call_id": "call_1", "action_id": "e2",
     "observation": {"kind": "ExecuteBashObservation", "content": text("*/5 * * * * run\n*/5 * * * * run")}},
    message(4, "assistant", "The job is listed twice in the crontab."),
    message(5, "user", "<skill>cron-tools</skill>"),
    message(6, "user", "remove the duplicate line"),
    message(7, "assistant", "Removed the duplicate crontab line."),
]  # fmt: skip

USED = {"prompt_tokens": 5400, "completion_tokens": 210, "cache_read_tokens": 1000, "cache_write_tokens": 0}
AGENT = {"kind": "Agent", "llm": {"model": "gpt-5"}}
STATE: dict[str, Any] = {"id": "5f0e2c1a-9b8d-4e7f-8a6b-5c4d3e2f1a0b", "agent": AGENT,
         "workspace": {"kind": "LocalWorkspace", "working_dir": "/home/dev/ops"},
         "stats": {"usage_to_metrics": {"agent": {"model_name": "gpt-5", "accumulated_cost": 0.0312,
                                                  "accumulated_token_usage": USED}}}}  # fmt: skip


def write_conversation(root: Path, name: str = CONVERSATION) -> Path:
    folder = root / name
    (folder / "events").mkdir(parents=True)
    for index, event in enumerate(EVENTS):
        path = folder / "events" / f"event-{index:05d}-{event['id']}.json"
        path.write_text(json.dumps(event), encoding="utf-8")
    (folder / "base_state.json").write_text(json.dumps(STATE, indent=2), encoding="utf-8")
    return folder / "base_state.json"


def test_a_conversation_counts_what_its_events_say(tmp_path: Path) -> None:
    state = write_conversation(tmp_path)
    assert detect_agent(state) == "openhands"
    code, out, err = run("inspect", "--json", str(state))
    assert code == 0, err
    summary = json.loads(out)
    kinds = [e["kind"] for e in EVENTS]
    users = [e for e in EVENTS if e.get("llm_message", {}).get("role") == "user"]
    assert summary["prompts"] == len(
        [e for e in users if not e["llm_message"]["content"][0]["text"].startswith("<")]
    )
    assert summary["message_roles"] == {
        "user": 2,
        "assistant": kinds.count("ActionEvent")
        + sum(e.get("source") == "agent" and "llm_message" in e for e in EVENTS),
        "toolResult": kinds.count("ObservationEvent"),
    }
    used = STATE["stats"]["usage_to_metrics"]["agent"]  # type: ignore[index]
    assert summary["tokens"]["input"] == used["accumulated_token_usage"]["prompt_tokens"]
    assert summary["cost"] == used["accumulated_cost"] and summary["cwd"] == "/home/dev/ops"
    calls = [c for e in load_any(state).entries for c in e.get("message", {}).get("content", [])
             if c.get("type") == "toolCall"]  # fmt: skip
    assert calls[0]["name"] == "terminal" and calls[0]["arguments"] == {"command": "crontab -l"}


def test_the_default_folder_is_listed_searched_counted_and_built(tmp_path: Path) -> None:
    state = write_conversation(Path.home() / ".openhands" / "conversations")
    before = sorted((p.name, p.stat().st_mtime_ns) for p in state.parent.rglob("*"))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "openhands"]
    assert found["id"] == STATE["id"] and found["firstMessage"] == "why does the cron job run twice?"
    code, out, err = run("search", "duplicate crontab", "--json")
    assert code == 0 and STATE["id"] in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    assert json.loads(out)["total"]["tokens"] == 5400 + 210 + 1000
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">OpenHands<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.stat().st_mtime_ns) for p in state.parent.rglob("*")) == before
