"""Continue's session files, written in the shape Continue keeps them (``~/.continue/sessions/<id>.json``,
one pretty-printed object), counted from the raw object."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

SESSION_ID = "3f0c2a4e-9b1d-4c6e-8f00-5a7b2c1d9e10"


def item(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"message": message, "contextItems": [], **extra}


def usage(prompt: int, completion: int) -> dict[str, Any]:
    return {"promptTokens": prompt, "completionTokens": completion,
            "promptTokensDetails": {"cachedTokens": 300, "cacheWriteTokens": 20}}  # fmt: skip


CALL = {"id": "call_1", "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"filepath": "src/cache.ts"})}}  # fmt: skip

HISTORY: list[dict[str, Any]] = [
    item({"role": "user", "content": [{"type": "text", "text": "why is the cache cold after deploy?"}]},
         contextItems=[{"name": "cache.ts", "description": "src/cache.ts", "content": "export const c = 1",
                        "id": {"providerTitle": "file", "itemId": "x"}}]),
    item({"role": "assistant", "content": "Let me read the cache module.", "toolCalls": [CALL],
          "usage": usage(1500, 60)}, reasoning={"active": False, "text": "Probably warmup.", "startAt": 1}),
    item({"role": "tool", "content": "export const c = 1", "toolCallId": "call_1"}),
    item({"role": "assistant", "content": "The warmup job runs before the deploy finishes.",
          "usage": usage(1700, 40)}),
    item({"role": "user", "content": "move it after the health check"}),
    item({"role": "assistant", "content": "Moved the warmup after the health check.",
          "usage": usage(1800, 30)}),
]  # fmt: skip

SESSION = {
    "sessionId": SESSION_ID,
    "title": "Cold cache after deploy",
    "workspaceDirectory": "file:///home/dev/my%20shop",
    "history": HISTORY,
    "mode": "agent",
    "chatModelTitle": "Claude Sonnet 4.5",
    "usage": {"promptTokens": 5000, "completionTokens": 130, "totalCost": 0.0425},
}


def write_session(folder: Path, session: dict[str, Any] = SESSION) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session['sessionId']}.json"
    path.write_text(json.dumps(session, indent=2), encoding="utf-8")
    (folder / "sessions.json").write_text(json.dumps([{"sessionId": session["sessionId"]}]), encoding="utf-8")
    return path


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    return write_session(tmp_path / ".continue" / "sessions")


def test_a_session_counts_what_its_object_says(session_file: Path) -> None:
    assert detect_agent(session_file) == "continue"
    assert detect_agent(session_file.parent / "sessions.json") is None
    code, out, err = run("inspect", "--json", str(session_file))
    assert code == 0, err
    summary = json.loads(out)
    roles = [h["message"]["role"] for h in HISTORY]
    assert summary["prompts"] == roles.count("user") == 2
    assert summary["message_roles"] == {"user": 2, "assistant": roles.count("assistant"), "toolResult": 1}
    used = [h["message"]["usage"] for h in HISTORY if "usage" in h["message"]]
    assert summary["tokens"]["input"] == sum(u["promptTokens"] for u in used)
    assert summary["tokens"]["output"] == sum(u["completionTokens"] for u in used)
    assert summary["cost"] == pytest.approx(SESSION["usage"]["totalCost"])  # type: ignore[index]
    assert summary["title"] == SESSION["title"] and summary["cwd"] == "/home/dev/my shop"
    entries = load_any(session_file).entries
    [call] = [
        c for e in entries for c in e.get("message", {}).get("content", []) if c.get("type") == "toolCall"
    ]
    assert call["name"] == "read_file" and call["arguments"] == {"filepath": "src/cache.ts"}
    [result] = [e["message"] for e in entries if e.get("message", {}).get("role") == "toolResult"]
    assert result["toolName"] == "read_file"


def test_a_session_cut_short_shows_the_items_before_the_cut(session_file: Path) -> None:
    data = session_file.read_text(encoding="utf-8")
    session_file.write_text(data[: data.index("move it after")], encoding="utf-8")
    session = load_any(session_file)
    assert session.bad_lines and session.header["id"] == SESSION_ID
    code, out, err = run("inspect", "--json", str(session_file))
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["prompts"] == 1


def test_the_default_folder_is_listed_searched_counted_and_built(tmp_path: Path) -> None:
    path = write_session(Path.home() / ".continue" / "sessions")
    before = path.read_bytes()
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    [found] = [s for s in json.loads(out) if s.get("agent") == "continue"]
    assert found["id"] == SESSION_ID and found["firstMessage"] == "why is the cache cold after deploy?"
    code, out, err = run("search", "health check", "--json")
    assert code == 0 and SESSION_ID in out, err
    code, out, err = run("stats", "--json")
    assert code == 0, err
    used = [h["message"]["usage"] for h in HISTORY if "usage" in h["message"]]
    assert json.loads(out)["total"]["tokens"] == sum(
        u["promptTokens"] + u["completionTokens"] + 320 for u in used
    )
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    assert 'class="st-agent">Continue<' in (site / "index.html").read_text(encoding="utf-8")
    assert path.read_bytes() == before
