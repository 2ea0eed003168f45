"""Values out of range or of the wrong kind, in every agent's format (issue 55): one range check for
times, token counts and costs (``store.sane``, through ``readers.base.make_session``), one decoder
for one-object files and database columns (``store.jsonl.decode_json``), so NaN, 400 digits,
negative counts, far-future times and lone surrogates are "unknown" with a notice, never a
crash further in and never summed.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter.options import ExportOptions
from sessiontree.exporter.text import format_session_as_text
from sessiontree.pages.export import export_to_file
from sessiontree.readers import detect_agent, load_any
from sessiontree.readers.db_mirror import mirror_dir
from sessiontree.store.repair import describe_damage
from sessiontree.store.sane import MAX_TOKENS, sane_cost, sane_count, sane_time
from sessiontree.store.summary import summarize_session
from tests.readers import test_amp, test_copilot
from tests.readers.helpers import FIXTURES, run
from tests.readers.test_damaged_formats import SOURCES, _write

GEMINI = next((FIXTURES / "gemini" / "tmp").rglob("session-*.json"))


def test_the_one_range_check() -> None:
    assert [sane_count(v) for v in (0, 12, 12.0, MAX_TOKENS)] == [0, 12, 12, MAX_TOKENS]
    for bad in (
        -1,
        -(10**6),
        MAX_TOKENS + 1,
        10**400,
        1.5,
        float("nan"),
        float("inf"),
        True,
        "12",
        None,
        [1],
    ):
        assert sane_count(bad) is None, bad
    assert sane_cost(0.25) == 0.25 and sane_cost(3) == 3.0
    for bad in (-0.01, 1e300, float("nan"), float("-inf"), 10**400, False, "0.1"):
        assert sane_cost(bad) is None, bad
    assert sane_time("2026-02-04T10:51:00.000Z") and sane_time(1_763_630_300_000)
    for bad in (
        "29999-01-01T00:00:00Z",
        "2999-01-01T00:00:00Z",
        "",
        "never",
        10**18,
        -5,
        float("nan"),
        [],
        True,
    ):
        assert not sane_time(bad), bad


def test_a_negative_token_count_is_unknown_never_summed(tmp_path: Path) -> None:
    events = test_copilot.events()
    usage = next(e for e in events if e["type"] == "assistant.usage")
    usage["data"]["inputTokens"] = -1_000_000
    usage["data"]["outputTokens"] = 10**400
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    session = load_any(path)
    tokens = summarize_session(session).tokens
    assert tokens["input"] == 0 and tokens["output"] == 0 and tokens["cacheRead"] == 1000
    said = describe_damage(session.repairs, session.bad_lines)
    assert said is not None and "values out of range" in said and "read as unknown" in said
    texts = " ".join(r.text for r in session.repairs)
    assert "input -1000000" in texts and "output 9007199254740991" in texts  # clamped as decoded
    code, out, err = run("stats", "--root", str(tmp_path), "--json")
    assert code == 0, err
    total = json.loads(out)["total"]
    assert (total["input"], total["output"], total["cacheRead"]) == (0, 0, 1000), total


@pytest.mark.parametrize("name", ["amp", "crush-document", "gemini-json", "opencode-export"])
def test_lone_surrogates_and_nan_in_a_one_object_file_export_and_dump(name: str, tmp_path: Path) -> None:
    filename, content = SOURCES[name]()
    text = json.dumps(content, indent=2)  # ensure_ascii: a lone surrogate is written "\ud800"
    marks = 0
    for key in ('"text": "', '"thinking": "', '"content": "', '"title": "', '"summary": "'):
        marks += text.count(key)
        text = text.replace(key, key + "\\ud800 \\udfff")
    assert marks, "the file holds text to damage"
    text = text.replace("1764000000", "NaN").replace('"cost": 0.1', '"cost": Infinity')
    path = tmp_path / filename
    path.write_text(text, encoding="ascii")
    out = export_to_file(path, tmp_path / "page.html", ExportOptions(compress=False))
    page = out.read_bytes().decode("utf-8")  # strict: no lone surrogate written as bytes
    assert "\ufffd \ufffd" in page
    dumped = format_session_as_text(load_any(path), None, None)
    dumped.encode("utf-8")
    code, _, err = run("export", str(path), str(tmp_path / "cli.html"))
    assert code == 0, err


def test_a_pretty_printed_chat_with_a_scalar_line_near_the_top_is_sniffed(tmp_path: Path) -> None:
    chat: dict[str, Any] = json.loads(GEMINI.read_text(encoding="utf-8"))
    first = {"directories": ["/w", 3, True], "count": 7}  # lines "3" and "true" near the top
    path = tmp_path / GEMINI.name
    path.write_text(json.dumps({**first, **chat}, indent=2), encoding="utf-8")
    assert "\n    3,\n    true\n" in path.read_text(encoding="utf-8")
    assert detect_agent(path) == "gemini"
    assert not load_any(path).is_empty


def test_a_mirror_of_bytes_and_a_time_of_ten_to_the_eighteen(tmp_path: Path) -> None:
    from tests.readers.opencode_db import make_database

    data = tmp_path / "data"
    (data / "opencode").mkdir(parents=True)
    db = data / "opencode" / "opencode.db"
    info = make_database(db, wal=False)
    con = sqlite3.connect(db)
    con.execute(
        "UPDATE session SET time_updated = ?, slug = ?, title = ?", (10**18, b"\xff\x00slug", "ok title")
    )
    con.execute("UPDATE message SET time_updated = ? WHERE rowid = 1", (10**18,))
    con.commit()
    con.close()
    env = {"XDG_DATA_HOME": str(data)}
    before = os.environ.copy()
    os.environ.update(env)
    try:
        for args in (["list", "--all", "--json"], ["stats", "--json"], ["search", "forecast"]):
            code, out, err = run(*args)
            assert code == 0, (args, err)
            if args[0] == "list":
                assert info["id"] in {s["id"] for s in json.loads(out)}
    finally:
        os.environ.clear()
        os.environ.update(before)
    mirrored = list(mirror_dir(db, "opencode").glob("ses_*.json"))
    assert mirrored, "the session was mirrored"
    for path in mirrored:
        assert 0 < path.stat().st_mtime < 7_258_118_400  # a time before 2200, never 10**15 s


def test_pretty_printed_amp_thread_with_damage_still_reads(tmp_path: Path) -> None:
    thread = json.loads(json.dumps(test_amp.THREAD))
    thread["messages"][1]["usage"] = {"inputTokens": float("nan"), "outputTokens": -3, "model": "x"}
    path = tmp_path / f"{test_amp.THREAD_ID}.json"
    _write(path, thread)
    session = load_any(path)
    assert not session.is_empty and session.repairs


def test_a_session_start_out_of_range_is_unknown_with_a_repair(tmp_path: Path) -> None:
    events = test_copilot.events()
    events[0]["data"]["startTime"] = "29999-01-01T00:00:00Z"
    path = tmp_path / "s" / "events.jsonl"
    path.parent.mkdir()
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    session = load_any(path)
    assert "timestamp" not in session.header
    assert any(
        "the session's start '29999-01-01T00:00:00Z' is out of range" in r.text for r in session.repairs
    )
