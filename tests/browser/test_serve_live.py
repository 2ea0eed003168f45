"""End to end: the real ``sessiontree serve`` process, Chromium on its pages, the test writing files."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import append_line, write_session
from tests.serve.process import Served, agent_folder, serve_process
from tests.store.helpers import assistant, entry, msg

KEY = "--home-dev-demo--/2026-02-16T10-20-34_demo.jsonl"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return agent_folder(tmp_path, KEY, turns=30)


@pytest.fixture
def served(folder: Path, tmp_path: Path) -> Iterator[Served]:
    with serve_process(folder / "sessions", folder, tmp_path / "cache") as s:
        yield s


def last_id(path: Path) -> str:
    ident: str = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])["id"]
    return ident


def open_live(pg: Page, url: str) -> None:
    pg.goto(url)
    pg.wait_for_selector("html[data-st-ready]")
    wait_js(pg, "document.documentElement.getAttribute('data-st-live') === 'open'")


def scroll_state(pg: Page) -> dict[str, Any]:
    state: dict[str, Any] = pg.evaluate(
        "(() => { const m = document.getElementById('st-main');"
        " return {top: m.scrollTop, height: m.scrollHeight, client: m.clientHeight}; })()"
    )
    return state


AT_BOTTOM = (
    "(() => { const m = document.getElementById('st-main');"
    " return m.scrollHeight - m.scrollTop - m.clientHeight < 2; })()"
)


IN_VIEW = (
    "(() => { const m = document.getElementById('st-main').getBoundingClientRect();"
    " const a = document.querySelector('article[data-id=\"ID\"]');"
    " if (!a) return false; const r = a.getBoundingClientRect();"
    " return r.top < m.bottom && r.bottom > m.top; })()"
)


def scroll_to_bottom(pg: Page) -> None:
    """Scroll to the end until it stays there over two frames (entries get their real height as they
    come into view, so the end moves while the reader gets there)."""
    wait_js(
        pg,
        "new Promise((done) => { const m = document.getElementById('st-main');"
        " m.scrollTop = m.scrollHeight; const height = m.scrollHeight;"
        " requestAnimationFrame(() => requestAnimationFrame(() => {"
        " const edge = document.querySelector('.st-edge-bottom');"
        " done((!edge || edge.hidden) && m.scrollHeight === height"
        " && m.scrollHeight - m.scrollTop - m.clientHeight < 2); })); })",
    )


def test_appended_entries_appear_without_reload_keeping_scroll(
    served: Served, folder: Path, page: Page, watch: Watch
) -> None:
    path = folder / "sessions" / KEY
    open_live(page, f"{served.url}/s/{quote(KEY)}")
    page.evaluate("window.__sameDocument = true")
    # Read somewhere in the middle: the view must not move when entries arrive.
    page.evaluate("document.getElementById('st-main').scrollTop = 400")
    wait_js(page, "document.getElementById('st-main').scrollTop === 400")
    parent = last_id(path)
    append_line(path, msg("live-u1", parent, "user", "a prompt typed while the page is open"))
    append_line(path, assistant("live-a1", "live-u1", "an answer streamed in live"))
    wait_js(page, "window.sessiontree.leafId === 'live-a1'")
    assert scroll_state(page)["top"] == 400
    assert page.evaluate("window.__sameDocument === true")  # no reload happened

    # At the bottom, the view follows the newest entry.
    scroll_to_bottom(page)
    wait_js(page, "!!document.querySelector('article[data-id=\"live-a1\"]')")
    append_line(path, msg("live-u2", "live-a1", "user", "and one more prompt"))

    wait_js(page, "!!document.querySelector('article[data-id=\"live-u2\"]')")
    wait_js(page, IN_VIEW.replace("ID", "live-u2"))
    assert "a prompt typed while the page is open" in page.inner_text("#st-messages")

    # A label written later re-labels its target.
    append_line(path, entry("label", "live-l1", "live-u2", targetId="live-u1", label="checkpoint"))
    wait_js(
        page,
        "(document.querySelector('article[data-id=\"live-u1\"] .st-label') || {}).textContent"
        " === 'checkpoint'",
    )
    assert page.evaluate("window.__sameDocument === true")
    assert watch.page_errors == [] and watch.console_errors == []
    assert all(r.startswith(served.url) for r in watch.requests)


def test_tool_result_fills_its_pending_call(served: Served, folder: Path, page: Page, watch: Watch) -> None:
    path = folder / "sessions" / KEY
    open_live(page, f"{served.url}/s/{quote(KEY)}")
    scroll_to_bottom(page)
    call = assistant("live-a2", last_id(path), "let me look")
    call["message"]["content"].append(
        {"type": "toolCall", "id": "live-call", "name": "bash", "arguments": {"command": "ls"}}
    )
    append_line(path, call)
    wait_js(page, "!!document.querySelector('.st-call[data-call-id=\"live-call\"]')")
    result = entry(
        "message",
        "live-r2",
        "live-a2",
        message={
            "role": "toolResult",
            "toolCallId": "live-call",
            "toolName": "bash",
            "content": [{"type": "text", "text": "README.md"}],
        },
    )
    append_line(path, result)
    wait_js(
        page,
        "(document.querySelector('.st-call[data-call-id=\"live-call\"]') || {}).dataset.status === 'success'",
    )
    # the call is one line ("bash ls 1 line"); opened, it shows the result that filled it
    assert page.inner_text('.st-call[data-call-id="live-call"] .st-call-outcome') == "1 line"
    page.click('.st-call[data-call-id="live-call"] .st-call-head')
    assert "README.md" in page.inner_text('.st-call[data-call-id="live-call"]')
    assert watch.page_errors == []


def test_rewritten_file_reloads_at_the_same_place(
    served: Served, folder: Path, page: Page, watch: Watch
) -> None:
    path = folder / "sessions" / KEY
    open_live(page, f"{served.url}/s/{quote(KEY)}")
    page.click("#st-filters button[data-filter='user-only']")
    wait_js(page, "window.sessiontree.filter === 'user-only'")
    leaf = page.evaluate("window.sessiontree.leafId")
    page.evaluate("window.__oldDocument = true")
    # An atomic rewrite (temp file + rename), as pi does when it deletes a branch.
    temp = path.with_name("rewrite.tmp")
    temp.write_bytes(path.read_bytes())
    with page.expect_navigation(timeout=120_000):
        temp.replace(path)
    page.wait_for_selector("html[data-st-ready]")
    wait_js(page, "window.sessiontree.filter === 'user-only'")
    assert page.evaluate("window.__oldDocument === undefined")  # re-rendered ...
    assert page.evaluate("window.sessiontree.leafId") == leaf  # ... at the same leaf
    assert watch.page_errors == []


def test_new_session_appears_on_the_open_index(
    served: Served, folder: Path, page: Page, watch: Watch
) -> None:
    page.goto(served.url + "/")
    page.wait_for_selector(".st-session")
    wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
    page.fill("#st-filter", "fresh")
    write_session(folder / "sessions" / "--work-fresh--" / "2026-03-01_fresh.jsonl", "fresh", "/work/fresh",
                  msg("u2", "a1", "user", "brand new session"))  # fmt: skip
    page.wait_for_selector("li.st-session:not([hidden]) >> text=hello from fresh")
    # the filter still applies to what arrived: the demo session stays hidden
    assert page.locator(f"li.st-session[data-key='{KEY}']").is_hidden()
    assert page.input_value("#st-filter") == "fresh"
    page.click("text=hello from fresh")
    page.wait_for_selector("html[data-st-ready]")
    assert "brand new session" in page.inner_text("#st-messages")
    assert watch.page_errors == [] and watch.console_errors == []


def test_pending_count_fills_in_on_the_open_index(
    served: Served, folder: Path, page: Page, watch: Watch
) -> None:
    """A cold server lists the generated session from its prefix (count pending); the open page
    receives its exact count from the background pass over the event stream (issue 21.6)."""
    path = folder / "sessions" / KEY
    lines = path.read_text(encoding="utf-8").splitlines()
    expected = sum(1 for line in lines if line.strip() and json.loads(line).get("type") == "message")
    # The server lists at start and reads pending files in the background: the first answer may
    # say "pending" (then the open page gets the exact count over the event stream) or be exact.
    response = page.goto(served.url + "/")
    assert response is not None and response.ok
    meta = page.locator(f"li.st-session[data-key='{KEY}'] .st-meta")
    wait_js(page, "!document.querySelector('.st-meta').textContent.includes('messages pending')")
    assert meta.inner_text().startswith(f"pi · 30 prompts · {expected} messages · ")
    assert watch.page_errors == [] and watch.console_errors == []
