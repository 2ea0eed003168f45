"""The keyboard alone reaches every control a mouse can, with a visible focus ring; the tree speaks ARIA."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from sessiontree.archive.catalog import Catalog
from sessiontree.pages.index_page import render_index
from tests.browser.conftest import open_page, wait_js
from tests.browser.pages import branchy_session, write_page, write_sessions_folder

pytestmark = pytest.mark.browser

# What the focused element shows: its outline, its box-shadow, its background.
_RING = """() => {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  return { id: el.id, cls: el.className, tag: el.tagName, outlineStyle: cs.outlineStyle,
    outlineWidth: parseFloat(cs.outlineWidth) || 0, outlineColor: cs.outlineColor,
    shadow: cs.boxShadow, background: cs.backgroundColor };
}"""


@pytest.fixture
def branchy(tmp_path: Path) -> str:
    return write_page(branchy_session(), tmp_path / "branchy.html", leaf_id="a3").as_uri()


def ring(page: Page) -> dict[str, Any]:
    info: dict[str, Any] = page.evaluate(_RING)
    return info


def assert_ring(page: Page) -> None:
    """The focused element draws a ring: an outline of 2px or more, an inset box-shadow, or a fill."""
    r = ring(page)
    outline = r["outlineStyle"] != "none" and r["outlineWidth"] >= 2 and "0, 0, 0, 0" not in r["outlineColor"]
    shadow = r["shadow"] != "none"
    fill = r["id"] == "st-resizer" and r["background"] not in ("rgba(0, 0, 0, 0)", "transparent")
    assert outline or shadow or fill, f"no visible focus ring on {r}"


def tab_to(page: Page, selector: str, *, back: bool = False, limit: int = 80) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches ``selector``; fail if it never does."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if page.evaluate("s => !!document.activeElement && document.activeElement.matches(s)", selector):
            assert_ring(page)
            return
    raise AssertionError(f"Tab never reached {selector}")


def focused(page: Page, attr: str) -> str | None:
    value = page.evaluate("a => document.activeElement.getAttribute(a)", attr)
    return None if value is None else str(value)


def test_tab_reaches_search_filters_tree_and_resizer(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    tab_to(page, "#st-search")
    page.keyboard.type("walrus")
    wait_js(page, "document.querySelector('#st-status').textContent.startsWith('1 /')")
    page.keyboard.press("ArrowDown")
    assert focused(page, "data-id") == "u2b"
    tab_to(page, "#st-search", back=True)
    page.keyboard.press("Escape")
    wait_js(page, "document.querySelector('#st-status').textContent.startsWith('9 /')")
    tab_to(page, '[data-filter="user-only"]')
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-filter="user-only"]', "aria-pressed") == "true"
    assert page.inner_text("#st-status").startswith("3 /")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert focused(page, "data-filter") == "default"
    page.keyboard.press(" ")
    assert page.get_attribute('[data-filter="default"]', "aria-pressed") == "true"
    # Into the tree: one tab stop, on the current row; arrows move, Home/End jump.
    tab_to(page, "#st-tree [role=treeitem]")
    assert focused(page, "data-id") == "a3"
    page.keyboard.press("Home")
    assert focused(page, "data-id") == "u1"
    assert_ring(page)
    page.keyboard.press("ArrowDown")
    assert focused(page, "data-id") == "a1"
    page.keyboard.press("End")
    assert focused(page, "data-id") == "a3"
    # Collapse and expand the branch point a2 with the arrows.
    for _ in range(4):
        page.keyboard.press("ArrowUp")
    assert focused(page, "data-id") == "a2"
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute('.st-row[data-id="a2"]', "aria-expanded") == "false"
    assert page.locator('.st-row[data-id="u2b"]').count() == 0
    page.keyboard.press("ArrowRight")
    assert page.get_attribute('.st-row[data-id="a2"]', "aria-expanded") == "true"
    page.keyboard.press("ArrowDown")
    assert focused(page, "data-id") == "u2b"
    # Enter shows the focused node; focus stays on it.
    page.keyboard.press("Enter")
    assert page.evaluate("window.sessiontree.leafId") == "u2b"
    assert focused(page, "data-id") == "u2b"
    # Shift+Tab leaves the tree in one step; the resizer is next after it and moves with arrows.
    page.keyboard.press("Shift+Tab")
    assert focused(page, "data-filter") == "all"
    tab_to(page, "#st-resizer")
    before = int(focused(page, "aria-valuenow") or 0)
    assert before == round(
        page.evaluate("document.querySelector('#st-sidebar').getBoundingClientRect().width")
    )
    page.keyboard.press("ArrowRight")
    assert int(focused(page, "aria-valuenow") or 0) == before + 20


def test_tab_reaches_theme_help_and_every_message_control(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    tab_to(page, "#st-theme")
    theme = page.get_attribute("html", "data-theme")
    page.keyboard.press("Enter")
    assert page.get_attribute("html", "data-theme") != theme
    # The help dialog: focus goes in, Tab stays in, Esc closes and gives focus back.
    tab_to(page, "#st-help-btn")
    page.keyboard.press("Enter")
    assert page.is_visible("#st-help")
    assert page.evaluate("document.getElementById('st-help').contains(document.activeElement)")
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate("document.getElementById('st-help').contains(document.activeElement)")
    assert focused(page, "class") == "st-help-close"
    assert_ring(page)
    page.keyboard.press("Escape")
    assert not page.is_visible("#st-help")
    assert focused(page, "id") == "st-help-btn"
    # The close button closes it too.
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    assert not page.is_visible("#st-help")
    # Messages: thinking opens, a long output expands, a link copies, an image zooms.
    tab_to(page, "details.st-thinking > summary")
    page.keyboard.press("Enter")
    assert page.evaluate("document.querySelector('details.st-thinking').open") is True
    tab_to(page, ".st-output .st-more")
    page.keyboard.press("Enter")
    assert page.locator(".st-output .st-rest").is_visible()
    assert focused(page, "aria-expanded") == "true"
    tab_to(page, '.st-entry[data-id="a2"] .st-link')
    page.keyboard.press("Enter")
    wait_js(page, "document.querySelector('#st-toast').textContent === 'Link copied'")
    assert page.evaluate("navigator.clipboard.readText()").endswith("?leafId=a3&targetId=a2")
    tab_to(page, "img.st-img")
    page.keyboard.press("Enter")
    assert page.is_visible("#st-zoom")
    assert focused(page, "id") == "st-zoom"
    page.keyboard.press("Tab")
    assert focused(page, "id") == "st-zoom"
    page.keyboard.press("Escape")
    assert not page.is_visible("#st-zoom")
    assert page.evaluate("document.activeElement.matches('img.st-img')")
    page.keyboard.press(" ")
    assert page.is_visible("#st-zoom")
    page.keyboard.press("Escape")


def test_scrolling_blocks_take_focus_and_scroll_with_arrows(page: Page, tmp_path: Path) -> None:
    built = branchy_session()
    long = "\n".join(f"line {k}" for k in range(400))
    built.frags[-1] = built.frags[-1].replace("</article>", f'<pre class="st-pre">{long}</pre></article>')
    open_page(page, write_page(built, tmp_path / "long.html", leaf_id="a3b").as_uri())
    pre = "#st-messages pre.st-pre"
    assert page.eval_on_selector(pre, "p => p.scrollHeight > p.clientHeight")
    tab_to(page, pre)
    page.keyboard.press("PageDown")
    wait_js(page, f"document.querySelector('{pre}').scrollTop > 0")


def test_narrow_sidebar_opens_and_closes_from_the_keyboard(browser: Browser, branchy: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        open_page(page, branchy)
        # The closed overlay holds no tab stops: the first one is the menu button.
        page.keyboard.press("Tab")
        assert focused(page, "id") == "st-menu"
        assert_ring(page)
        page.keyboard.press("Enter")
        assert page.get_attribute("#st-menu", "aria-expanded") == "true"
        wait_js(page, "document.activeElement.matches('#st-tree [role=treeitem]')")
        # it opens on the reader's place: the row of the entry at the top of the view
        assert focused(page, "data-id") == page.eval_on_selector(
            "#st-messages .st-entry", "e => e.dataset.id"
        )
        assert "st-reading" in (page.get_attribute("#st-tree .st-row:focus", "class") or "")
        page.keyboard.press("Escape")
        assert page.get_attribute("#st-menu", "aria-expanded") == "false"
        assert focused(page, "id") == "st-menu"
        # Choosing a node from the keyboard closes the overlay and returns to the menu button.
        page.keyboard.press("Enter")
        wait_js(page, "document.activeElement.matches('#st-tree [role=treeitem]')")
        page.keyboard.press("Home")
        page.keyboard.press("Enter")
        assert page.evaluate("window.sessiontree.leafId") == "u1"
        assert page.get_attribute("#st-menu", "aria-expanded") == "false"
        assert focused(page, "id") == "st-menu"
    finally:
        context.close()


def ax_tree_rows(page: Page) -> list[dict[str, Any]]:
    """Return the tree items as Chromium's accessibility tree exposes them to screen readers."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Accessibility.enable")
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    rows = []
    for node in nodes:
        if node.get("ignored") or node.get("role", {}).get("value") != "treeitem":
            continue
        props = {p["name"]: p["value"].get("value") for p in node.get("properties", [])}
        rows.append({"name": node.get("name", {}).get("value", ""), **props})
    cdp.detach()
    return rows


