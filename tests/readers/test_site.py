"""build over several roots: our sessions and the other agents' folders in one site, agent shown."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from tests.conftest import GenSession
from tests.readers.helpers import TOUR, populate_home, st_data


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_covers_the_default_roots_and_shows_each_agent(
    isolated_agent_dir: Path, gen_session: GenSession, tmp_path: Path
) -> None:
    home = populate_home(isolated_agent_dir, gen_session)
    before = _snapshot(home / ".claude") | _snapshot(home / ".codex")
    site = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build", "-o", str(site), "--no-search", "-q"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("Including") == 1
    assert (
        f"Including Claude Code sessions from {home / '.claude/projects'} and Codex CLI sessions from "
        in (result.stderr)
    )
    assert "Built" in result.stdout and "3 rendered" in result.stdout
    pages = sorted(str(p.relative_to(site / "sessions")) for p in (site / "sessions").rglob("*.html"))
    # each session's page, and the tour's subagent transcript on a page of its own beside its session's
    assert [p.split("/")[0] for p in pages if "~agent-" not in p] == ["claude", "codex", "pi"]
    assert [p.rsplit("/", 1)[-1] for p in pages if "~agent-" in p] == [f"{TOUR.stem}~agent-a1b2c3d.html"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert sorted(re.findall(r'class="st-agent">([^<]*)<', index)) == ["Claude Code", "Codex CLI", "pi"]
    tour_page = next(site.rglob(f"{TOUR.stem}.html")).read_text(encoding="utf-8")
    data = st_data(tour_page)
    assert data["leafId"] == load_any(TOUR).leaf_id
    assert _snapshot(home / ".claude") | _snapshot(home / ".codex") == before  # read only

    again = CliRunner().invoke(cli, ["build", "-o", str(site), "--no-search", "-q"])
    assert again.exit_code == 0 and "0 rendered, 3 unchanged" in again.stdout


def test_build_one_agent_or_chosen_roots(
    isolated_agent_dir: Path, gen_session: GenSession, tmp_path: Path
) -> None:
    home = populate_home(isolated_agent_dir, gen_session)
    result = CliRunner().invoke(
        cli, ["build", "-o", str(tmp_path / "a"), "--no-search", "-q", "--agent", "codex"]
    )
    assert result.exit_code == 0, result.output
    assert "Claude Code" not in result.stderr and "1 rendered" in result.stdout
    root = home / ".claude" / "projects"
    result = CliRunner().invoke(cli, ["build", str(root), "-o", str(tmp_path / "b"), "--no-search", "-q"])
    assert result.exit_code == 0 and "Including" not in result.stderr
    assert sorted(p.name for p in (tmp_path / "b" / "sessions").rglob("*.html")) == [
        f"{TOUR.stem}.html",
        f"{TOUR.stem}~agent-a1b2c3d.html",
    ]
