"""Combined damage: an excerpt (no header) that also holds unreadable lines and lines that are not entries."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.store import load_session
from sessiontree.store.repair import describe_damage
from tests.conftest import GenSession


def _raw_entries(text: str) -> list[str]:
    """Ids of every line that parses as an entry, counted from the raw text."""
    ids = []
    for line in text.splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("id"), str) and value.get("type") != "session":
            ids.append(value["id"])
    return ids


def _damaged_excerpt(source: Path, out: Path) -> str:
    """Lines 40-120 of a session (no header; the first entry's parent is not in the file), one of
    them cut short, a number, an array and a stray object among them."""
    lines = source.read_text(encoding="utf-8").splitlines()[40:120]
    lines[12] = lines[12][: len(lines[12]) // 2]  # a crash cut this line: its entry is lost
    lines.insert(0, "42")
    lines.insert(30, '["not", "an", "entry"]')
    lines.insert(50, '{"note": "pasted from a log"}')
    text = "\n".join(lines) + "\n"
    out.write_text(text, encoding="utf-8")
    return text


def test_a_damaged_excerpt_loads_every_readable_entry(gen_session: GenSession, tmp_path: Path) -> None:
    path = tmp_path / "2026-03-01T10-00-00-000Z_cut-0002.jsonl"
    text = _damaged_excerpt(gen_session(40), path)
    session = load_session(path)
    assert not session.is_empty and session.id == "cut-0002"
    expected = _raw_entries(text)
    assert len(expected) > 60
    assert [e["id"] for e in session.entries if isinstance(e.get("id"), str)] == expected
    assert len(session.tree.roots) == 1  # the entries after the lost line are attached, not a new root
    assert [b.lineno for b in session.bad_lines] == [1, 14, 31]
    kinds = [r.kind for r in session.repairs]
    assert kinds[0] == "header" and "reattached" in kinds
    damage = describe_damage(session.repairs, session.bad_lines) or ""
    assert "3 unreadable lines skipped (1, 14, 31)" in damage and "no session header" in damage
    assert load_any(path).entries == session.entries  # the reader every command uses


def test_inspect_export_and_dump_take_it(gen_session: GenSession, tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    text = _damaged_excerpt(gen_session(40), path)
    before = path.read_bytes()
    runner = CliRunner()
    result = runner.invoke(cli, ["inspect", "--json", str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["entries"] == len(_raw_entries(text)) + 1  # the stray object is carried, not dropped
    assert [b["line"] for b in data["bad_lines"]] == [1, 14, 31]
    assert data["repairs"][0]["kind"] == "header" and data["repairs"][0]["line"] == 2
    result = runner.invoke(cli, ["export", str(path), str(tmp_path / "cut.html")])
    assert result.exit_code == 0, result.output
    assert "damaged file, repaired in memory" in result.output
    result = runner.invoke(cli, ["dump", "--stdout", str(path)])
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == before


def test_a_file_mostly_of_non_entries_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text('{"level": "info"}\n{"level": "warn"}\n{broken\n{"type": "message", "id": "x"}\n')
    assert load_session(path).is_empty
    result = CliRunner().invoke(cli, ["inspect", str(path)])
    assert result.exit_code == 1 and "its first line is not a session header" in result.output


def test_the_write_commands_still_refuse_an_excerpt(gen_session: GenSession, tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl"
    _damaged_excerpt(gen_session(40), path)
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["fork", str(path)])
    assert result.exit_code == 1 and "its first line is not a session header" in result.output
    assert path.read_bytes() == before
