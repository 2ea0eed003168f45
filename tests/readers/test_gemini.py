"""Gemini CLI chat files through every command, counted from the raw records independently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import detect_agent, load_any
from tests.readers.helpers import run, st_data

CHAT = Path(__file__).resolve().parents[1] / "fixtures" / "gemini" / "session-2026-11-20T09-14-3f2a9c1e.jsonl"


def raw() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CHAT.read_text(encoding="utf-8").splitlines() if line.strip()]


def final_records() -> dict[str, dict[str, Any]]:
    """Each message id's newest record, as Gemini CLI's loader keeps them."""
    found: dict[str, dict[str, Any]] = {}
    for record in raw():
        if isinstance(record.get("id"), str) and isinstance(record.get("type"), str):
            found[record["id"]] = record
    return found


def test_a_chat_file_is_gemini_by_its_content() -> None:
    assert detect_agent(CHAT) == "gemini"


def test_inspect_counts_what_the_records_hold() -> None:
    records = final_records()
    code, out, err = run("inspect", "--json", str(CHAT))
    assert code == 0, err
    summary = json.loads(out)
    calls = [c for r in records.values() for c in r.get("toolCalls") or []]
    roles = summary["message_roles"]
    assert roles["user"] == sum(1 for r in records.values() if r["type"] == "user")
    assert roles["assistant"] == sum(1 for r in records.values() if r["type"] == "gemini")
    assert roles["toolResult"] == len(calls)
    output = sum(r["tokens"]["output"] + r["tokens"]["thoughts"] for r in records.values() if "tokens" in r)
    cached = sum(r["tokens"]["cached"] for r in records.values() if "tokens" in r)
    assert summary["tokens"]["output"] == output
    assert summary["tokens"]["cacheRead"] == cached
    title = next(r["$set"]["summary"] for r in raw() if "$set" in r)
    assert summary["title"] == title
    assert summary["agent"] == "gemini"


def test_a_rewind_leaves_the_undone_turn_as_a_side_branch() -> None:
    session = load_any(CHAT)
    context = [m["role"] for m in session.context().messages]
    path_ids = {e["id"] for e in session.tree.path_to(session.leaf_id)}
    rewound = next(r["$rewindTo"] for r in raw() if "$rewindTo" in r)
    assert rewound not in path_ids and "m5" not in path_ids  # undone, kept in the tree
    assert {rewound, "m5"} <= {e["id"] for e in session.entries}
    assert "m6" in path_ids and session.leaf_id == "m9"
    assert context.count("user") == 2  # m1 and m6: m4 was rewound


def test_export_shows_thoughts_tool_calls_results_and_notices(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    code, _, err = run("export", "--no-cache", str(CHAT), str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    data = st_data(html)
    session = load_any(CHAT)
    assert {e["id"] for e in data["entries"]} == {e["id"] for e in session.entries}
    assert data["leafId"] == "m9"


def test_dump_prints_the_active_path(tmp_path: Path) -> None:
    code, out, err = run("dump", "--stdout", str(CHAT))
    assert code == 0, err
    assert out.count("\n## User\n") == 2
    assert "Locating the cache" in out and "read_file" in out and "TTL_HOURS = 48" in out
    assert "Make it 2 hours" not in out  # rewound


def test_list_search_stats_and_build_cover_a_gemini_folder(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "tmp" / "weather" / "chats"
    root.mkdir(parents=True)
    shutil.copy(CHAT, root / CHAT.name)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code, out, err = run("list", "--all", "--json", "--root", str(tmp_path / "tmp"))
    assert code == 0, err
    (listed,) = json.loads(out)
    assert listed["agent"] == "gemini" and listed["messageCount"] == 9
    code, out, err = run("search", "--json", "TTL_HOURS", "--root", str(tmp_path / "tmp"))
    assert code == 0, err
    hits = json.loads(out)
    assert len(hits["results"] if isinstance(hits, dict) else hits) >= 2
    code, out, err = run("stats", "--json", "--root", str(tmp_path / "tmp"))
    assert code == 0, err
    total = json.loads(out)["total"]
    assert total["cacheRead"] == sum(r["tokens"]["cached"] for r in final_records().values() if "tokens" in r)
    assert total["costEstimated"] is True and total["cost"] > 0
    site = tmp_path / "site"
    code, out, err = run("build", "--quiet", "--root", str(tmp_path / "tmp"), "-o", str(site))
    assert code == 0, err
    pages = [p for p in (site / "sessions").rglob("*.html")]
    assert len(pages) == 1 and "Forecast shows stale data" in pages[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ['{"sessionId": "x"}\n', '{"projectHash": "y", "messages": []}\n'])
def test_half_a_metadata_line_is_not_gemini(tmp_path: Path, text: str) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text(text)
    assert detect_agent(path) != "gemini"
