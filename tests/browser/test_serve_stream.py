"""The streamed session page of a real ``sessiontree serve``: its first screen first, then the viewer."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from sessiontree.exporter.fragment_cache import FILE_NAME
from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import append_line
from tests.serve.process import Served, agent_folder, serve_process
from tests.store.helpers import msg

pytestmark = pytest.mark.browser

KEY = "--home-dev-demo--/2026-02-16T10-20-34_demo.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return agent_folder(tmp_path, KEY, turns=150)


@pytest.fixture
def served(folder: Path, tmp_path: Path) -> Iterator[Served]:
    with serve_process(folder / "sessions", folder, tmp_path / "cache") as s:
        yield s


def lines(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "sessions" / KEY).read_text().splitlines()]


def first_prompt(folder: Path) -> str:
    text = next(e["message"]["content"] for e in lines(folder) if e.get("message", {}).get("role") == "user")
    return str(text if isinstance(text, str) else text[0]["text"]).split("\n")[0][:40]


def first_prompt_title(folder: Path) -> str:
    """The header's title of the generated session (its header names it)."""
    return str(lines(folder)[0]["title"])


class HeldCache:
    """The fragment cache's file locked by this test: the server's full render waits on it.

    The server opens the cache only for the full render, after the head and the path's first
    screen went out; while this lock is held (SQLite's busy wait: up to 30 s) the response stays
    open, so what the browser shows meanwhile came from the streamed start alone.
    """

    def __init__(self, cache_dir: Path) -> None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(cache_dir / FILE_NAME, isolation_level=None)
        self.db.execute("pragma journal_mode=delete")
        self.db.execute("create table if not exists held (x)")
        self.db.execute("begin exclusive")

    def release(self) -> None:
        self.db.execute("rollback")
        self.db.close()


def test_the_first_prompt_shows_before_the_last_entry_arrives(
    served: Served, folder: Path, tmp_path: Path, page: Page, watch: Watch
) -> None:
    held = HeldCache(tmp_path / "cache")
    try:
        page.goto(f"{served.url}/s/{quote(KEY)}", wait_until="commit")
        prompt = page.locator("#st-messages article.st-user").first
        prompt.wait_for(state="visible", timeout=25_000)  # inside the server's 30 s wait
        assert first_prompt(folder) in prompt.inner_text()
        # Still open: the entry data has not all come (it does not parse yet) and no viewer ran;
        # what shows is the streamed first screen.
        incomplete = (
            "(() => { try { JSON.parse(document.getElementById('st-data').textContent); return false; }"
            " catch (_) { return true; } })()"
        )
        assert page.evaluate(incomplete) is True
        assert page.evaluate("typeof window.sessiontree") == "undefined"
        assert page.evaluate("document.documentElement.hasAttribute('data-st-ready')") is False
        # The header's identity came with the first screen; its statistics not yet.
        assert page.locator("#st-header .st-title").inner_text() == first_prompt_title(folder)
        assert page.locator("#st-header .st-cwd").count() == 1
        assert page.locator("#st-header .st-counts, #st-header .st-tokens-total").count() == 0
    finally:
        held.release()
    page.wait_for_selector("html[data-st-ready]", timeout=60_000)
    wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
    # The whole header followed the data and took the first one's place (the server's links kept).
    assert page.locator("#st-header .st-counts").count() == 1
    assert page.locator("#st-header .st-title").count() == 1
    assert page.locator("#st-header .st-serve-links").count() == 1
    assert page.evaluate("typeof window.sessiontreeServe.generation") == "string"
    # The viewer drew the messages in the preview's place: the first prompt once, now with its index.
    first_id = next(e["id"] for e in lines(folder) if e.get("message", {}).get("role") == "user")
    assert page.locator(f'#st-messages article[data-id="{first_id}"]').count() == 1
    assert page.locator(f'#st-messages article[data-id="{first_id}"][data-idx]').count() == 1

    # Filters work on the streamed page.
    page.click('[data-filter="user-only"]')
    assert page.evaluate("window.sessiontree.filter") == "user-only"
    wait_js(page, "document.querySelectorAll('#st-messages article.st-assistant').length === 0")
    assert page.locator("#st-messages article.st-user").count() > 0
    page.click('[data-filter="default"]')

    # Live appends reach it.
    path = folder / "sessions" / KEY
    last = lines(folder)[-1]["id"]
    append_line(path, msg("stream-u1", str(last), "user", "typed while the streamed page is open"))
    wait_js(page, "!!document.querySelector('article[data-id=\"stream-u1\"]')")
    assert watch.page_errors == [] and watch.console_errors == []
    assert all(r.startswith(served.url) for r in watch.requests)


def test_deep_links_open_their_entry_on_the_streamed_page(served: Served, folder: Path, page: Page) -> None:
    entries = lines(folder)
    users = [e for e in entries if e.get("message", {}).get("role") == "user"]
    target = str(users[len(users) // 2]["id"])
    link = f"{served.url}/s/{quote(KEY)}?leafId={quote(str(entries[-1]['id']))}&targetId={quote(target)}"
    page.goto(link, wait_until="commit")
    # The streamed first screen already starts near the target.
    page.locator(f'#st-messages article[data-id="{target}"]').first.wait_for(timeout=60_000)
    page.wait_for_selector("html[data-st-ready]", timeout=60_000)
    assert page.evaluate("window.sessiontree.leafId") == entries[-1]["id"]
    wait_js(page, f"!!document.querySelector('#st-messages article.st-target[data-id=\"{target}\"]')")
