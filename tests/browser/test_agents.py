"""Claude Code and Codex CLI sessions exported and viewed in Chromium: the same tree viewer as ours."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.pages.export import export_to_file
from tests.browser.conftest import Watch, open_page
from tests.readers.helpers import CODEX_NEW, TOUR
from tests.readers.test_claude_rewind import REWIND

pytestmark = pytest.mark.browser


def shown_ids(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-messages .st-entry", "els => els.map(e => e.dataset.id)")


def row_ids(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-tree [role=treeitem]", "els => els.map(e => e.dataset.id)")


def _open(page: Page, source: Path, tmp_path: Path) -> None:
    out = export_to_file(source, tmp_path / "page.html")
    open_page(page, out.as_uri())


def test_claude_tree_branch_tools_thinking_images(page: Page, tmp_path: Path, watch: Watch) -> None:
    _open(page, TOUR, tmp_path)
    shown = shown_ids(page)
    assert shown[:2] == ["u-1", "a-1a"] and shown[-1] == "a-c4"
    assert "u-3" in shown and "u-2" not in shown  # the active branch is the file's last
    # the tree holds both the abandoned prompt and the subagent, off the active path
    rows = row_ids(page)
    assert {"u-2", "a-4", "sa-1", "sa-4"} <= set(rows)
    on_path = page.eval_on_selector_all(".st-row.st-on-path", "els => els.map(e => e.dataset.id)")
    assert "u-2" not in on_path and "u-3" in on_path
    # tool pairing: each result sits in its call's slot
    for call in ("toolu_read", "toolu_ls", "toolu_task", "toolu_edit"):
        block = page.locator(f'.st-call[data-call-id="{call}"]')
        assert block.get_attribute("data-status") == "success"
        assert block.locator(".st-call-result .st-result").count() == 1
    assert page.locator('[data-id="a-1a"] details.st-thinking').count() == 1
    for where in ('[data-id="u-1"] img.st-img', '.st-call[data-call-id="toolu_ls"] img.st-img'):
        assert (page.get_attribute(where, "src") or "").startswith("data:image/png;base64,")
    compaction = page.locator('#st-messages [data-id="c-1"]')
    assert "155,025 tokens before" in compaction.inner_text()
    assert watch.page_errors == [] and watch.console_errors == []
    assert all(url.startswith(("file:", "data:")) for url in watch.requests)


def test_claude_fork_and_subagent_are_branches_to_click(page: Page, tmp_path: Path) -> None:
    _open(page, TOUR, tmp_path)
    page.click('.st-row[data-id="a-4"]')
    shown = shown_ids(page)
    assert shown[-2:] == ["u-2", "a-4"] and "u-3" not in shown
    page.click('.st-row[data-id="sa-4"]')
    shown = shown_ids(page)
    assert shown[-3:] == ["sa-1", "sa-2", "sa-4"]  # the subagent's tool result sits in its call
    assert "a-2" in shown and "t-3" not in shown
    assert page.get_attribute('.st-call[data-call-id="toolu_s1"]', "data-status") == "error"


def test_claude_rewind_both_branches_to_click(page: Page, tmp_path: Path) -> None:
    _open(page, REWIND, tmp_path)
    shown = shown_ids(page)
    assert "u-3" in shown and "a-5" in shown and "u-2" not in shown  # the newest branch is shown
    assert {"u-2", "a-3"} <= set(row_ids(page))
    page.click('.st-row[data-id="a-3"]')
    shown = shown_ids(page)
    assert shown[:2] == ["u-1", "a-1"] and shown[-2:] == ["u-2", "a-3"] and "u-3" not in shown
    page.click('.st-row[data-id="a-5"]')
    shown = shown_ids(page)
    assert "u-3" in shown and "u-2" not in shown


def test_unknown_lines_show_as_json_under_all(page: Page, tmp_path: Path) -> None:
    _open(page, TOUR, tmp_path)
    assert "L26" not in shown_ids(page)
    page.click('[data-filter="all"]')
    page.click('.st-row[data-id="L26"]')
    assert "L26" in shown_ids(page)
    assert "L13.99" in row_ids(page)
    text = page.locator('#st-messages [data-id="L26"]').inner_text()
    assert "brand-new-line-kind" in text and '"x": 1' in text


def test_codex_calls_patch_image_and_unknown_lines(page: Page, tmp_path: Path, watch: Watch) -> None:
    _open(page, CODEX_NEW, tmp_path)
    assert page.get_attribute('.st-call[data-call-id="call_ls"]', "data-status") == "success"
    # Codex's shell tools render as shell commands
    # one line: tool, command, outcome (the command shown once)
    assert page.inner_text('.st-call[data-call-id="call_ls"] .st-call-head').split() == [
        "shell_command",
        "ls",
        "exit",
        "0",
    ]
    assert "cat board.js" in page.inner_text('.st-call[data-call-id="call_cat"] .st-call-head')
    assert page.get_attribute('.st-call[data-call-id="call_cat"]', "data-status") == "error"
    patch = page.locator('.st-call[data-call-id="call_patch"] .st-call-result')
    assert "+export function render() {}" in patch.inner_text()
    assert page.locator("#st-messages img.st-img").count() == 1
    assert "Interrupted by the user" in page.inner_text("#st-messages")  # issue 31: the Interrupted row
    assert "<environment_context>" not in page.inner_text("#st-messages")
    page.click('[data-filter="all"]')
    assert "<environment_context>" in page.inner_text("#st-messages")
    page.click('.st-row[data-id="X32"]')  # the page shows a window of messages around a chosen one
    assert "future_line_kind" in page.inner_text('#st-messages [data-id="X32"]')
    assert watch.page_errors == [] and watch.console_errors == []
