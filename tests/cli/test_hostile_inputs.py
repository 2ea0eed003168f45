"""Inputs that used to crash export, share, inspect and dump: each gives output, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter.ansi import ansi_to_html
from sessiontree.store.numbers import MAX_COUNT, amount_of, count_of
from tests.share.sessions import page_text


def write_session(path: Path, header: dict[str, Any], messages: list[dict[str, Any]]) -> Path:
    """Write a v3 session whose entries are the given messages in a chain (raw JSON, not re-encoded)."""
    lines = [json.dumps({"type": "session", "version": 3, "id": "0123456789abcdef", "cwd": "/w", **header})]
    parent = None
    for i, message in enumerate(messages):
        entry_id = f"e{i:07d}"
        lines.append(json.dumps({"type": "message", "id": entry_id, "parentId": parent, "message": message}))
        parent = entry_id
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a process, its stdout a pipe (where a lone surrogate used to crash it)."""
    return subprocess.run(
        [sys.executable, "-m", "sessiontree", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="strict",
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr


@pytest.fixture
def surrogate_session(tmp_path: Path) -> Path:
    # json.dumps writes "\ud83d": half an emoji, as a JavaScript agent cuts a string.
    return write_session(
        tmp_path / "cut.jsonl",
        {"title": "cut \ud83d title"},
        [
            {"role": "user", "content": [{"type": "text", "text": "smile \ud83d then \ude00 apart"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "ok \udfff"}]},
        ],
    )


def test_lone_surrogates_export_as_replacement_characters(surrogate_session: Path, tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    no_traceback(run("export", str(surrogate_session), str(out), cwd=tmp_path))
    page = page_text(out.read_bytes().decode("utf-8"))  # strict: the file is valid UTF-8
    assert "smile \ufffd then \ufffd apart" in page
    assert "cut \ufffd title" in page


def test_lone_surrogates_inspect_and_dump(surrogate_session: Path, tmp_path: Path) -> None:
    shown = run("inspect", str(surrogate_session), cwd=tmp_path)
    no_traceback(shown)
    assert "cut \ufffd title" in shown.stdout
    as_json = run("inspect", "--json", str(surrogate_session), cwd=tmp_path)
    no_traceback(as_json)
    assert json.loads(as_json.stdout)["title"] == "cut \ufffd title"  # contained when read, as everywhere
    dumped = run("dump", "--stdout", str(surrogate_session), cwd=tmp_path)
    no_traceback(dumped)
    assert "smile \ufffd then \ufffd apart" in dumped.stdout


def test_sgr_parameter_of_thousands_of_digits(tmp_path: Path) -> None:
    huge = "\x1b[" + "9" * 5000 + "mred\x1b[38;5;" + "1" * 4400 + "mblue\x1b[0m"
    assert str(ansi_to_html(huge)) == "redblue"  # unknown codes change nothing, and nothing raises
    path = write_session(
        tmp_path / "ansi.jsonl",
        {},
        [
            {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": huge}],
            }
        ],
    )
    out = tmp_path / "page.html"
    no_traceback(run("export", str(path), str(out), cwd=tmp_path))
    assert "redblue" in page_text(out.read_text(encoding="utf-8"))


def _usage_session(tmp_path: Path) -> Path:
    # Raw JSON text: Infinity, NaN and a 400-digit integer are what json.loads accepts.
    path = tmp_path / "usage.jsonl"
    big = "9" * 400
    lines = [
        '{"type":"session","version":3,"id":"0123456789abcdef","cwd":"/w"}',
        '{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"hi"}}',
        '{"type":"message","id":"a2","parentId":"a1","message":{"role":"assistant","provider":"p",'
        '"model":"m","content":[{"type":"text","text":"ok"}],'
        f'"usage":{{"input":{big},"output":Infinity,"cacheRead":NaN,"cacheWrite":-Infinity,'
        f'"cost":{{"total":{big}}}}}}}}}',
        '{"type":"message","id":"a3","parentId":"a2","message":{"role":"assistant","provider":"p",'
        '"model":"m","content":[{"type":"text","text":"ok"}],'
        '"usage":{"input":5,"output":7,"cacheRead":1e400,"cacheWrite":2,"cost":{"total":NaN}}}}',
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_infinite_nan_and_huge_usage_numbers(tmp_path: Path) -> None:
    path = _usage_session(tmp_path)
    shown = run("inspect", str(path), cwd=tmp_path)
    no_traceback(shown)
    # A huge count is clamped to the largest exact one; non-finite counts are 0.
    assert f"input {MAX_COUNT:,}, output 7, cache read 0, cache write 2" in shown.stdout
    data = json.loads(run("inspect", "--json", str(path), cwd=tmp_path).stdout)
    assert data["tokens"] == {"input": MAX_COUNT, "output": 7, "cacheRead": 0, "cacheWrite": 2}
    # An absurd recorded cost counts as nothing, in inspect as in stats (store.pricing), NaN too.
    assert data["cost"] == 0.0 and data["cost_estimated"] is False
    out = tmp_path / "page.html"
    no_traceback(run("export", str(path), str(out), cwd=tmp_path))
    assert "<!doctype html>" in out.read_text(encoding="utf-8").lower()


def test_numbers_are_clamped_or_zero() -> None:
    assert count_of(10**400) == MAX_COUNT and count_of(-(10**400)) == -MAX_COUNT
    assert count_of(float("inf")) == 0 and count_of(float("nan")) == 0 and count_of(True) == 0
    assert count_of(12.9) == 12 and count_of("12") == 0
    assert amount_of(10**400) == float(MAX_COUNT) and amount_of(float("-inf")) == 0.0
    assert amount_of(0.25) == 0.25 and amount_of(None) == 0.0


def test_inspect_keeps_escape_sequences_off_the_terminal(tmp_path: Path) -> None:
    osc52 = "\x1b]52;c;" + "cm0gLXJmIH4=" + "\x07"
    title = "\x1b]0;owned window\x07"
    path = write_session(
        tmp_path / "esc.jsonl",
        {"id": "ab\x1b[2Jcd", "title": f"hi{title}there\x9b31m", "cwd": f"/w{osc52}/x"},
        [{"role": "user", "content": "hello"}],
    )
    shown = run("inspect", str(path), cwd=tmp_path)
    no_traceback(shown)
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout and "\x9b" not in shown.stdout
    assert "Session   abcd  hithere31m" in shown.stdout
    assert "Cwd       /w/x" in shown.stdout


def test_lone_surrogates_list_search_and_stats(surrogate_session: Path, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--w--"
    folder.mkdir(parents=True)
    (folder / "2026-01-01T00-00-00-000Z_cut.jsonl").write_bytes(surrogate_session.read_bytes())
    env = {"HOME": str(tmp_path)}  # no Claude Code sessions of the machine's user
    listed = run("--agent-dir", str(agent), "list", "--all", "--json", cwd=tmp_path, env=env)
    no_traceback(listed)
    assert json.loads(listed.stdout)[0]["title"] == "cut \ufffd title"
    found = run("--agent-dir", str(agent), "search", "smile", cwd=tmp_path, env=env)
    no_traceback(found)
    assert "«smile» \ufffd then \ufffd apart" in found.stdout
    no_traceback(run("--agent-dir", str(agent), "stats", cwd=tmp_path, env=env))


def _deep_session(tmp_path: Path, depth: int) -> Path:
    """A session whose second entry holds a value nested ``depth`` deep (line 3 of 4)."""
    path = write_session(
        tmp_path / f"deep{depth}.jsonl",
        {"title": "deep"},
        [
            {"role": "user", "content": "before"},
            {"role": "assistant", "content": "x"},
            {"role": "user", "content": "after"},
        ],
    )
    lines = path.read_text().splitlines()
    lines[2] = lines[2][:-1] + ',"extra":' + "[" * depth + "]" * depth + "}"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("depth", [1_200, 3_000, 100_000])
def test_a_line_nested_too_deep_is_one_unreadable_line(tmp_path: Path, depth: int) -> None:
    path = _deep_session(tmp_path, depth)
    shown = run("inspect", str(path), cwd=tmp_path)
    no_traceback(shown)
    assert "Bad lines 1 skipped: 3 (nesting too deep)" in shown.stdout
    dumped = run("dump", "--stdout", str(path), cwd=tmp_path)
    no_traceback(dumped)
    assert "before" in dumped.stdout and "after" in dumped.stdout
    assert "1 unreadable line skipped (3)" in dumped.stderr
    out = tmp_path / "page.html"
    exported = run("export", str(path), str(out), cwd=tmp_path)
    no_traceback(exported)
    assert "1 unreadable line skipped (3)" in exported.stderr
    page = page_text(out.read_text(encoding="utf-8"))
    assert "before" in page and "after" in page


def test_a_line_nested_900_deep_loads_as_an_entry(tmp_path: Path) -> None:
    path = _deep_session(tmp_path, 900)
    shown = run("inspect", "--json", str(path), cwd=tmp_path)
    no_traceback(shown)
    summary = json.loads(shown.stdout)
    assert summary["bad_lines"] == [] and summary["entries"] == 3
    dumped = run("dump", "--stdout", str(path), cwd=tmp_path)
    no_traceback(dumped)
    assert dumped.stderr == "" and "after" in dumped.stdout
