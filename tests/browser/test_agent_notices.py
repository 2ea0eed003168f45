"""Agents' lines that are not conversation, as Chromium shows them: Claude Code's API errors, local
commands, task notifications and hooks; Codex CLI's interruptions, rollbacks and web searches."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.pages.export import export_to_file
from tests.browser.conftest import Watch, open_page
from tests.readers.test_claude_events import EVENTS
from tests.readers.test_codex_events import ROLLBACK

pytestmark = pytest.mark.browser


def _open(page: Page, source: Path, tmp_path: Path) -> None:
    open_page(page, export_to_file(source, tmp_path / "page.html").as_uri())


def _entry(page: Page, entry_id: str) -> str:
    return page.inner_text(f'#st-messages [data-id="{entry_id}"]')


def test_claude_notices_are_shown_as_their_rows_say(page: Page, tmp_path: Path, watch: Watch) -> None:
    _open(page, EVENTS, tmp_path)
    error = page.locator('#st-messages [data-id="e-1"] .st-notice-error')
    assert error.is_visible()
    assert "API error 400: your current token plan not support model" in error.inner_text()
    assert "retry 3/10; 3 attempts" in error.inner_text()
    assert page.locator('#st-messages [data-id="e-2"]').count() == 0  # folded into e-1
    command = page.locator('#st-messages [data-id="lc-1"] .st-chip-command')
    assert command.is_visible() and command.inner_text().split() == ["Command", "/stats"]
    notification = _entry(page, "n-1")
    assert notification.startswith("Task notification") and "npm test" in notification
    assert "<task-notification>" not in page.inner_text("#st-messages")
    assert "lint.sh: 2 warnings" in _entry(page, "s-2")
    roles = page.eval_on_selector_all("#st-messages .st-entry.st-user", "els => els.map(e => e.dataset.id)")
    assert roles == ["u-1", "u-2"]  # only the typed prompts are User bubbles
    assert page.title().startswith("PolyDot renderer and SVG export")
    assert watch.page_errors == [] and watch.console_errors == []


def test_codex_rollback_interruption_and_search(page: Page, tmp_path: Path, watch: Watch) -> None:
    _open(page, ROLLBACK, tmp_path)
    shown = page.inner_text("#st-messages")
    assert "Write it as a separate module" not in shown  # undone: off the active path
    assert "Also add a readiness probe, in app.py" in shown
    search = page.locator('.st-call[data-tool="web_search"] .st-call-head')
    assert "Search" in search.inner_text() and "fastapi health check endpoint" in search.inner_text()
    rows = page.eval_on_selector_all("#st-tree [role=treeitem]", "els => els.map(e => e.dataset.id)")
    undone = page.locator("#st-tree .st-row", has_text="Write it as a separate module")
    assert undone.count() == 1 and undone.first.get_attribute("data-id") in rows
    undone.first.click()
    shown = page.inner_text("#st-messages")
    assert "Write it as a separate module" in shown and "Interrupted by the user" in shown
    assert "<turn_aborted>" not in shown
    assert watch.page_errors == [] and watch.console_errors == []
