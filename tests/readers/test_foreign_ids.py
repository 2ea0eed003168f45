"""Claude Code and Codex CLI sessions named by an id prefix, and listed beside ours."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from tests.conftest import GenSession
from tests.readers.helpers import TOUR, populate_home

CLAUDE_ID = TOUR.stem  # 5e55a0b1-0000-4000-8000-00000000000a
CODEX_ID = "019b0000-aaaa-7bbb-8ccc-000000000001"


def test_an_id_prefix_finds_claude_and_codex_sessions(
    isolated_agent_dir: Path, gen_session: GenSession, tmp_path: Path
) -> None:
    populate_home(isolated_agent_dir, gen_session)
    runner = CliRunner()
    claude = runner.invoke(cli, ["inspect", "--json", CLAUDE_ID[:8]])
    assert claude.exit_code == 0, claude.output
    assert json.loads(claude.stdout)["id"] == CLAUDE_ID
    codex = runner.invoke(cli, ["inspect", "--json", "019b0000-aaaa"])
    assert codex.exit_code == 0, codex.output
    assert json.loads(codex.stdout)["agent"] == "codex"
    out = tmp_path / "tour.html"
    assert runner.invoke(cli, ["export", CLAUDE_ID[:13], str(out)]).exit_code == 0
    assert "Parser tour" in out.read_text(encoding="utf-8")
    dumped = runner.invoke(cli, ["dump", "--stdout", CODEX_ID[:10]])
    assert dumped.exit_code == 0 and "Clock added with increments." in dumped.stdout
    missing = runner.invoke(cli, ["inspect", "ffffeeee"])
    assert missing.exit_code == 1
    assert (
        "No session id starts with 'ffffeeee'" in missing.output
        and "Claude Code or Codex CLI" in missing.output
    )
    # the write commands never take another agent's session, by id either
    fork = runner.invoke(cli, ["fork", CLAUDE_ID[:8]])
    assert fork.exit_code == 1 and "No session id starts with" in fork.output


def test_list_covers_every_root_with_the_agent(isolated_agent_dir: Path, gen_session: GenSession) -> None:
    populate_home(isolated_agent_dir, gen_session)
    result = CliRunner().invoke(cli, ["list", "--all"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["AGENT", "ID"]
    agents = sorted(line.split()[0] for line in lines[1:])
    assert agents == ["claude", "codex", "pi"]
    data = json.loads(CliRunner().invoke(cli, ["list", "--all", "--json"]).stdout)
    assert sorted((d["agent"], d["id"]) for d in data)[:2] == [("claude", CLAUDE_ID), ("codex", CODEX_ID)]
    only = json.loads(CliRunner().invoke(cli, ["list", "--all", "--json", "--agent", "codex"]).stdout)
    assert [d["agent"] for d in only] == ["codex"]
