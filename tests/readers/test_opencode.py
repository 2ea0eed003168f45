"""OpenCode storage folders through every command, counted from the raw JSON files independently."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run, st_data

STORAGE = Path(__file__).resolve().parents[1] / "fixtures" / "opencode" / "storage"
(SESSION,) = sorted((STORAGE / "session").glob("*/ses_*.json"))


def messages() -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((STORAGE / "message" / SESSION.stem).glob("*.json"))
    ]


def parts(message_id: str) -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((STORAGE / "part" / message_id).glob("*.json"))
    ]


def tool_parts() -> list[dict[str, Any]]:
    return [p for m in messages() for p in parts(m["id"]) if p["type"] == "tool"]


def replies() -> list[dict[str, Any]]:
    return [m for m in messages() if m["role"] == "assistant"]


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_a_session_file_is_opencode_by_its_content() -> None:
    assert detect_agent(SESSION) == "opencode"
    message = next((STORAGE / "message" / SESSION.stem).glob("*.json"))
    assert detect_agent(message) is None  # a message file is no session


def test_inspect_counts_what_the_files_hold() -> None:
    code, out, err = run("inspect", "--json", str(SESSION))
    assert code == 0, err
    summary = json.loads(out)
    roles = summary["message_roles"]
    typed = [m for m in messages() if m["role"] == "user"]
    assert roles["user"] == len(typed) and summary["prompts"] == len(typed)  # synthetic text is no prompt
    spoken = [m for m in replies() if any(p["type"] in ("text", "reasoning", "tool") for p in parts(m["id"]))]
    assert roles["assistant"] == len(spoken)  # the reply that only failed is its error notice
    done = [p for p in tool_parts() if p["state"]["status"] in ("completed", "error")]
    assert roles["toolResult"] == len(done) == 3
    tokens = summary["tokens"]
    assert tokens["input"] == sum(m["tokens"]["input"] for m in replies())
    assert tokens["output"] == sum(m["tokens"]["output"] + m["tokens"]["reasoning"] for m in replies())
    assert tokens["cacheRead"] == sum(m["tokens"]["cache"]["read"] for m in replies())
    assert tokens["cacheWrite"] == sum(m["tokens"]["cache"]["write"] for m in replies())
    assert summary["cost"] == pytest.approx(sum(m["cost"] for m in replies()))
    assert summary["cost_estimated"] is False  # OpenCode's recorded cost wins
    assert summary["notices"] == {"Error": sum(1 for m in replies() if "error" in m)}
    info = json.loads(SESSION.read_text(encoding="utf-8"))
    assert summary["title"] == info["title"] and summary["cwd"] == info["directory"]
    assert summary["agent"] == "opencode" and summary["models"] == ["anthropic/claude-sonnet-4-20250514"]


def test_export_shows_every_entry_tool_calls_and_the_error(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    code, _, err = run("export", "--no-cache", str(SESSION), str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    data = st_data(html)
    session = load_any(SESSION)
    assert {e["id"] for e in data["entries"]} == {e["id"] for e in session.entries}
    assert data["leafId"] == session.leaf_id
    results = {e["result"]: e.get("error", False) for e in data["entries"] if e.get("role") == "toolResult"}
    assert results == {p["callID"]: p["state"]["status"] == "error" for p in tool_parts()}
    assert "Overloaded" in html and "Forecast shows stale data" in html


def test_dump_prints_prompts_thinking_tools_and_the_error() -> None:
    code, out, err = run("dump", "--stdout", str(SESSION))
    assert code == 0, err
    assert out.count("\n## User\n") == 2
    assert "Locating the cache TTL" in out and "TTL_HOURS = 48" in out and "pytset: command not found" in out
    assert "## Error\n" in out and "APIError: Overloaded" in out
    assert "## Context\n" in out and "Called the Read tool" in out  # OpenCode's added text, not a prompt
    assert not re.search(r"^## [^\n]*\n\s*(?=^## |\Z)", out, re.M)  # no empty heading


def test_a_revert_leaves_the_undone_turn_off_the_active_path(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(STORAGE, storage)
    session_file = storage / SESSION.relative_to(STORAGE)
    info = json.loads(session_file.read_text(encoding="utf-8"))
    second_prompt = [m for m in messages() if m["role"] == "user"][1]["id"]
    session_file.write_text(json.dumps({**info, "revert": {"messageID": second_prompt}}, indent=2))
    session = load_any(session_file)
    path_ids = {e["id"] for e in session.tree.path_to(session.leaf_id)}
    assert second_prompt in {e["id"] for e in session.entries} and second_prompt not in path_ids
    assert [m["role"] for m in session.context().messages].count("user") == 1


def test_list_search_stats_and_build_cover_a_storage_folder(tmp_path: Path, monkeypatch) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(STORAGE, storage)
    before = snapshot(storage)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, out, err = run("list", "--all", "--json", "--root", str(storage))
    assert code == 0, err
    (listed,) = json.loads(out)
    assert listed["agent"] == "opencode" and listed["id"] == SESSION.stem
    spoken = [m for m in replies() if any(p["type"] in ("text", "reasoning", "tool") for p in parts(m["id"]))]
    done = [p for p in tool_parts() if p["state"]["status"] in ("completed", "error")]
    typed = [m for m in messages() if m["role"] == "user"]
    assert listed["messageCount"] == len(typed) + len(spoken) + len(done)
    code, out, err = run("search", "--json", "TTL_HOURS", "--root", str(storage))
    assert code == 0, err
    hits = json.loads(out)
    assert len(hits["results"] if isinstance(hits, dict) else hits) >= 2
    code, out, err = run("stats", "--json", "--root", str(storage))
    assert code == 0, err
    total = json.loads(out)["total"]
    assert total["cacheRead"] == sum(m["tokens"]["cache"]["read"] for m in replies())
    assert (
        total["cost"] == pytest.approx(sum(m["cost"] for m in replies())) and total["costEstimated"] is False
    )
    site = tmp_path / "site"
    code, out, err = run("build", "--quiet", "--root", str(storage), "-o", str(site))
    assert code == 0, err
    pages = list((site / "sessions").rglob("*.html"))
    assert len(pages) == 1 and "Forecast shows stale data" in pages[0].read_text(encoding="utf-8")
    assert snapshot(storage) == before  # read-only: nothing written, nothing created beside


def test_damaged_part_files_show_everything_readable(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(STORAGE, storage)
    victim = next(
        p
        for p in (storage / "part").rglob("*.json")
        if '"type": "reasoning"' in p.read_text(encoding="utf-8")
    )
    victim.write_text(victim.read_text(encoding="utf-8")[:40])  # half written
    session = load_any(storage / SESSION.relative_to(STORAGE))
    assert len(session.bad_lines) == 1 and victim.name in session.bad_lines[0].reason
    code, out, err = run("dump", "--stdout", str(storage / SESSION.relative_to(STORAGE)))
    assert code == 0, err
    assert "TTL_HOURS = 48" in out and "Locating the cache" not in out


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "id": "ses_x",\n  "title": "no project"\n}\n',
        '{\n  "id": "msg_1",\n  "projectID": "p",\n  "time": {}\n}\n',
    ],
)
def test_half_a_session_file_is_not_opencode_and_is_refused_by_name(tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.json"
    path.write_text(text)
    assert detect_agent(path) is None
    code, _, err = run("inspect", str(path))
    assert code == 1 and "OpenCode" in err and "Traceback" not in err


def test_the_default_folder_is_listed_and_a_session_found_by_id(tmp_path: Path, monkeypatch) -> None:
    shutil.copytree(STORAGE, tmp_path / ".local" / "share" / "opencode" / "storage")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    assert [s["id"] for s in json.loads(out) if s["agent"] == "opencode"] == [SESSION.stem]
    code, out, err = run("inspect", "--json", SESSION.stem[:10])
    assert code == 0, err
    assert json.loads(out)["title"] == json.loads(SESSION.read_text(encoding="utf-8"))["title"]
