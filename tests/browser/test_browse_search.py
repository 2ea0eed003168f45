"""Search exact and complete, and every page linking home: Chromium through a real ``serve`` process."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.process import serve_process
from tests.store.helpers import assistant, header, msg

pytestmark = pytest.mark.browser

WORD = "zqheronlake"


def _sessions(root: Path) -> dict[str, int]:
    """Five sessions holding WORD 46 times in all (more than one page and the old cap of 20)."""
    planted: dict[str, int] = {}
    for n, times in enumerate((20, 12, 8, 5, 1)):
        path = root / "--work-demo--" / f"s{n}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [header(f"s{n}", cwd="/work/demo", title=f"Session {n}")]
        parent = None
        for i in range(times):
            lines.append(msg(f"u{i}", parent, "user", f"question {i} about the {WORD} survey"))
            lines.append(assistant(f"a{i}", f"u{i}"))
            parent = f"a{i}"
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        planted[path.name] = times
    return planted


def _cli_count(root: Path, agent: Path, cache: Path) -> int:
    out = subprocess.run(
        [sys.executable, "-m", "sessiontree", "--agent-dir", str(agent), "search", WORD, "--json",
         "--limit", "100000", "--root", str(root), "--cache-dir", str(cache)],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return len(json.loads(out))


def test_search_total_equals_the_cli_and_every_hit_is_reached(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    planted = _sessions(root)
    cli = _cli_count(root, agent, tmp_path / "cli-cache")
    assert cli == sum(planted.values()) == 46
    with serve_process(root, agent, tmp_path / "cache") as served:
        api = page.request.get(served.url + f"/api/search?q={WORD}").json()
        assert api["total"] == cli and api["sessions"] == 5 and len(api["hits"]) == 20  # a page, not a cap
        page.goto(served.url + "/s/--work-demo--/s4.jsonl")
        page.wait_for_selector("html[data-st-ready]")
        page.keyboard.press("Control+k")  # from any page: the search page
        page.wait_for_url("**/search*")
        page.fill("#st-q", WORD)
        wait_js(page, "document.querySelector('#st-fulltext .st-fulltext-status').textContent.includes('46')")
        assert page.inner_text("#st-fulltext .st-fulltext-status") == "46 messages in 5 sessions"
        # Scrolled to the end (again as each page of hits comes), the list grows to the last hit.
        deadline = time.monotonic() + 120  # a bound for a stuck list, not a timing assertion
        while page.locator(".st-fulltext-hit").count() < 46:
            assert time.monotonic() < deadline, "the list never grew to the last hit"
            page.locator("#st-fulltext").evaluate("e => e.lastElementChild.scrollIntoView()")
            page.wait_for_timeout(200)
        wait_js(page, "document.querySelectorAll('#st-fulltext .st-fulltext-hit').length === 46")
        assert page.locator(".st-fulltext-more").is_hidden()
        groups = page.eval_on_selector_all(
            ".st-fulltext-group",
            "gs => gs.map(g => [g.querySelector('h3 a').textContent,"
            " g.querySelectorAll('.st-fulltext-hit').length])",
        )
        assert sorted(n for _t, n in groups) == sorted(planted.values())  # grouped by session
        hrefs = page.eval_on_selector_all(".st-fulltext-hit a", "as => as.map(a => a.getAttribute('href'))")
        assert len(set(hrefs)) == 46 and all(h.startswith("/s/") and "?targetId=" in h for h in hrefs)
        page.locator(".st-fulltext-hit a").last.click()
        page.wait_for_selector("html[data-st-ready]")
        assert "targetId=" in page.url
    assert watch.page_errors == []
    assert all(url.startswith(served.url) for url in watch.requests)


def test_every_served_page_links_home(page: Page, watch: Watch, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    _sessions(root)
    with serve_process(root, agent, tmp_path / "cache") as served:
        for path in ("/", "/s/--work-demo--/s0.jsonl", "/usage", "/search"):
            page.goto(served.url + path)
            nav = page.locator("nav.st-nav")
            assert [a.get_attribute("href") for a in nav.locator("a").all()] == ["/", "/usage", "/search"], (
                path
            )
            assert nav.locator("[aria-current=page]").count() == (0 if path.startswith("/s/") else 1)
        page.goto(served.url + "/usage")
        page.locator("nav.st-nav a", has_text="All sessions").click()
        page.wait_for_url(served.url + "/")
        assert page.locator(".st-session").count() == 5
    assert watch.page_errors == []
