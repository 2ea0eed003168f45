"""The served index page in Chromium: search as you type (no reload), a hit opens its entry, usage page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.process import serve_process
from tests.store.helpers import assistant, header, msg

pytestmark = pytest.mark.browser


def _session(path: Path, sid: str, words: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    reply = assistant("a2", "u2")
    reply["message"]["usage"] = {
        "input": 10,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "cost": {"total": 0.5},
    }
    lines = [
        header(sid, cwd="/work/demo", title=f"Session {sid}"),
        msg("u1", None, "user", "first question"),
        assistant("a1", "u1"),
        msg("u2", "a1", "user", f"then {words} here"),
        reply,
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_typing_shows_hits_and_a_hit_opens_its_entry(page: Page, watch: Watch, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    _session(root / "--work-demo--" / "one.jsonl", "s1", "a zqkingfisher sighting")
    _session(root / "--work-demo--" / "two.jsonl", "s2", "nothing to see")
    with serve_process(root, agent, tmp_path / "cache") as served:
        page.goto(served.url + "/")
        page.evaluate("window.__sameDocument = true")
        page.fill("#st-filter", "zqkingf*")
        wait_js(page, "document.querySelectorAll('#st-fulltext .st-fulltext-hit').length === 1")
        assert page.evaluate("window.__sameDocument") is True  # no reload
        hit = page.locator("#st-fulltext .st-fulltext-hit")
        assert hit.locator("mark").inner_text().lower() == "zqkingfisher"
        link = hit.locator("a")
        assert (link.get_attribute("href") or "").endswith("?targetId=u2")
        page.fill("#st-filter", "")
        wait_js(page, "document.querySelectorAll('#st-fulltext .st-fulltext-hit').length === 0")
        page.fill("#st-filter", "zqkingfisher")
        wait_js(page, "document.querySelectorAll('#st-fulltext .st-fulltext-hit').length === 1")
        page.locator("#st-fulltext .st-fulltext-hit a").click()
        page.wait_for_selector("html[data-st-ready]")
        assert "targetId=u2" in page.url
        wait_js(page, "!!document.querySelector('[data-id=\"u2\"]')")
        page.goto(served.url + "/")
        page.locator("nav.st-nav a", has_text="Usage").click()
        page.wait_for_url("**/usage")
        wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")  # the dashboard
        assert page.locator("#st-chart svg").count() == 1
        assert (page.locator("table.st-top a").first.get_attribute("href") or "").startswith("/s/")
    assert watch.page_errors == [] and watch.dialogs == []
    assert all(url.startswith(served.url) for url in watch.requests)
