"""Cline's, Roo Code's and Kilo Code's task folders, written in the shape the extensions keep them
(``api_conversation_history.json``, ``ui_messages.json``, ``task_metadata.json``), counted from the
raw arrays."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run

TASK_ID = "1764831000123"
ENV = "<environment_details>\n# VSCode Visible Files\nsrc/app.py\n\n# Current Working Directory (/home/dev/shop) Files\nsrc/\n</environment_details>"  # noqa: E501


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": [text("<task>\nwhy does checkout double-charge?\n</task>"), text(ENV)]},
    {"role": "assistant", "content": [text("Reading the payment code."),
                                      {"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                       "input": {"path": "src/pay.py"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                  "content": [text("def charge(): retry(charge)")]}, text(ENV)]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "attempt_completion",
                                       "input": {"result": "The retry wraps charge twice."}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "done"},
                                 text("The user has provided feedback on the results.\n<feedback>\n"
                                      "fix it with an idempotency key\n</feedback>"), text(ENV)]},
    {"role": "assistant", "content": [text("Added an idempotency key to charge().")]},
]  # fmt: skip


def api_req(ts: int, tokens_in: int, tokens_out: int, cost: float) -> dict[str, Any]:
    info = {"request": "<task>...</task>", "tokensIn": tokens_in, "tokensOut": tokens_out,
            "cacheWrites": 50, "cacheReads": 400, "cost": cost}  # fmt: skip
    return {"ts": ts, "type": "say", "say": "api_req_started", "text": json.dumps(info)}


UI: list[dict[str, Any]] = [
    {"ts": 1764831000200, "type": "say", "say": "task", "text": "why does checkout double-charge?"},
    api_req(1764831000300, 1200, 90, 0.0123),
    {"ts": 1764831001000, "type": "say", "say": "text", "text": "Reading the payment code."},
    {"ts": 1764831001100, "type": "ask", "ask": "tool",
     "text": json.dumps({"tool": "readFile", "path": "src/pay.py"})},
    api_req(1764831002000, 1400, 40, 0.0101),
    {"ts": 1764831003000, "type": "say", "say": "completion_result", "text": "The retry wraps charge twice."},
    {"ts": 1764831004000, "type": "say", "say": "user_feedback", "text": "fix it with an idempotency key"},
    api_req(1764831005000, 1600, 30, 0.0090),
    {"ts": 1764831006000, "type": "say", "say": "text", "text": "Added an idempotency key to charge()."},
]  # fmt: skip

METADATA = {
    "files_in_context": [{"path": "src/pay.py", "record_state": "active", "record_source": "read_tool"}],
    "model_usage": [{"ts": 1764831000300, "model_id": "claude-sonnet-4-5", "model_provider_id": "anthropic",
                     "mode": "act"}],
    "environment_history": [],
}  # fmt: skip

EXTENSIONS = {
    "cline": "saoudrizwan.claude-dev",
    "roo": "rooveterinaryinc.roo-cline",
    "kilo": "kilocode.kilo-code",
}


def write_task(tasks: Path, task_id: str = TASK_ID, history: Any = HISTORY, ui: Any = UI) -> Path:
    """A task folder as the extension writes it (compact arrays, pretty metadata)."""
    folder = tasks / task_id
    folder.mkdir(parents=True)
    (folder / "api_conversation_history.json").write_text(json.dumps(history), encoding="utf-8")
    (folder / "ui_messages.json").write_text(json.dumps(ui), encoding="utf-8")
    (folder / "task_metadata.json").write_text(json.dumps(METADATA, indent=2), encoding="utf-8")
    return folder / "api_conversation_history.json"


def storage(home: Path, agent: str, host: str = "Code") -> Path:
    return home / ".config" / host / "User" / "globalStorage" / EXTENSIONS[agent] / "tasks"


@pytest.fixture
def task_file(tmp_path: Path) -> Path:
    return write_task(storage(tmp_path, "cline"))


def _requests() -> list[dict[str, Any]]:
    return [json.loads(m["text"]) for m in UI if m.get("say") == "api_req_started"]


def test_a_task_counts_what_its_arrays_say(task_file: Path) -> None:
    assert detect_agent(task_file) == "cline"
    code, out, err = run("inspect", "--json", str(task_file))
    assert code == 0, err
    summary = json.loads(out)
    blocks = [b for m in HISTORY for b in m["content"]]
    assert summary["prompts"] == sum("<task>" in b.get("text", "") or "<feedback>" in b.get("text", "")
                                     for b in blocks) == 2  # fmt: skip
    assert summary["message_roles"] == {
        "user": 2,
        "assistant": sum(m["role"] == "assistant" for m in HISTORY),
        "toolResult": sum(b["type"] == "tool_result" for b in blocks),
    }
    assert summary["tokens"]["input"] == sum(r["tokensIn"] for r in _requests())
    assert summary["tokens"]["output"] == sum(r["tokensOut"] for r in _requests())
    assert summary["cost"] == pytest.approx(sum(r["cost"] for r in _requests()))
    assert summary["cwd"] == "/home/dev/shop"
    session = load_any(task_file)
    prompts = [e["message"]["content"][0]["text"] for e in session.entries
               if e.get("message", {}).get("role") == "user"]  # fmt: skip
    assert prompts == ["why does checkout double-charge?", "fix it with an idempotency key"]
    calls = [c for e in session.entries for c in e.get("message", {}).get("content", [])
             if c.get("type") == "toolCall"]  # fmt: skip
    assert [c["name"] for c in calls] == ["read_file", "attempt_completion"]
    assert session.entries[0]["timestamp"] == "2025-12-04T06:50:00.200Z"


@pytest.mark.parametrize("agent", ["roo", "kilo"])
def test_roo_and_kilo_are_told_by_their_extension_folder(agent: str, tmp_path: Path) -> None:
    history = [{**m, "ts": 1764831000000 + i} for i, m in enumerate(HISTORY)]  # Roo Code stamps each
    path = write_task(storage(tmp_path, agent, "VSCodium"), history=history)
    assert detect_agent(path) == agent
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    assert json.loads(out)["prompts"] == 2
    assert load_any(path).header["agent"] == agent


def test_a_history_cut_short_shows_the_messages_before_the_cut(task_file: Path) -> None:
    data = task_file.read_text(encoding="utf-8")
    task_file.write_text(data[: data.index("fix it with")], encoding="utf-8")
    session = load_any(task_file)
    assert session.bad_lines
    code, out, err = run("inspect", "--json", str(task_file))
    assert code == 0 and "Traceback" not in err
    assert json.loads(out)["prompts"] == 1


def test_every_default_folder_is_listed_searched_counted_and_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path.home()
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    hosts = [("cline", "Code"), ("roo", "Cursor"), ("kilo", "Windsurf")]
    made = {agent: write_task(storage(home, agent, host), f"17648310001{i}",
                              ui=[{**m, "ts": m["ts"] + i * 60_000} for m in UI])  # three tasks, three times
            for i, (agent, host) in enumerate(hosts)}  # fmt: skip
    before = {p: p.read_bytes() for p in made.values()}
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    listed = {s["agent"]: s for s in json.loads(out) if s.get("agent") in made}
    assert sorted(listed) == sorted(made)
    assert {s["firstMessage"] for s in listed.values()} == {"why does checkout double-charge?"}
    assert listed["roo"]["id"] == "176483100011"
    code, out, err = run("search", "idempotency", "--json")
    assert code == 0, err
    assert all(p.parent.name in out for p in made.values())
    code, out, err = run("stats", "--json")
    assert code == 0, err
    totals = json.loads(out)["total"]
    per_task = sum(r["tokensIn"] + r["tokensOut"] + r["cacheWrites"] + r["cacheReads"] for r in _requests())
    assert totals["tokens"] == 3 * per_task
    site = tmp_path / "site"
    code, _, err = run("build", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    index = (site / "index.html").read_text(encoding="utf-8")
    for label in ("Cline", "Roo Code", "Kilo Code"):
        assert f'class="st-agent">{label}<' in index
    assert {p: p.read_bytes() for p in made.values()} == before


@pytest.mark.anyio
async def test_serve_lists_and_renders_a_task(task_file: Path, tmp_path: Path) -> None:
    from sessiontree.serve.config import ServeConfig
    from tests.serve.conftest import make_client

    config = ServeConfig(roots=(task_file.parent.parent,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        index = await client.get("/")
        assert index.status_code == 200 and 'class="st-agent">Cline<' in index.text
        link = f"/s/{TASK_ID}/api_conversation_history.json"
        assert link in index.text
        page = await client.get(link)
        assert page.status_code == 200 and "Added an idempotency key" in page.text


XML_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": [text("<task>\nlist the scripts\n</task>"), text(ENV)]},
    {"role": "assistant", "content": [text("<thinking>Look at the folder.</thinking>\n\n<list_files>\n"
                                           "<path>scripts</path>\n<recursive>false</recursive>\n</list_files>")]},
    {"role": "user", "content": [text("[list_files for 'scripts'] Result:"), text("build.sh\ntest.sh"),
                                 text(ENV)]},
    {"role": "assistant", "content": [text("<attempt_completion>\n<result>\nTwo scripts.\n</result>\n"
                                           "</attempt_completion>")]},
    {"role": "user", "content": [text("[attempt_completion] Result:"),
                                 text("The user has provided feedback on the results.\n<feedback>\n"
                                      "which one runs the tests?\n</feedback>"), text(ENV)]},
    {"role": "assistant", "content": [text("test.sh runs them.")]},
]  # fmt: skip


def test_the_xml_tool_era_reads_calls_and_results(tmp_path: Path) -> None:
    """Cline before native tool calls: a call is a tag in the reply's text, its result a text block
    '[tool for ...] Result:' and the block after it; feedback inside the result is typed."""
    path = write_task(storage(tmp_path, "cline"), history=XML_HISTORY, ui=[])
    entries = load_any(path).entries
    calls = [
        c for e in entries for c in e.get("message", {}).get("content", []) if c.get("type") == "toolCall"
    ]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("list_files", {"path": "scripts", "recursive": "false"}),
        ("attempt_completion", {"result": "Two scripts."}),
    ]
    results = [e["message"] for e in entries if e.get("message", {}).get("role") == "toolResult"]
    assert [(r["toolCallId"], r["toolName"]) for r in results] == [(c["id"], c["name"]) for c in calls]
    assert results[0]["content"][0]["text"] == "build.sh\ntest.sh"
    prompts = [
        e["message"]["content"][0]["text"] for e in entries if e.get("message", {}).get("role") == "user"
    ]
    assert prompts == ["list the scripts", "which one runs the tests?"]
    first = next(e["message"] for e in entries if e.get("message", {}).get("role") == "assistant")
    assert first["content"][0] == {"type": "thinking", "thinking": "Look at the folder."}
    assert [b["type"] for b in first["content"]] == ["thinking", "toolCall"]
