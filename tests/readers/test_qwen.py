"""Gemini CLI's one-object chat files and Qwen Code's chats (both its forms), counted from the raw files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import FIXTURES, raw_objects, run

QWEN_JSONL = next((FIXTURES / "qwen" / "projects").glob("*/chats/*.jsonl"))
QWEN_JSON = next((FIXTURES / "qwen" / "tmp").glob("*/chats/session-*.json"))
GEMINI_JSON = next((FIXTURES / "gemini" / "tmp").glob("*/chats/session-*.json"))


def chat_messages(path: Path) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["messages"]
    return messages


def test_each_file_is_told_by_its_content() -> None:
    assert detect_agent(QWEN_JSONL) == "qwen"
    assert detect_agent(GEMINI_JSON) == "gemini"
    assert load_any(QWEN_JSON).header["agent"] == "qwen"  # replies of type "qwen"
    assert load_any(GEMINI_JSON).header["agent"] == "gemini"


@pytest.mark.parametrize("path", [GEMINI_JSON, QWEN_JSON], ids=["gemini", "qwen"])
def test_a_one_object_chat_counts_what_it_holds(path: Path) -> None:
    records = chat_messages(path)
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary = json.loads(out)
    replies = [r for r in records if r["type"] in ("gemini", "qwen")]
    calls = [c for r in replies for c in r["toolCalls"]]
    assert summary["prompts"] == sum(1 for r in records if r["type"] == "user")
    assert summary["message_roles"] == {"user": 2, "assistant": len(replies), "toolResult": len(calls)}
    assert summary["notices"] == {"Error": sum(1 for r in records if r["type"] == "error")}
    assert summary["tokens"]["cacheRead"] == sum(r["tokens"]["cached"] for r in replies)
    assert summary["tokens"]["output"] == sum(
        r["tokens"]["output"] + r["tokens"]["thoughts"] for r in replies
    )
    assert summary["title"] == json.loads(path.read_text(encoding="utf-8"))["summary"]
    session = load_any(path)
    thinking = [
        b for e in session.entries for b in e.get("message", {}).get("content", []) if b["type"] == "thinking"
    ]
    assert len(thinking) == sum(len(r["thoughts"]) for r in replies)
    failed = [e for e in session.entries if e.get("message", {}).get("isError")]
    assert len(failed) == sum(1 for c in calls if c["status"] == "error")


def test_a_qwen_jsonl_chat_counts_what_it_holds() -> None:
    records = raw_objects(QWEN_JSONL)
    code, out, err = run("inspect", "--json", str(QWEN_JSONL))
    assert code == 0, err
    summary = json.loads(out)
    typed = [
        r for r in records if r["type"] == "user" and r.get("subtype") in (None, "mid_turn_user_message")
    ]
    responses = [p for r in records if r["type"] == "tool_result" for p in r["message"]["parts"]]
    replies = [r for r in records if r["type"] == "assistant"]
    assert summary["prompts"] == len(typed) == 2  # the queued one counts; the notification does not
    assert summary["message_roles"] == {
        "user": len(typed),
        "assistant": len(replies),
        "toolResult": len(responses),
    }
    usage = [r["usageMetadata"] for r in replies]
    assert summary["tokens"]["cacheRead"] == sum(u.get("cachedContentTokenCount", 0) for u in usage)
    assert summary["tokens"]["output"] == sum(
        u["candidatesTokenCount"] + u.get("thoughtsTokenCount", 0) for u in usage
    )
    titles = [r["systemPayload"]["customTitle"] for r in records if r.get("subtype") == "custom_title"]
    assert summary["title"] == titles[-1] and summary["agent"] == "qwen"
    assert summary["models"] == ["qwen/qwen3-coder-plus"]
    session = load_any(QWEN_JSONL)
    failed = [e["message"]["toolName"] for e in session.entries if e.get("message", {}).get("isError")]
    assert failed == [r["message"]["parts"][0]["functionResponse"]["name"]
                      for r in records if r.get("toolCallResult", {}).get("status") == "error"]  # fmt: skip
    shown = [e.get("customType") for e in session.entries if e["type"] in ("custom", "custom_message")]
    assert shown == ["qwen:notification", "qwen:compression", "qwen:command", "qwen:ui_telemetry"]


def test_the_default_folders_list_every_chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    shutil.copytree(FIXTURES / "qwen", home / ".qwen")
    shutil.copytree(FIXTURES / "gemini" / "tmp", home / ".gemini" / "tmp")
    monkeypatch.setenv("HOME", str(home))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    listed = {(s["agent"], s["id"], s["messageCount"]) for s in json.loads(out)}
    assert listed == {
        ("gemini", "3f2a9c1e-1111-4222-8333-444455556666", 5),
        ("qwen", "8c1d2e3f-5555-4666-8777-888899990000", 5),
        ("qwen", QWEN_JSONL.stem, 7),
    }
    code, out, err = run("search", "missing header config.h")
    assert code == 0, err
    assert QWEN_JSONL.stem[:8] in out or "Fix the build" in out
