"""serve's /usage covers every served root (pi, Claude Code, Codex) and equals ``sessiontree stats``."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from sessiontree.archive.search import INDEX_FILE
from sessiontree.cli import cli
from sessiontree.pages.usage_page import render_usage_page
from sessiontree.serve import archive_routes
from sessiontree.serve.config import ServeConfig
from tests.pages.usage_records import data_totals, page_data
from tests.readers.helpers import CODEX_NEW, TOUR
from tests.serve.conftest import append_line, make_client
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
        assert (await client.get("/api/sessions")).status_code == 200  # listed: /usage waits not
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
        # A fresh server whose first listing takes over FIRST_LISTING_WAIT (a loaded machine) says it
        # is still looking, with no totals, and the page reloads itself: read it once counted (a
        # state; the ceiling is a hung server's, not a timing assertion).
        ceiling = time.monotonic() + 180
        while "data-counting" in (page := http.get(served.url + "/usage")).text:
            assert time.monotonic() < ceiling, "the count never ended"
            time.sleep(0.1)
        index = http.get(served.url + "/")
    assert page.status_code == 200 and index.status_code == 200
    assert sorted(set(re.findall(r'class="st-agent">([^<]*)<', index.text))) == [
        "Claude Code",
        "Codex CLI",
        "pi",
    ]
    assert _page_totals(page.text) == {key: stats[key] for key in TOTAL_FIELDS}


def _reply(parent: str, entry_id: str) -> dict[str, object]:
    usage = {"input": 7, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
    message = {"role": "assistant", "content": [], "provider": "p", "model": "m", "usage": usage}
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-03-03T10:00:00.000Z",
        "message": message,
    }


async def test_usage_page_is_made_again_only_when_the_usage_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = _three_agents(tmp_path)
    made: list[int] = []
    real = render_usage_page

    def counted(*args: Any, **kwargs: Any) -> str:
        made.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(archive_routes, "render_usage_page", counted)
    cache = tmp_path / "cache"
    config = ServeConfig(roots=roots, cache_dir=cache, agent_dir=tmp_path / "agent", watch=False)
    session = next(roots[0].rglob("*_pi.jsonl"))
    async with make_client(config) as client:
        assert (await client.get("/api/sessions")).status_code == 200  # listed: /usage waits not
        first = (await client.get("/usage")).text
        again = (await client.get("/usage")).text
        assert again == first and len(made) == 1  # nothing changed: the page made once
        before = data_totals(page_data(first))["messages"]
        last = json.loads(session.read_text(encoding="utf-8").splitlines()[-1])["id"]
        append_line(session, _reply(last, "late-1"))  # our own update finds it
        grown = (await client.get("/usage")).text
        assert data_totals(page_data(grown))["messages"] == before + 1 and len(made) == 2
        append_line(session, _reply("late-1", "late-2"))
        # The search index is never made for it: /usage reads the listing's usage rows.
        assert not (cache / INDEX_FILE).exists()
        after = (await client.get("/usage")).text
        assert data_totals(page_data(after))["messages"] == before + 2 and len(made) == 3
    # The cached page is byte-identical to one made fresh from the same listing cache (once the
    # restarted server's first listing is made: before, it answers from the usage store and says
    # it is still looking, ``test_usage_restart``).
    async with make_client(config) as fresh:
        assert (await fresh.get("/api/sessions")).status_code == 200
        assert (await fresh.get("/usage")).text == after