def test_tree_announces_role_level_expanded_state_and_position(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    rows = ax_tree_rows(page)
    # Chromium's tree gives role, name, level, expanded and selected; it does not report the
    # position in set over CDP, so that comes from the attributes the rows carry.
    place = page.eval_on_selector_all(
        "#st-tree [role=treeitem]", "els => els.map(e => [e.ariaPosInSet, e.ariaSetSize].map(Number))"
    )
    assert len(place) == len(rows)
    described = [
        (r["name"].split()[-1], r["level"], r.get("expanded"), *at, r.get("selected"))
        for r, at in zip(rows, place, strict=True)
    ]
    assert described == [
        ("files", 1, None, 1, 7, False),
        ("Listing.", 1, None, 2, 7, False),
        ("file-0.txt", 1, None, 3, 7, False),
        ("anthropic/claude-x", 1, None, 4, 7, False),
        ("files.", 1, True, 5, 7, False),
        ("walrus", 2, None, 1, 2, False),
        ("answer.", 2, None, 2, 2, False),
        ("picture", 1, None, 6, 7, False),
        ("square.", 1, None, 7, 7, True),
    ]
    assert page.get_attribute("#st-tree", "aria-label") == "Session tree"
    # Collapsing the branch point is announced, and its hidden branch leaves the tree.
    page.click('.st-row[data-id="a2"]')
    page.keyboard.press("ArrowLeft")
    after = {r["name"].split()[-1]: r for r in ax_tree_rows(page)}
    assert after["files."]["expanded"] is False
    assert after["files."]["selected"] is True
    assert "walrus" not in after


def test_index_page_filter_and_links_from_the_keyboard(page: Page, tmp_path: Path) -> None:
    entries = Catalog(write_sessions_folder(tmp_path / "sessions")).scan()
    out = tmp_path / "index.html"
    out.write_text(render_index(entries, lambda e: "s/" + e.key), encoding="utf-8")
    page.goto(out.as_uri())
    tab_to(page, "#st-filter")
    page.keyboard.type("statsuline")
    wait_js(page, "document.querySelectorAll('.st-session:not([hidden])').length === 1")
    tab_to(page, ".st-session:not([hidden]) a.st-title")
    assert (focused(page, "href") or "").endswith("kimchi-dev--statsuline.jsonl")
