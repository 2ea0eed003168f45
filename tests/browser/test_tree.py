"""The sidebar tree: ARIA roles, the active path, clicking, keyboard, filters, search, virtual rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, open_page, wait_js
from tests.browser.pages import Built, branchy_session, linear_session, write_page

pytestmark = pytest.mark.browser


@pytest.fixture
def branchy(tmp_path: Path) -> str:
    return write_page(branchy_session(), tmp_path / "branchy.html", leaf_id="a3").as_uri()


def shown_ids(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-messages .st-entry", "els => els.map(e => e.dataset.id)")


def row_ids(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-tree [role=treeitem]", "els => els.map(e => e.dataset.id)")


def test_tree_is_an_aria_tree_with_the_active_path_marked(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    assert page.get_attribute("#st-tree", "role") == "tree"
    assert row_ids(page) == ["u1", "a1", "t1", "m1", "a2", "u2b", "a3b", "u2", "a3"]
    on_path = page.eval_on_selector_all(".st-row.st-on-path", "els => els.map(e => e.dataset.id)")
    assert on_path == ["u1", "a1", "t1", "m1", "a2", "u2", "a3"]
    selected = page.eval_on_selector_all("[aria-selected=true]", "els => els.map(e => e.dataset.id)")
    assert selected == ["a3"]
    # At the branch point the main line (the larger subtree) continues at its level; the side
    # branch is listed first, one level in, and folds.
    assert page.get_attribute('[data-id="a2"]', "aria-expanded") == "true"
    assert page.get_attribute('[data-id="u2b"]', "aria-level") == "2"
    assert page.get_attribute('[data-id="a3b"]', "aria-level") == "2"
    assert page.get_attribute('[data-id="u2"]', "aria-level") == "1"
    assert page.locator('[data-id="u2b"] .g-end').count() == 1
    assert page.locator('[data-id="u2"] .st-g').count() == 0
    # Rows are virtual, so each states its place among its siblings.
    place = "els => els.map(e => e.dataset.id + ' ' + e.ariaPosInSet + '/' + e.ariaSetSize)"
    assert page.eval_on_selector_all("#st-tree [role=treeitem]", place) == [
        "u1 1/7",
        "a1 2/7",
        "t1 3/7",
        "m1 4/7",
        "a2 5/7",
        "u2b 1/2",
        "a3b 2/2",
        "u2 6/7",
        "a3 7/7",
    ]
    assert page.inner_text("#st-status") == "9 / 10 entries"
    assert shown_ids(page) == ["u1", "a1", "m1", "a2", "u2", "a3"]


def test_clicking_a_node_makes_it_the_leaf(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.click('.st-row[data-id="a3b"]')
    assert shown_ids(page) == ["u1", "a1", "m1", "a2", "u2b", "a3b"]
    assert page.get_attribute('.st-row[data-id="a3b"]', "aria-selected") == "true"
    assert page.get_attribute('.st-row[data-id="a3"]', "aria-selected") == "false"
    assert "leafId=a3b" in page.evaluate("location.href")
    page.click('.st-row[data-id="a1"]')
    assert shown_ids(page) == ["u1", "a1"]
    # The result is not on the path u1 -> a1, so the call stays pending.
    assert page.get_attribute(".st-call", "data-status") == "pending"


def test_tool_result_fills_its_call_and_images_resolve(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    call = page.locator('.st-call[data-call-id="c1"]')
    assert call.get_attribute("data-status") == "success"
    assert call.locator(".st-call-result .st-result .st-preview").inner_text().startswith("file-0.txt")
    src = page.get_attribute("img.st-img", "src")
    assert src is not None and src.startswith("data:image/png;base64,")
    assert page.evaluate("document.querySelector('img.st-img').naturalWidth") == 2


def test_tree_keyboard_roving_focus_enter_and_folding(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.focus('.st-row[data-id="a2"]')
    assert page.locator("#st-tree [tabindex='0']").get_attribute("data-id") == "a2"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.id") == "u2b"
    assert page.locator("#st-tree [tabindex='0']").get_attribute("data-id") == "u2b"
    page.keyboard.press("Enter")
    assert shown_ids(page)[-2:] == ["a2", "u2b"]
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.id") == "a3b"
    page.keyboard.press("ArrowLeft")  # from the nested branch up to its branch point
    assert page.evaluate("document.activeElement.dataset.id") == "a2"
    page.keyboard.press("ArrowLeft")  # fold the nested branch
    assert page.get_attribute('[data-id="a2"]', "aria-expanded") == "false"
    assert row_ids(page) == ["u1", "a1", "t1", "m1", "a2", "u2", "a3"]
    page.keyboard.press("ArrowRight")
    assert row_ids(page) == ["u1", "a1", "t1", "m1", "a2", "u2b", "a3b", "u2", "a3"]
    page.keyboard.press("Home")
    assert page.evaluate("document.activeElement.dataset.id") == "u1"
    page.keyboard.press("End")
    assert page.evaluate("document.activeElement.dataset.id") == "a3"


def test_filters_with_counts(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    count_of = "e => [e.dataset.filter, e.querySelector('.st-count').textContent]"
    counts = page.eval_on_selector_all(".st-filter", f"els => Object.fromEntries(els.map({count_of}))")
    assert counts == {"default": "9", "no-tools": "8", "user-only": "3", "labeled": "1", "all": "10"}
    page.click('[data-filter="no-tools"]')
    assert "t1" not in row_ids(page)
    assert not page.locator(".st-call").first.is_visible()
    page.click('[data-filter="user-only"]')
    assert row_ids(page) == ["u1", "u2b", "u2"]
    assert shown_ids(page) == ["u1", "u2"]
    assert page.inner_text("#st-status") == "3 / 10 entries"
    page.click('[data-filter="labeled"]')
    assert row_ids(page) == ["u1"]
    page.click('[data-filter="all"]')
    assert "l1" in row_ids(page)
    assert page.get_attribute('[data-filter="all"]', "aria-pressed") == "true"
    page.click('.st-row[data-id="l1"]')
    assert shown_ids(page)[-1] == "l1"


def search_for(page: Page, query: str, expected: list[str]) -> None:
    page.fill("#st-search", query)
    want = json.dumps(expected)
    wait_js(
        page,
        "JSON.stringify([...document.querySelectorAll('#st-tree [role=treeitem]')]"
        f".map(e => e.dataset.id)) === {want!r}",
    )


def test_search_terms_all_must_match_case_insensitive(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "st-search"
    page.keyboard.type("WALRUS")
    wait_js(page, "document.querySelector('#st-status').textContent === '1 / 10 entries'")
    assert row_ids(page) == ["u2b"]
    search_for(page, "alternate   answer", ["a3b"])
    search_for(page, "zebra", ["a1"])  # inside a collapsed thinking block
    search_for(page, "bash ls", ["a1"])  # tool name and arguments
    search_for(page, "CHECKPOINT", ["u1"])  # label
    search_for(page, "claude-x", ["m1"])  # model name
    search_for(page, "walrus zebra", [])
    assert page.inner_text("#st-status") == "0 / 10 entries"
    page.keyboard.press("Escape")
    assert page.input_value("#st-search") == ""
    assert page.inner_text("#st-status") == "9 / 10 entries"


def test_large_tree_renders_only_visible_rows_and_messages_progressively(page: Page, tmp_path: Path) -> None:
    url = write_page(linear_session(3000), tmp_path / "long.html", leaf_id="a2999").as_uri()
    open_page(page, url)
    assert page.inner_text("#st-status") == "6000 / 6000 entries"
    rows = page.locator("#st-tree [role=treeitem]").count()
    assert 0 < rows < 120
    # Rows are virtual: scrolling the tree brings later rows in, the DOM stays small.
    page.eval_on_selector("#st-tree", "t => { t.scrollTop = 0; }")
    page.wait_for_selector('.st-row[data-id="u0"]')
    assert page.locator("#st-tree [role=treeitem]").count() < 120
    # Clicking shows the end of the path first (the leaf), earlier messages arrive later.
    page.click('.st-row[data-id="a5"]')
    assert shown_ids(page)[-1] == "a5"
    # Record each batch of messages the viewer adds: how many were on screen at some instant
    # depends on the machine's load, the order and size of the batches do not.
    page.evaluate(RECORD_ADDED_ENTRIES)
    page.keyboard.press("End")
    page.keyboard.press("Enter")
    wait_js(page, "document.querySelectorAll('#st-messages .st-entry').length > 1000")
    batches: list[list[str]] = page.evaluate("window.__stBatches.filter(b => b.length)")
    assert "a2999" in batches[0] and len(batches[0]) < 200  # the leaf's end of the path first
    assert len(batches) > 1  # and the rest later, in more batches
    assert page.locator('.st-entry[data-id="a2999"]').is_visible()


# A MutationObserver callback gets the nodes added since the last one: one list per batch.
RECORD_ADDED_ENTRIES = """() => {
  window.__stBatches = [];
  new MutationObserver((records) => {
    const ids = [];
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeType !== 1) continue;
        if (node.matches('.st-entry')) ids.push(node.dataset.id);
        node.querySelectorAll('.st-entry').forEach((e) => ids.push(e.dataset.id));
      }
    }
    window.__stBatches.push(ids);
  }).observe(document.querySelector('#st-messages'), { childList: true, subtree: true });
}"""


def test_an_empty_session_opens_quietly(page: Page, tmp_path: Path, watch: Watch) -> None:
    open_page(page, write_page(Built(), tmp_path / "empty.html").as_uri())
    assert page.inner_text("#st-status") == "0 / 0 entries"
    assert page.locator("#st-messages .st-entry").count() == 0
    page.keyboard.press("j")
    page.keyboard.press("]")
    assert watch.page_errors == []
