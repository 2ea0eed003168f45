"""Kimi CLI's sessions, written in the shape Kimi CLI keeps them (``context.jsonl`` and ``wire.jsonl``
in ``~/.kimi/sessions/<md5 of the work dir>/<id>/``), counted from the raw lines."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

SESSION_ID = "6a1f3c2e-0d4b-4f8a-9c7e-2b5d8e1f0a3c"
WORK_DIR = "/home/dev/ledger"


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


CALL = {
    "type": "function",
    "id": "tool_a1",
    "function": {"name": "Shell", "arguments": '{"command": "pytest -q"}'},
}

CONTEXT: list[dict[str, Any]] = [
    {"role": "_system_prompt", "content": "You are Kimi CLI."},
    {"role": "_checkpoint", "id": 0},
    {"role": "user", "content": [text("why do the ledger totals drift?")]},
    {"role": "assistant", "content": [{"type": "think", "think": "Rounding."}, text("Running the tests.")],
     "tool_calls": [CALL]},
    {"role": "tool", "content": [text("1 failed: test_totals")], "tool_call_id": "tool_a1"},
    {"role": "assistant", "content": [text("Totals are summed as floats; use Decimal.")]},
    {"role": "_usage", "token_count": 5120},
    {"role": "_checkpoint", "id": 1},
    {"role": "user", "content": [text("<system>CHECKPOINT 1</system>")]},
    {"role": "user", "content": [text("switch to Decimal then")]},
    {"role": "assistant", "content": [text("Switched the totals to Decimal.")]},
]  # fmt: skip


def status(ts: float, inputs: int, output: int) -> dict[str, Any]:
    used = {"input_other": inputs, "output": output, "input_cache_read": 200, "input_cache_creation": 0}
    return {"timestamp": ts, "message": {"type": "StatusUpdate", "payload": {"token_usage": used}}}


WIRE: list[dict[str, Any]] = [
    {"type": "metadata", "protocol_version": "1.3"},
    {"timestamp": 1764900000.5, "message": {"type": "TurnBegin", "payload": {"user_input": "why do..."}}},
    {"timestamp": 1764900001.0, "message": {"type": "StepBegin", "payload": {"n": 1}}},
    status(1764900002.0, 900, 50),
    status(1764900004.0, 1000, 20),
    {"timestamp": 1764900010.0, "message": {"type": "TurnBegin", "payload": {"user_input": "switch..."}}},
    status(1764900012.0, 1100, 15),
]  # fmt: skip


def write_session(share: Path, session_id: str = SESSION_ID) -> Path:
    folder = share / "sessions" / hashlib.md5(WORK_DIR.encode()).hexdigest() / session_id
    folder.mkdir(parents=True)
    (folder / "context.jsonl").write_text("".join(json.dumps(r) + "\n" for r in CONTEXT), encoding="utf-8")
    (folder / "wire.jsonl").write_text("".join(json.dumps(r) + "\n" for r in WIRE), encoding="utf-8")
    (share / "kimi.json").write_text(json.dumps({"work_dirs": [{"path": WORK_DIR, "kaos": "local"}]}))
    return folder / "context.jsonl"


@pytest.fixture
def context_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / ".kimi")


def _used() -> list[dict[str, Any]]:
    return [
        w["message"]["payload"]["token_usage"]
        for w in WIRE
        if w.get("message", {}).get("type") == "StatusUpdate"
    ]


def test_a_session_counts_what_its_lines_say(context_file: Path) -> None:
    assert detect_agent(context_file) == "kimi"
    code, out, err = run("inspect", "--json", str(context_file))
    assert code == 0, err
    summary = json.loads(out)
    typed = [r for r in CONTEXT if r["role"] == "user" and not r["content"][0]["text"].startswith("<system>")]
    assert summary["prompts"] == len(typed) == 2
    assert summary["message_roles"] == {
        "user": 2,
        "assistant": sum(r["role"] == "assistant" for r in CONTEXT),
        "toolResult": sum(r["role"] == "tool" for r in CONTEXT),
    }
    assert summary["tokens"]["input"] == sum(u["input_other"] for u in _used())
    assert summary["tokens"]["output"] == sum(u["output"] for u in _used())
    assert summary["cwd"] == WORK_DIR
    session = load_any(context_file)
    assert session.header["id"] == SESSION_ID
    [call] = [c for e in session.entries for c in e.get("message", {}).get("content", [])
              if c.get("type") == "toolCall"]  # fmt: skip
    assert call["name"] == "Shell" and call["arguments"] == {"command": "pytest -q"}
    assert session.entries[1]["timestamp"].startswith("2025-12-05T02:00:00")


def test_the_default_folder_is_listed_searched_counted_and_built(tmp_path: Path) -> None:
    path = write_session(Path.home() / ".kimi")
    before = sorted((p.name, p.read_bytes()) for p in path.parent.iterdir())
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "kimi"]
    assert found["id"] == SESSION_ID and found["firstMessage"] == "why do the ledger totals drift?"
    assert found["cwd"] == WORK_DIR
    code, out, err = run("search", "Decimal", "--json")
    assert code == 0 and SESSION_ID in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    assert json.loads(out)["total"]["tokens"] == sum(sum(u.values()) for u in _used())
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Kimi CLI<' in (site / "index.html").read_text(encoding="utf-8")
    assert sorted((p.name, p.read_bytes()) for p in path.parent.iterdir()) == before
