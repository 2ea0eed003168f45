"""Every real session file (../shared's and the shipped ones) against an independent count of its
raw lines (``independent_counts``, no sessiontree code): typed prompts exact, assistant messages and
tool calls within 5%, and inspect and dump answering with no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from tests.conftest import REAL, REAL_V1, SHIPPED_REAL
from tests.readers.helpers import run
from tests.readers.independent_counts import COUNTERS

ONE_OBJECT = ("continue",)
"""The agents whose real files are one JSON object a session (``*.json``), by folder."""
FILES = sorted(
    {
        p.name: p
        for root in (SHIPPED_REAL, REAL)
        for p in (*root.rglob("*.jsonl"), *(f for a in ONE_OBJECT for f in root.glob(f"{a}/*.json")))
    }.values(),
    key=lambda p: p.name,
)
if REAL_V1.is_file() and REAL_V1.name not in {p.name for p in FILES}:
    FILES.append(REAL_V1)


def _agent(path: Path) -> str:
    return path.parent.name if path.parent.name in COUNTERS else "pi"


def _within(ours: int, theirs: int) -> bool:
    return abs(ours - theirs) <= 0.05 * theirs


def test_the_real_files_are_there() -> None:
    assert {_agent(p) for p in FILES} == set(COUNTERS) and len(FILES) >= 12


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[-60:])
def test_a_real_file_counts_what_an_independent_count_says(path: Path) -> None:
    expected = COUNTERS[_agent(path)](path)
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0 and "Traceback" not in err, err
    summary = json.loads(out)
    messages = [m for e in load_any(path).entries if (m := message_of(e)) is not None]
    replies = [m for m in messages if m.get("role") == "assistant"]
    calls = sum(1 for m in replies for b in m.get("content") or [] if b.get("type") == "toolCall")
    assert summary["prompts"] == expected.prompts
    assert summary["message_roles"].get("assistant", 0) == len(replies)
    assert _within(len(replies), expected.assistant), (len(replies), expected.assistant)
    assert _within(calls, expected.tool_calls), (calls, expected.tool_calls)
    code, out, err = run("dump", "--stdout", str(path))
    assert "Traceback" not in err
    assert (code, bool(out)) == (0, True) if messages else (code, err.count("\n")) == (1, 1), (code, err)


@pytest.mark.parametrize(
    "path", [p for p in FILES if p.parent.name in ONE_OBJECT], ids=lambda p: p.name[-60:]
)
def test_a_real_file_of_a_newer_agent_exports(path: Path, tmp_path: Path) -> None:
    """The agents read since issue 50: each real file exports to a page holding its title."""
    out = tmp_path / "page.html"
    code, _, err = run("export", str(path), str(out))
    assert code == 0 and "Traceback" not in err, err
    title = load_any(path).title
    assert title and title in out.read_text(encoding="utf-8")
