"""Amp's thread files, written in the shape Amp keeps them (one JSON object a thread, Anthropic-style
content blocks), counted from the raw object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

THREAD_ID = "T-019b9d03-62e3-772f-9780-3e637f90eaec"


def msg(role: str, sent: int, *content: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"role": role, "messageId": sent, "content": list(content), "meta": {"sentAt": sent}, **extra}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def use(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": cid, "name": name, "input": args, "complete": True}


def result(cid: str, status: str, **run: Any) -> dict[str, Any]:
    return {"type": "tool_result", "toolUseID": cid, "run": {"status": status, **run}}


def usage(model: str, inputs: int, output: int) -> dict[str, Any]:
    return {"model": model, "inputTokens": inputs, "outputTokens": output, "cacheReadInputTokens": 100,
            "cacheCreationInputTokens": 10, "maxInputTokens": 168000}  # fmt: skip


MESSAGES = [
    msg("user", 1767865803500, text("why does the login test flake?")),
    msg("assistant", 1767865805000, {"type": "thinking", "thinking": "Timing, likely.", "signature": "s"},
        text("Running it."), use("toolu_1", "Bash", cmd="pytest -k login"),
        state={"type": "complete", "stopReason": "tool_use"}, usage=usage("claude-sonnet-4-5", 1200, 80)),
    msg("user", 1767865809000, result("toolu_1", "done", result={"output": "1 failed", "exitCode": 1})),
    msg("assistant", 1767865812000, use("toolu_2", "Read", path="/w/tests/x.py"),
        state={"type": "complete", "stopReason": "tool_use"}, usage=usage("claude-sonnet-4-5", 1300, 40)),
    msg("user", 1767865813000, result("toolu_2", "error", error={"message": "No such file"})),
    msg("assistant", 1767865814000, text("Let me look"), state={"type": "cancelled"}),
    msg("info", 1767865815000, {"type": "manual_bash_invocation", "args": {"cmd": "ls tests"},
                                "bashResult": {"output": "x_test.py\n", "exitCode": 0}}),
    msg("info", 1767865816000,
        {"type": "summary", "summary": {"type": "message", "summary": "Looked at x."}}),
    msg("user", 1767865820000, text("use the fixture clock")),
    msg("assistant", 1767865830000, text("Done: the test uses the frozen clock."),
        state={"type": "complete", "stopReason": "end_turn"}, usage=usage("claude-sonnet-4-5", 1500, 30)),
]  # fmt: skip

THREAD = {
    "v": 42,
    "id": THREAD_ID,
    "created": 1767865803494,
    "title": "Fix the flaky login test",
    "agentMode": "smart",
    "env": {"initial": {"trees": [{"displayName": "api", "uri": "file:///home/dev/my%20api"}],
                        "platform": {"os": "linux", "client": "CLI"}}},
    "messages": MESSAGES,
}  # fmt: skip


@pytest.fixture
def thread_file(tmp_path: Path) -> Path:
    path = tmp_path / "data" / "amp" / "threads" / f"{THREAD_ID}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(THREAD, indent=2), encoding="utf-8")
    return path


def _blocks(role: str, kind: str) -> list[dict[str, Any]]:
    raw = json.loads(json.dumps(MESSAGES))
    return [b for m in raw if m["role"] == role for b in m["content"] if b["type"] == kind]


def test_a_thread_counts_what_its_object_says(thread_file: Path) -> None:
    assert detect_agent(thread_file) == "amp"
    code, out, err = run("inspect", "--json", str(thread_file))
    assert code == 0, err
    summary = json.loads(out)
    replies = [m for m in MESSAGES if m["role"] == "assistant"]
    assert summary["prompts"] == len(_blocks("user", "text")) == 2
    assert summary["message_roles"] == {
        "user": 2,
        "assistant": len(replies),
        "toolResult": len(_blocks("user", "tool_result")),
    }
    assert summary["tokens"]["input"] == sum(m["usage"]["inputTokens"] for m in replies if "usage" in m)
    assert summary["tokens"]["output"] == sum(m["usage"]["outputTokens"] for m in replies if "usage" in m)
    assert summary["title"] == THREAD["title"] and summary["cwd"] == "/home/dev/my api"
    assert summary["notices"] == {"Summary": 1, "Cancelled": 1}
    entries = load_any(thread_file).entries
    failed = [e["message"]["toolName"] for e in entries if e.get("message", {}).get("isError")]
    assert failed == ["Read"]
    calls = [
        c for e in entries for c in e.get("message", {}).get("content", []) if c.get("type") == "toolCall"
    ]
    assert len(calls) == len(_blocks("assistant", "tool_use"))


def test_the_page_shows_the_shell_command_and_the_last_reply(thread_file: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    code, _, err = run("export", str(thread_file), str(page), "--no-cache")
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert "$ ls tests" in html and "Done: the test uses the frozen clock." in html


def test_a_thread_cut_short_shows_the_messages_before_the_cut(thread_file: Path) -> None:
    data = thread_file.read_text(encoding="utf-8")
    cut = data.index('"use the fixture clock"')
    thread_file.write_text(data[:cut], encoding="utf-8")
    session = load_any(thread_file)
    prompts = [e for e in session.entries if e.get("message", {}).get("role") == "user"]
    assert len(prompts) == 1 and session.bad_lines
    code, out, err = run("inspect", "--json", str(thread_file))
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["prompts"] == 1


def test_the_default_folder_is_listed_and_searched(
    thread_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "amp"]
    assert found["id"] == THREAD_ID and found["firstMessage"] == "why does the login test flake?"
    code, out, err = run("search", "frozen clock", "--json")
    assert code == 0, err
    assert THREAD_ID in out
    code, out, err = run("stats", "--json")
    assert code == 0, err
    totals = json.loads(out)["total"]
    counted = [m["usage"] for m in MESSAGES if "usage" in m]
    keys = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")
    assert totals["tokens"] == sum(u[k] for u in counted for k in keys)


def test_build_takes_the_default_folder(
    thread_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    before = thread_file.read_bytes()
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    [page] = [p for p in (site / "sessions").rglob("*.html") if THREAD_ID in p.name]
    assert "Done: the test uses the frozen clock." in page.read_text(encoding="utf-8")
    assert 'class="st-agent">Amp<' in (site / "index.html").read_text(encoding="utf-8")
    assert thread_file.read_bytes() == before and sorted(thread_file.parent.iterdir()) == [thread_file]


@pytest.mark.anyio
async def test_serve_lists_and_renders_a_thread(thread_file: Path, tmp_path: Path) -> None:
    from sessiontree.serve.config import ServeConfig
    from tests.serve.conftest import make_client

    config = ServeConfig(roots=(thread_file.parent,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        index = await client.get("/")
        assert index.status_code == 200 and 'class="st-agent">Amp<' in index.text
        page = await client.get(f"/s/{thread_file.name}")
        assert page.status_code == 200 and "Fix the flaky login test" in page.text


def test_a_reply_without_a_sent_time_takes_its_usage_time(thread_file: Path) -> None:
    thread = json.loads(json.dumps(THREAD))
    reply = thread["messages"][-1]
    del reply["meta"]
    reply["usage"]["timestamp"] = "2026-01-08T09:50:30.000Z"
    thread_file.write_text(json.dumps(thread), encoding="utf-8")
    last = load_any(thread_file).entries[-1]
    assert last["message"]["role"] == "assistant" and last["timestamp"] == reply["usage"]["timestamp"]
