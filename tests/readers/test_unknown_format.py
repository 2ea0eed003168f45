"""A file of no format sessiontree reads is refused in one line naming the formats tried, never read
as a damaged pi excerpt (records with ids and types but no ``parentId`` are not pi entries)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import agent_of, load_any
from sessiontree.store.formats import AGENT_LABELS
from sessiontree.store.load import load_session

# Gemini CLI's chat file (JSONL): a header record, then user / gemini / info records and $set lines
# (the shape of google-gemini/gemini-cli's chat recording service).
GEMINI_LINES = [
    {"sessionId": "9f1c", "projectHash": "a1b2", "startTime": "2026-05-01T10:00:00.000Z",
     "lastUpdated": "2026-05-01T10:05:00.000Z"},
    *(
        {"id": f"m{i}", "timestamp": f"2026-05-01T10:0{i % 10}:00.000Z",
         "type": ("user", "gemini", "info")[i % 3], "content": [{"text": f"part {i}"}]}
        for i in range(121)
    ),
    {"$set": {"lastUpdated": "2026-05-01T10:05:00.000Z"}},
]  # fmt: skip
# Another tool's log of records with ids and types, and no header at all.
LOG_LINES = [{"id": f"r{i}", "type": ("user", "model")[i % 2], "text": f"line {i}"} for i in range(40)]


def _write(path: Path, lines: Sequence[object]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _refusals(path: Path) -> list[str]:
    outs = []
    for args in (
        ["inspect", str(path)],
        ["dump", "--stdout", str(path)],
        ["export", str(path), str(path) + ".html"],
    ):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, (args, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        outs.append(result.output)
    return outs


@pytest.mark.parametrize(
    "name, content",
    [
        ("log.jsonl", "".join(json.dumps(v) + "\n" for v in LOG_LINES)),
        ("notes.json", json.dumps({"id": "n1", "type": "note", "items": [{"id": "i1"}]}, indent=2)),
        ("notes.md", "# Notes from the call\n\n#### fix the bug\n"),  # Markdown, not Aider's history
    ],
)  # fmt: skip
def test_an_unknown_file_is_refused_naming_the_formats_tried(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    before = path.read_bytes()
    for output in _refusals(path):
        assert output.count("\n") == 1 and output.startswith("Error: Not a session file: ")
        assert all(label in output for label in AGENT_LABELS.values())
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_records_with_ids_but_no_parent_are_no_pi_excerpt(tmp_path: Path) -> None:
    path = _write(tmp_path / "log.jsonl", LOG_LINES)
    assert load_session(path).is_empty  # before: 40 roots, "agent pi"


def test_a_gemini_chat_file_is_never_a_damaged_pi_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "session-2026-05-01T10-00-9f1c.jsonl", GEMINI_LINES)
    assert load_session(path).is_empty  # the pi loader: no header, and no pi entries
    session = load_any(path)
    # refused, or read by a reader of its own (Gemini CLI) - never as pi with 121 roots
    assert session.is_empty or agent_of(session) != "pi"
