"""GitHub Copilot CLI's events.jsonl, written in the shape of github/copilot-sdk's session events,
counted from its lines."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import copilot_log, raw_objects, run

SID = "51854430-83f7-4543-a9bf-ec76ead71f59"


def events() -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []

    def ev(kind: str, **data: Any) -> None:
        parent = made[-1]["id"] if made else None
        made.append({"type": kind, "data": data, "id": f"e{len(made) + 1}",
                     "timestamp": f"2026-02-04T10:51:{len(made):02d}.000Z", "parentId": parent})  # fmt: skip

    ev("session.start", sessionId=SID, version=1, producer="copilot-agent", copilotVersion="0.0.407-1",
       startTime="2026-02-04T10:51:00.000Z", context={"cwd": "/home/dev/site", "branch": "main"})  # fmt: skip
    ev("session.model_change", newModel="claude-sonnet-4.5")
    ev("user.message", content="add a health endpoint", attachments=[])
    ev("assistant.turn_start", turnId="0")
    ev("assistant.message", messageId="m1", content="Adding it.", reasoningText="A GET route will do.",
       toolRequests=[{"toolCallId": "t1", "name": "edit", "arguments": {"path": "app.py"}},
                     {"toolCallId": "t2", "name": "bash", "arguments": {"command": "pytest"}}])  # fmt: skip
    ev("tool.execution_start", toolCallId="t1", toolName="edit", arguments={"path": "app.py"})
    ev("tool.execution_complete", toolCallId="t1", success=True, result={"content": "Edited app.py"})
    ev("tool.execution_start", toolCallId="t2", toolName="bash", arguments={"command": "pytest"})
    ev("tool.execution_complete", toolCallId="t2", success=False, error={"message": "1 failed"})
    ev("assistant.usage", model="claude-sonnet-4.5", inputTokens=1500, outputTokens=90, cacheReadTokens=1000)
    ev("assistant.message", messageId="m2", content="One test fails; fixing.")
    ev("session.error", errorType="rate_limit", message="Too many requests")
    ev("user.message", content="thanks")
    ev("assistant.turn_end", turnId="0")
    return made


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return copilot_log(tmp_path, SID, events())


def test_a_log_counts_what_its_events_say(log: Path) -> None:
    raw = raw_objects(log)
    assert detect_agent(log) == "copilot"
    code, out, err = run("inspect", "--json", str(log))
    assert code == 0, err
    summary = json.loads(out)
    of = lambda kind: [e["data"] for e in raw if e["type"] == kind]  # noqa: E731
    assert summary["id"] == SID and summary["cwd"] == "/home/dev/site" and summary["agent"] == "copilot"
    assert summary["prompts"] == len(of("user.message")) == 2
    assert summary["message_roles"] == {
        "user": len(of("user.message")),
        "assistant": len(of("assistant.message")),
        "toolResult": len(of("tool.execution_complete")),
    }
    usage = of("assistant.usage")
    assert summary["tokens"]["input"] == sum(u["inputTokens"] for u in usage)
    assert summary["tokens"]["cacheRead"] == sum(u["cacheReadTokens"] for u in usage)
    assert summary["notices"] == {"Error": len(of("session.error"))}
    session = load_any(log)
    failed = [e["message"]["toolName"] for e in session.entries if e.get("message", {}).get("isError")]
    assert failed == ["bash"]


def test_the_default_folder_is_listed(log: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    shutil.copytree(tmp_path / ".copilot", home / ".copilot")
    monkeypatch.setenv("HOME", str(home))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "copilot"]
    assert found["id"] == SID and found["firstMessage"] == "add a health endpoint"
    code, out, err = run("inspect", SID[:8])
    assert code == 0, err
    assert SID in out
