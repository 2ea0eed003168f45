"""The one SESSION argument (a .jsonl path or an id prefix) on every command that takes a session."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from sessiontree.cli import cli
from sessiontree.cli.base import LAZY_COMMANDS, SESSION, Context, SessionType
from sessiontree.store.discovery import session_dir_for
from tests.share import conftest as share_fixtures
from tests.share.conftest import FakeGh
from tests.store.helpers import assistant, header, msg, write_jsonl

fake_gh = share_fixtures.fake_gh
no_gh = share_fixtures.no_gh
temp_root = share_fixtures.temp_root


def add_session(agent: Path, cwd: str, session_id: str, prompt: str) -> Path:
    folder = session_dir_for(cwd, agent)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [header(session_id, cwd=cwd), msg("u1", None, "user", prompt), assistant("a1", "u1", "answer")]
    return write_jsonl(folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl", lines)


@pytest.fixture
def sessions(isolated_agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    monkeypatch.chdir(tmp_path)
    return {
        "unique": add_session(isolated_agent_dir, "/elsewhere/one", "7f3e9a10aaaa0001", "find me by id"),
        "twin1": add_session(isolated_agent_dir, "/elsewhere/two", "abcd000000000001", "twin one"),
        "twin2": add_session(isolated_agent_dir, "/elsewhere/three", "abcd000000000002", "twin two"),
    }


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def assert_one_line_error(result: Result, text: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("Error: ") and text in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_inspect_export_and_dump_take_an_id_prefix(sessions: dict[str, Path], tmp_path: Path) -> None:
    inspected = run("inspect", "--json", "7f3e")
    assert inspected.exit_code == 0, inspected.output
    assert json.loads(inspected.stdout)["id"] == "7f3e9a10aaaa0001"
    exported = run("export", "7f3e9a", str(tmp_path / "out.html"))
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "out.html").read_text().count("find me by id") >= 1
    dumped = run("dump", "--stdout", "7F3E")  # ids match whatever the case
    assert dumped.exit_code == 0 and "find me by id" in dumped.stdout


def test_share_takes_an_id_prefix(sessions: dict[str, Path], fake_gh: FakeGh, temp_root: Path) -> None:
    result = run("share", "--no-open", "7f3e")
    assert result.exit_code == 0, result.output
    assert "find me by id" in fake_gh.uploaded()


@pytest.mark.parametrize("command", [["inspect"], ["export"], ["dump", "--stdout"], ["share"], ["fork"]])
def test_an_ambiguous_or_unknown_prefix_is_one_clear_line(
    sessions: dict[str, Path], command: list[str], tmp_path: Path
) -> None:
    before = sorted(p.name for p in tmp_path.rglob("*"))
    ambiguous = run(*command, "abcd")
    assert_one_line_error(ambiguous, "Session id prefix 'abcd' matches 2 sessions")
    assert "abcd000000000001" in ambiguous.stderr and "abcd000000000002" in ambiguous.stderr
    assert_one_line_error(run(*command, "ffff"), "No session id starts with 'ffff'")
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # nothing written anywhere


def test_a_file_in_the_current_directory_is_a_path_even_without_a_slash(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    (tmp_path / "copy").write_bytes(sessions["unique"].read_bytes())
    result = run("inspect", "--json", "copy")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["id"] == "7f3e9a10aaaa0001"


def test_a_path_that_is_not_a_session_says_so(sessions: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "notes.jsonl").write_text("hello\n")
    for command in (["inspect"], ["export"], ["dump", "--stdout"], ["fork"]):
        result = run(*command, "notes.jsonl")
        assert_one_line_error(result, f"Not a session file: {tmp_path / 'notes.jsonl'} (its first line")


def test_session_dir_given_after_the_argument_still_scopes_the_lookup(
    sessions: dict[str, Path], tmp_path: Path
) -> None:
    # Only one of the twins is in this folder: there the prefix is not ambiguous.
    result = run("fork", "abcd", "--session-dir", str(sessions["twin2"].parent))
    assert result.exit_code == 0, result.output
    forked = Path(result.stdout.strip())
    assert json.loads(forked.read_text().splitlines()[0])["parentSession"] == "abcd000000000002"


def test_the_type_converts_outside_a_command_too(sessions: dict[str, Path], isolated_agent_dir: Path) -> None:
    ctx = click.Context(cli, obj=Context(isolated_agent_dir))
    assert SESSION.convert("7f3e", None, ctx) == sessions["unique"]
    assert SESSION.convert(sessions["twin1"], None, ctx) == sessions["twin1"]
    not_yet = Path(os.getcwd()) / "later.jsonl"
    assert SessionType(must_exist=False).convert("later.jsonl", None, ctx) == not_yet


def command_summaries(group: click.Group) -> dict[str, str]:
    # An 80-column terminal: click leaves 78 columns to its help text.
    ctx = click.Context(group, info_name="sessiontree", terminal_width=78)
    formatter = ctx.make_formatter()
    group.format_commands(ctx, formatter)
    rows = [line.split(None, 1) for line in formatter.getvalue().splitlines()[1:] if line.strip()]
    return {row[0]: row[1] for row in rows}


def test_help_summaries_are_whole_sentences() -> None:
    top = command_summaries(cli)
    assert set(top) == set(LAZY_COMMANDS)
    history = cli.get_command(click.Context(cli), "history")
    assert isinstance(history, click.Group)
    for name, summary in {**top, **command_summaries(history)}.items():
        assert not summary.endswith("..."), f"{name}: {summary}"
        assert summary.endswith("."), f"{name}: {summary}"
