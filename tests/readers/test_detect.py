"""Detection by content (never by file name), --agent forcing, and the write path refusing foreign files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.errors import ForeignSession, InvalidSession, SessionNotFound
from sessiontree.readers import detect_agent, load_any
from sessiontree.store.manager import SessionManager
from tests.readers.helpers import CLAUDE_FILES, CODEX_FILES, REAL, TOUR


@pytest.mark.parametrize(
    ("path", "agent"),
    [*((p, "claude") for p in CLAUDE_FILES), *((p, "codex") for p in CODEX_FILES),
     *((p, "pi") for p in sorted((REAL / "pi").glob("*.jsonl")))],
    ids=lambda v: v.name[-36:] if isinstance(v, Path) else v,
)  # fmt: skip
def test_detected_by_content_whatever_the_name(path: Path, agent: str, tmp_path: Path) -> None:
    renamed = tmp_path / "session.txt"
    shutil.copy(path, renamed)
    assert detect_agent(renamed) == agent


def test_unknown_files_and_missing_ones(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text('{"hello": 1}\nnot json\n')
    assert detect_agent(tmp_path / "x.jsonl") is None
    assert load_any(tmp_path / "x.jsonl").is_empty
    with pytest.raises(SessionNotFound):
        load_any(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidSession):
        load_any(tmp_path)


def test_agent_forces_a_reader(tmp_path: Path) -> None:
    forced = load_any(TOUR, "codex")  # a Claude file read as Codex: every line is an unknown one
    assert forced.header["agent"] == "codex"
    assert {e["type"] for e in forced.entries} == {"custom"}
    assert len(forced.entries) == len(TOUR.read_text().splitlines())
    result = CliRunner().invoke(cli, ["inspect", "--agent", "codex", str(TOUR)])
    assert result.exit_code == 0 and "Agent     codex 2" not in result.stdout and "codex" in result.stdout
    result = CliRunner().invoke(cli, ["inspect", "--agent", "pi", str(TOUR)])
    assert result.exit_code == 1 and "Not a session file" in result.stderr
    result = CliRunner().invoke(cli, ["inspect", "--agent", "claude", str(TOUR)])
    assert result.exit_code == 0 and "Agent     claude 2.1.3 (read only)" in result.stdout
    result = CliRunner().invoke(cli, ["inspect", "--agent", "nosuchagent", str(TOUR)])
    assert result.exit_code == 2 and "nosuchagent" in result.stderr
    result = CliRunner().invoke(cli, ["inspect", "--agent", "gemini", str(TOUR)])
    assert "Traceback" not in result.stdout + result.stderr and result.exit_code in (0, 1)


@pytest.fixture
def foreign(tmp_path: Path) -> list[Path]:
    copies = []
    for source in (TOUR, CODEX_FILES[0]):
        folder = tmp_path / source.stem
        folder.mkdir()
        copies.append(folder / source.name)
        shutil.copy(source, copies[-1])
    return copies


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", [["fork"], ["move", "NEWCWD"], ["resume"]])
def test_the_write_path_refuses_foreign_files(
    foreign: list[Path], command: list[str], tmp_path: Path
) -> None:
    for path in foreign:
        before = _snapshot(path.parent)
        args = [command[0], str(path), *(str(tmp_path / "elsewhere") for _ in command[1:])]
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 1, result.output
        assert "session: sessiontree only reads those" in result.stderr
        assert "Traceback" not in result.output
        assert _snapshot(path.parent) == before  # nothing written into the foreign folder


def test_the_manager_refuses_to_open_or_fork_a_foreign_file(foreign: list[Path], tmp_path: Path) -> None:
    for path in foreign:
        before = _snapshot(path.parent)
        with pytest.raises(ForeignSession):
            SessionManager.open(path)
        with pytest.raises(ForeignSession):
            SessionManager.fork_from(path, tmp_path, tmp_path / "sessions")
        assert _snapshot(path.parent) == before
