"""A session its agent deleted stays in every many-session command once kept: listed once, marked
kept with the day its file went, found by search, counted by stats, exported by id, and a built
site keeps its page at the same address."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from sessiontree.archive.collection import Sources, pick_roots
from sessiontree.archive.keep.run import keep
from sessiontree.cli import cli
from sessiontree.site.manifest import load_manifest
from sessiontree.store.paths import default_agent_dir
from tests.keep.conftest import claude_session

PHRASE = "pelican-obsidian-turnip"
GONE_ID = "9a9a0001-0000-4000-8000-000000000001"
LIVE_ID = "9b9b0002-0000-4000-8000-000000000002"


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_deleted_session_stays_listed_searched_counted_exported_and_built(
    claude_root: Path, tmp_path: Path
) -> None:
    gone = claude_session(claude_root / "-home-dev-demo", GONE_ID, PHRASE, day="2026-01-05")
    claude_session(claude_root / "-home-dev-demo", LIVE_ID, "plain words", day="2026-01-06")
    site = tmp_path / "site"
    invoke("build", "-o", str(site), "--no-search", "-j", "1")
    pages_before = load_manifest(site).pages
    keys_before = {e.key for e in Sources(pick_roots(default_agent_dir(), [], existing=True), None).scan()}
    keep(pick_roots(default_agent_dir(), []))
    gone.unlink()
    keep(pick_roots(default_agent_dir(), []))

    listed = json.loads(invoke("list", "--all", "--json"))
    assert sorted(s["id"] for s in listed) == [GONE_ID, LIVE_ID]  # once each
    kept = next(s for s in listed if s["id"] == GONE_ID)
    assert kept["kept"] == date.today().isoformat() and kept["machine"]
    assert kept["modified"].startswith("2026-01-05")  # its own time, not the copy's
    assert "kept" not in next(s for s in listed if s["id"] == LIVE_ID)
    table = invoke("list", "--all")
    assert f"gone {date.today().isoformat()}" in table
    assert table.index("9b9b0002") < table.index("9a9a0001")  # sorted by its own last activity

    assert GONE_ID in invoke("search", PHRASE)
    stats = json.loads(invoke("stats", "--json", "--by", "session"))
    assert len(stats["groups"]) == 2 and stats["total"]["messages"] == 6  # 3 answers with usage each

    out = tmp_path / "gone.html"
    invoke("export", GONE_ID, str(out))
    assert PHRASE in out.read_text(encoding="utf-8")

    keys_after = {e.key for e in Sources(pick_roots(default_agent_dir(), [], existing=True), None).scan()}
    assert keys_after == keys_before  # the kept copy is listed under the key the live file had
    invoke("build", "-o", str(site), "--no-search", "-j", "1")
    pages_after = load_manifest(site).pages
    assert pages_after.keys() == pages_before.keys()
    (page_key,) = [k for k in pages_after if GONE_ID in k]
    assert PHRASE in (site / pages_after[page_key].page).read_text(encoding="utf-8")


def test_the_index_page_marks_a_kept_session_and_its_filter_finds_the_machine(claude_root: Path) -> None:
    from sessiontree.pages.index_page import render_index_groups

    gone = claude_session(claude_root / "-home-dev-demo", GONE_ID, PHRASE)
    claude_session(claude_root / "-home-dev-demo", LIVE_ID, "plain words")
    keep(pick_roots(default_agent_dir(), []))
    gone.unlink()
    keep(pick_roots(default_agent_dir(), []))
    entries = Sources(pick_roots(default_agent_dir(), [], existing=True), None).scan()
    html = render_index_groups(entries, lambda e: e.key + ".html")
    day = date.today().isoformat()
    assert html.count('class="st-kept"') == 1 and f"kept, gone {day}" in html
    kept_row = html[html.index(f'data-key="{next(e.key for e in entries if e.id == GONE_ID)}"') :]
    assert "st-kept" in kept_row.split("</li>", 1)[0]


def test_serve_shows_a_deleted_session_marked_kept_and_its_page(claude_root: Path, tmp_path: Path) -> None:
    import httpx

    from tests.serve.process import serve_process

    gone = claude_session(claude_root / "-home-dev-demo", GONE_ID, PHRASE)
    claude_session(claude_root / "-home-dev-demo", LIVE_ID, "plain words")
    keep(pick_roots(default_agent_dir(), []))
    key = next(
        e.key
        for e in Sources(pick_roots(default_agent_dir(), [], existing=True), None).scan()
        if e.id == GONE_ID
    )
    gone.unlink()
    keep(pick_roots(default_agent_dir(), []))
    with (
        serve_process(None, default_agent_dir(), tmp_path / "cache", home=Path.home()) as served,
        httpx.Client(timeout=300) as http,
    ):
        index = http.get(served.url + "/").text
        assert f"kept, gone {date.today().isoformat()}" in index and "9a9a0001" in index
        page = http.get(f"{served.url}/s/{key}")  # the address it had while its file was there
        assert page.status_code == 200 and PHRASE in page.text
