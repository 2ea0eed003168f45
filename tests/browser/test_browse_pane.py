"""The sessions pane in Chromium through a real ``serve`` process: the project's sessions newest
first, the next one by key, a dot and a count for a session that grew, the unseen marker."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import append_line
from tests.serve.process import serve_process
from tests.store.helpers import assistant, header, msg

pytestmark = pytest.mark.browser


def _write(path: Path, sid: str, cwd: str, hours_ago: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header(sid, cwd=cwd, title=f"Session {sid}"), msg("u1", None, "user", f"question of {sid}")]
    lines.append(assistant("a1", "u1"))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stamp = time.time() - hours_ago * 3600
    os.utime(path, (stamp, stamp))


def _keys(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-browse .st-browse-row", "rs => rs.map(r => r.dataset.key)")


def test_the_pane_lists_opens_next_and_marks_what_grew(page: Page, watch: Watch, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    demo = root / "--work-demo--"
    _write(demo / "new.jsonl", "new", "/work/demo", 1)
    _write(demo / "mid.jsonl", "mid", "/work/demo", 2)
    _write(demo / "old.jsonl", "old", "/work/demo", 3)
    _write(root / "--work-other--" / "else.jsonl", "else", "/work/other", 0.5)
    with serve_process(root, agent, tmp_path / "cache") as served:
        page.goto(served.url + "/s/--work-demo--/new.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        assert _keys(page) == [
            "--work-demo--/new.jsonl",
            "--work-demo--/mid.jsonl",
            "--work-demo--/old.jsonl",
        ]
        current = page.locator("#st-browse a[aria-current=page]")
        assert current.inner_text().startswith("Session new")
        assert "1 message" not in page.inner_text("#st-browse") and "2 messages" in page.inner_text(
            "#st-browse"
        )
        page.select_option("#st-browse .st-browse-scope", "all")
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 4")
        assert _keys(page)[0] == "--work-other--/else.jsonl"
        assert int(page.get_attribute("#st-browse", "data-draw-ms") or "999") < 100
        page.select_option("#st-browse .st-browse-scope", "project")
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 3")
        page.keyboard.press("Alt+ArrowDown")
        page.wait_for_url("**/mid.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        page.keyboard.press("Alt+ArrowUp")
        page.wait_for_url("**/new.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        # Another session grows: its dot lights and its new message is counted, live.
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        append_line(demo / "old.jsonl", {**msg("u2", "a1", "user", "a late question"), "timestamp": now})
        grew = '#st-browse .st-browse-row.st-browse-grew[data-key="--work-demo--/old.jsonl"]'
        page.wait_for_selector(grew, timeout=30_000)
        assert page.locator(grew + " .st-browse-dot").count() == 1
        assert page.inner_text(grew + " .st-browse-new") == "1 new"
        assert page.locator("#st-browse .st-browse-grew").count() == 1
        page.click(grew + " a")
        page.wait_for_url("**/old.jsonl")
        page.wait_for_selector("html[data-st-ready]")
        wait_js(page, "document.documentElement.getAttribute('data-st-unseen') === 'u2'")
        marker = page.locator('#st-messages .st-entry[data-id="u2"]')
        marker.wait_for()
        content = marker.evaluate("e => getComputedStyle(e, '::before').content")
        assert "New since your last visit" in content
        assert page.locator('#st-messages .st-entry[data-id="u1"]').evaluate(
            "e => getComputedStyle(e, '::before').content"
        ) in ("none", "normal")
        page.wait_for_selector("#st-browse a[aria-current=page]")
        assert page.locator("#st-browse .st-browse-grew").count() == 0  # seen now
    assert watch.page_errors == []
    assert all(url.startswith(served.url) for url in watch.requests)
