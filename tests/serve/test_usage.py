"""serve's /usage covers every served root (pi, Claude Code, Codex) and equals ``sessiontree stats``."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.serve.config import ServeConfig
from tests.pages.usage_records import data_totals, page_data
from tests.readers.helpers import CODEX_NEW, TOUR
from tests.serve.conftest import make_client
from tests.serve.process import serve_process

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TOTAL_FIELDS = ("input", "output", "cacheRead", "cacheWrite", "messages")


def _three_agents(tmp_path: Path) -> tuple[Path, Path, Path]:
    pi = tmp_path / "agent" / "sessions" / "--home-dev-app--"
    pi.mkdir(parents=True)
    shutil.copy(FIXTURES / "pi-roles-and-blocks.jsonl", pi / "2026-03-01T10-00-00-000Z_pi.jsonl")
    shutil.copy(FIXTURES / "omp-newer-entries.jsonl", pi / "2026-03-02T10-00-00-000Z_omp.jsonl")
    claude = tmp_path / ".claude" / "projects" / "-home-dev-tour"
    claude.mkdir(parents=True)
    shutil.copy(TOUR, claude / TOUR.name)
    codex = tmp_path / ".codex" / "sessions" / "2026" / "01" / "06"
    codex.mkdir(parents=True)
    shutil.copy(CODEX_NEW, codex / CODEX_NEW.name)
    return (
        tmp_path / "agent" / "sessions",
        tmp_path / ".claude" / "projects",
        tmp_path / ".codex" / "sessions",
    )


def _page_totals(html: str) -> dict[str, int]:
    return data_totals(page_data(html))


async def test_usage_page_over_three_agents_equals_stats(tmp_path: Path) -> None:
    roots = _three_agents(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "--agent-dir", str(tmp_path / "agent"),
            "stats", "--json", "--cache-dir", str(tmp_path / "stats-cache"),
            *(arg for root in roots for arg in ("--root", str(root))),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    stats = json.loads(result.output)["total"]
    config = ServeConfig(roots=roots, cache_dir=tmp_path / "cache", agent_dir=tmp_path / "agent", watch=False)
    async with make_client(config) as client:
        page = await client.get("/usage")
    assert page.status_code == 200
    shown = _page_totals(page.text)
    assert shown == {key: stats[key] for key in TOTAL_FIELDS}
    # Every agent counts: each file's messages are part of the total, and each has a few.
    for root in roots:
        alone = CliRunner().invoke(
            cli, ["stats", "--json", "--cache-dir", str(tmp_path / "one"), "--root", str(root)]
        )
        assert alone.exit_code == 0, alone.output
        assert 0 < json.loads(alone.output)["total"]["messages"] < stats["messages"]


def test_default_serve_usage_covers_every_default_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sessiontree serve`` with no folder: its /usage is ``sessiontree stats``'s, three agents in."""
    _three_agents(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    runner = CliRunner()
    args = ["--agent-dir", str(tmp_path / "agent"), "stats", "--json", "--cache-dir", str(tmp_path / "c1")]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)["total"]
    with (
        serve_process(None, tmp_path / "agent", tmp_path / "c2", home=tmp_path) as served,
        httpx.Client(timeout=60) as http,
    ):
        page = http.get(served.url + "/usage")
        index = http.get(served.url + "/")
    assert page.status_code == 200 and index.status_code == 200
    assert sorted(set(re.findall(r'class="st-agent">([^<]*)<', index.text))) == ["Claude Code", "Codex CLI"]
    assert _page_totals(page.text) == {key: stats[key] for key in TOTAL_FIELDS}
