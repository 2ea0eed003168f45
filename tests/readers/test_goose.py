"""Goose's JSONL session files, written in the shape of block/goose's session storage, counted
from their lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import raw_objects, run

META = {"working_dir": "/home/dev/api", "description": "Fix the flaky test", "message_count": 5,
        "total_tokens": 4200, "input_tokens": 4000, "output_tokens": 200}  # fmt: skip


def msg(role: str, created: int, *content: dict[str, Any]) -> dict[str, Any]:
    return {"role": role, "created": created, "content": list(content)}


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": cid,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": args}},
    }


def response(cid: str, status: str, text: str) -> dict[str, Any]:
    value = [{"type": "text", "text": text}] if status == "success" else text
    return {
        "type": "toolResponse",
        "id": cid,
        "toolResult": {"status": status, ("value" if status == "success" else "error"): value},
    }


LINES = [
    META,
    msg("user", 1764000000, {"type": "text", "text": "why does test_login flake?"}),
    msg("assistant", 1764000005, {"type": "thinking", "thinking": "Probably timing.", "signature": "s"},
        {"type": "text", "text": "Running it."}, call("c1", "developer__shell", command="pytest -k login")),
    msg("user", 1764000009, response("c1", "success", "1 failed")),
    msg("assistant", 1764000012, call("c2", "developer__text_editor", command="view", path="tests/x.py")),
    msg("user", 1764000013, response("c2", "error", "No such file")),
    msg("assistant", 1764000015, {"type": "contextLengthExceeded", "msg": "too long"}),
    msg("user", 1764000020, {"type": "text", "text": "use the fixture clock"}),
    msg("assistant", 1764000030, {"type": "text", "text": "Done: the test uses the frozen clock."}),
]  # fmt: skip


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "goose" / "sessions" / "20251124_161320.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES), encoding="utf-8")
    return path


def test_a_session_counts_what_its_lines_say(session_file: Path) -> None:
    raw = raw_objects(session_file)[1:]
    assert detect_agent(session_file) == "goose"
    code, out, err = run("inspect", "--json", str(session_file))
    assert code == 0, err
    summary = json.loads(out)
    items = [(m["role"], i) for m in raw for i in m["content"]]
    typed = [i for r, i in items if r == "user" and i["type"] == "text"]
    responses = [i for _, i in items if i["type"] == "toolResponse"]
    replies = [
        m
        for m in raw
        if m["role"] == "assistant"
        and any(i["type"] in ("text", "thinking", "toolRequest") for i in m["content"])
    ]
    assert summary["prompts"] == len(typed) == 2
    assert summary["message_roles"] == {
        "user": len(typed),
        "assistant": len(replies),
        "toolResult": len(responses),
    }
    assert (
        summary["tokens"]["input"] == META["input_tokens"]
        and summary["tokens"]["output"] == META["output_tokens"]
    )
    assert summary["title"] == META["description"] and summary["cwd"] == META["working_dir"]
    assert summary["notices"] == {"Context limit": 1}
    failed = [
        e["message"]["toolName"]
        for e in load_any(session_file).entries
        if e.get("message", {}).get("isError")
    ]
    assert failed == ["developer__text_editor"]


def test_the_default_folder_is_listed(
    session_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "goose"]
    assert found["id"] == session_file.stem and found["firstMessage"] == "why does test_login flake?"
