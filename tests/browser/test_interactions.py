"""Messages and page controls: deep links, copy link, keyboard, theme, zoom, long outputs, sidebar."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.conftest import Server, Watch, open_page, wait_js
from tests.browser.pages import branchy_session, linear_session, write_page

pytestmark = pytest.mark.browser


@pytest.fixture
def branchy(tmp_path: Path) -> str:
    return write_page(branchy_session(), tmp_path / "branchy.html", leaf_id="a3").as_uri()


def shown_ids(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-messages .st-entry", "els => els.map(e => e.dataset.id)")


def in_viewport(page: Page, selector: str) -> bool:
    js = """el => { const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight && r.height > 0; }"""
    return bool(page.eval_on_selector(selector, js))


def test_deep_link_opens_the_leaf_and_highlights_the_target(page: Page, tmp_path: Path) -> None:
    url = write_page(linear_session(300), tmp_path / "long.html", leaf_id="a299").as_uri()
    open_page(page, url + "?leafId=a150&targetId=u100")
    assert page.evaluate("window.sessiontree.leafId") == "a150"
    # One read of the DOM: the idle filler keeps adding messages around the target, so two reads
    # (the last shown id, then whether a150 is there) could see two states (a106, then a150 added).
    ids = shown_ids(page)
    assert ids[-1] == "a150" or "a150" not in ids
    assert not {"u151", "a151", "a299"} & set(ids)  # nothing past the linked leaf
    target = '.st-entry[data-id="u100"]'
    assert "st-target" in (page.get_attribute(target, "class") or "")
    assert in_viewport(page, target)
    # the tree opens on the target (the reader's place), the linked leaf selected further down
    assert "st-reading" in (page.get_attribute('.st-row[data-id="u100"]', "class") or "")
    page.evaluate("document.getElementById('st-tree').scrollTop += 100 * 24")
    assert page.get_attribute('.st-row[data-id="a150"]', "aria-selected") == "true"


def test_deep_link_to_an_entry_off_the_leafs_path_and_to_a_hidden_kind(page: Page, branchy: str) -> None:
    open_page(page, branchy + "?leafId=a3&targetId=u2b")
    assert page.evaluate("window.sessiontree.leafId") == "u2b"
    assert "st-target" in (page.get_attribute('.st-entry[data-id="u2b"]', "class") or "")
    page.goto(branchy + "?targetId=l1")
    page.wait_for_selector("html[data-st-ready]")
    # A label entry shows only under "all": the link switches the filter so the target is there.
    assert page.evaluate("window.sessiontree.filter") == "all"
    assert in_viewport(page, '.st-entry[data-id="l1"]')


def test_deep_link_to_a_tool_result_highlights_its_call(page: Page, branchy: str) -> None:
    open_page(page, branchy + "?targetId=t1")
    assert "st-target" in (page.get_attribute('.st-call[data-call-id="c1"]', "class") or "")


def test_unknown_deep_link_ids_fall_back_to_the_exported_leaf(page: Page, branchy: str) -> None:
    open_page(page, branchy + "?leafId=%3Cimg%20src%3Dx%3E&targetId=nope")
    assert page.evaluate("window.sessiontree.leafId") == "a3"
    assert shown_ids(page)[-1] == "a3"


def test_copy_link_writes_a_deep_link(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.click('.st-entry[data-id="u2"] .st-link')
    wait_js(page, "document.querySelector('#st-toast').textContent === 'Link copied'")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link == branchy + "?leafId=a3&targetId=u2"
    # The copied link opens the same view.
    page.goto(link)
    page.wait_for_selector("html[data-st-ready]")
    assert "st-target" in (page.get_attribute('.st-entry[data-id="u2"]', "class") or "")


def test_copy_link_keeps_a_leading_gist_id(page: Page, http_server: Server) -> None:
    write_page(branchy_session(), http_server.root / "index.html", leaf_id="a3")
    base = http_server.url + "/index.html"
    open_page(page, base + "?0123abcdef4567&leafId=a3b")
    assert page.evaluate("window.sessiontree.leafId") == "a3b"
    page.click('.st-entry[data-id="u2b"] .st-link')
    wait_js(page, "document.querySelector('#st-toast').textContent === 'Link copied'")
    assert page.evaluate("navigator.clipboard.readText()") == base + "?0123abcdef4567&leafId=a3b&targetId=u2b"
    assert page.evaluate("location.search") == "?0123abcdef4567&leafId=a3b"


def test_copy_link_falls_back_without_the_clipboard_api(page: Page, branchy: str) -> None:
    page.add_init_script("Object.defineProperty(navigator, 'clipboard', { value: undefined });")
    open_page(page, branchy)
    page.click('.st-entry[data-id="u1"] .st-link')
    wait_js(page, "document.querySelector('#st-toast').textContent !== ''")
    assert page.inner_text("#st-toast") == "Link copied"


def test_keyboard_messages_branches_thinking_outputs_help(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.keyboard.press("j")
    assert page.get_attribute(".st-entry.st-cur", "data-id") == "u1"
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.get_attribute(".st-entry.st-cur", "data-id") == "m1"
    page.keyboard.press("k")
    assert page.get_attribute(".st-entry.st-cur", "data-id") == "a1"
    # t opens every thinking block, again closes them.
    assert page.evaluate("document.querySelector('details.st-thinking').open") is False
    page.keyboard.press("t")
    assert page.evaluate("document.querySelector('details.st-thinking').open") is True
    assert page.locator("text=secret plan zebra").is_visible()
    page.keyboard.press("t")
    assert page.evaluate("document.querySelector('details.st-thinking').open") is False
    # o expands long tool outputs.
    rest = page.locator(".st-output .st-rest")
    assert not rest.is_visible()
    page.keyboard.press("o")
    assert rest.is_visible()
    page.keyboard.press("o")
    assert not rest.is_visible()
    # ] and [ move between sibling branches at the nearest branch point.
    page.keyboard.press("]")
    assert page.evaluate("window.sessiontree.leafId") == "a3b"
    assert shown_ids(page)[-2:] == ["u2b", "a3b"]
    page.keyboard.press("[")
    assert page.evaluate("window.sessiontree.leafId") == "a3"
    # ? lists the shortcuts; Esc closes.
    page.keyboard.press("?")
    help_box = page.locator("#st-help")
    assert help_box.is_visible()
    for key in ["/", "j / k", "[ / ]", "t", "o", "Esc"]:
        assert help_box.locator("dt", has_text=key).count() >= 1
    page.keyboard.press("Escape")
    assert not help_box.is_visible()


def test_long_output_expands_with_its_button(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    more = page.locator(".st-output .st-more")
    assert more.inner_text() == "9 more lines"
    assert not page.locator("text=file-11.txt").is_visible()
    more.click()
    assert page.locator("text=file-11.txt").is_visible()
    assert more.inner_text() == "Show less"
    more.click()
    assert more.inner_text() == "9 more lines"
    assert not page.locator("text=file-11.txt").is_visible()


def test_image_zoom_opens_and_closes(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.click("img.st-img")
    zoom = page.locator("#st-zoom")
    assert zoom.is_visible()
    assert (zoom.locator("img").get_attribute("src") or "").startswith("data:image/png")
    page.keyboard.press("Escape")
    assert not zoom.is_visible()
    page.click("img.st-img")
    page.click("#st-zoom")
    assert not zoom.is_visible()


def bg(page: Page) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def test_theme_follows_the_system_and_the_toggle_is_remembered(browser: Browser, branchy: str) -> None:
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        open_page(page, branchy)
        assert page.get_attribute("html", "data-theme") == "auto"
        dark = bg(page)
        page.emulate_media(color_scheme="light")
        light = bg(page)
        assert dark != light
        page.emulate_media(color_scheme="dark")
        page.click("#st-theme")
        assert page.get_attribute("html", "data-theme") == "light"
        assert bg(page) == light
        page.reload()
        page.wait_for_selector("html[data-st-ready]")
        assert page.get_attribute("html", "data-theme") == "light"
        assert bg(page) == light
        page.click("#st-theme")
        assert page.get_attribute("html", "data-theme") == "dark"
        assert bg(page) == dark
    finally:
        context.close()


def test_print_stylesheet_shows_messages_only(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.emulate_media(media="print")
    assert not page.locator("#st-sidebar").is_visible()
    assert not page.locator("#st-toolbar").is_visible()
    assert page.locator(".st-entry").first.is_visible()
    assert page.locator("text=file-11.txt").is_visible()


def test_sidebar_resize_is_remembered(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    box = page.locator("#st-resizer").bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 2, box["y"] + 100)
    page.mouse.down()
    page.mouse.move(480, box["y"] + 100, steps=4)
    page.mouse.up()
    width = page.evaluate("document.querySelector('#st-sidebar').getBoundingClientRect().width")
    assert 470 <= width <= 490
    page.reload()
    page.wait_for_selector("html[data-st-ready]")
    again = page.evaluate("document.querySelector('#st-sidebar').getBoundingClientRect().width")
    assert again == width


def test_works_when_storage_is_unavailable(page: Page, branchy: str, watch: Watch) -> None:
    page.add_init_script(
        "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('denied'); } });"
    )
    open_page(page, branchy)
    page.click("#st-theme")
    assert page.get_attribute("html", "data-theme") in ("light", "dark")
    assert shown_ids(page)[-1] == "a3"
    assert watch.page_errors == []


def test_narrow_screens_get_a_collapsible_overlay(browser: Browser, branchy: str) -> None:
    context = browser.new_context(viewport={"width": 480, "height": 800})
    try:
        page = context.new_page()
        open_page(page, branchy)
        side = page.locator("#st-sidebar")
        assert not side.is_visible() or (side.bounding_box() or {"x": 0})["x"] < -100
        page.click("#st-menu")
        wait_js(page, "document.querySelector('#st-sidebar').getBoundingClientRect().x >= 0")
        page.click('.st-row[data-id="a3b"]')
        assert page.evaluate("window.sessiontree.leafId") == "a3b"
        # Choosing a node closes the overlay again.
        assert page.get_attribute("#st-menu", "aria-expanded") == "false"
    finally:
        context.close()


def test_append_entry_extends_the_live_path(page: Page, branchy: str) -> None:
    open_page(page, branchy)
    page.evaluate(
        """() => window.sessiontree.appendEntry(
            {id: 'u9', parentId: 'a3', type: 'message', role: 'user', cat: 'user', preview: 'live one'},
            '<article class="st-entry st-user" data-id="u9"><p>live one</p></article>', {})"""
    )
    assert page.evaluate("window.sessiontree.leafId") == "u9"
    assert shown_ids(page)[-1] == "u9"
    assert page.locator('.st-row[data-id="u9"]').count() == 1
    assert page.inner_text("#st-status") == "10 / 11 entries"


def test_append_entry_fills_a_pending_tool_call(page: Page, branchy: str) -> None:
    open_page(page, branchy + "?leafId=a1")
    assert page.get_attribute('.st-call[data-call-id="c1"]', "data-status") == "pending"
    page.evaluate(
        """() => window.sessiontree.appendEntry(
            {id: 't9', parentId: 'a1', type: 'message', role: 'toolResult', cat: 'tool', result: 'c1',
             error: true, preview: 'boom'},
            '<article class="st-entry st-tool" data-id="t9"><div class="st-result" data-call-id="c1">'
            + '<pre>boom</pre></div></article>', {})"""
    )
    assert page.evaluate("window.sessiontree.leafId") == "t9"
    call = page.locator('.st-call[data-call-id="c1"]')
    assert call.get_attribute("data-status") == "error"
    assert call.locator(".st-call-result pre").inner_text() == "boom"
    assert shown_ids(page) == ["u1", "a1"]


def test_uncompressed_fragments_render_too(page: Page, tmp_path: Path) -> None:
    url = write_page(branchy_session(), tmp_path / "plain.html", leaf_id="a3", compress=False).as_uri()
    open_page(page, url)
    assert shown_ids(page) == ["u1", "a1", "m1", "a2", "u2", "a3"]


def test_streamed_fragments_decode_exactly(page: Page, tmp_path: Path) -> None:
    """Backslashes before quotes, JSON-looking text and fragments larger than a stream chunk."""
    built = linear_session(3)
    tricky = ["C:\\dir\\", '"],["', "\\\\\\", "end\\", "ünï © 🌳", "x" * 200_000]
    for k, text in enumerate(tricky):
        html_text = text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
        built.add(
            f'<article class="st-entry st-user" data-id="t{k}" title="{html_text}\\">'
            f"<p>{html_text}</p></article>",
            id=f"t{k}",
            role="user",
            cat="user",
            preview=f"tricky {k}",
        )
    url = write_page(built, tmp_path / "tricky.html").as_uri()
    open_page(page, url)
    for k, text in enumerate(tricky):
        assert page.inner_text(f'.st-entry[data-id="t{k}"] p') == text
    assert page.get_attribute('.st-entry[data-id="t0"]', "title") == tricky[0] + "\\"


SLOW_INFLATE = """
const Real = DecompressionStream;
window.DecompressionStream = class {
  constructor(format) {
    const real = new Real(format);
    const slow = new TransformStream({
      async transform(chunk, ctrl) { await new Promise((r) => setTimeout(r, 40)); ctrl.enqueue(chunk); },
    });
    this.writable = real.writable;
    this.readable = real.readable.pipeThrough(slow);
  }
};
"""


def test_choosing_a_node_while_fragments_stream_in(page: Page, tmp_path: Path) -> None:
    url = write_page(linear_session(1500), tmp_path / "slow.html", leaf_id="a1499").as_uri()
    page.add_init_script(SLOW_INFLATE)
    page.goto(url)
    wait_js(page, "performance.getEntriesByName('st-tree-ready').length > 0")
    assert page.get_attribute("html", "data-st-ready") is None  # still inflating
    page.evaluate("document.getElementById('st-tree').scrollTop = 1e9")  # the tree opens at the top
    page.click('.st-row[data-id="a1490"]')
    page.wait_for_selector("html[data-st-ready]")
    wait_js(page, "document.querySelector('#st-messages .st-entry:last-of-type')?.dataset.id === 'a1490'")
    assert "answer number 1490" in page.inner_text('.st-entry[data-id="a1490"]')
    texts = page.eval_on_selector_all("#st-messages .st-entry", "els => els.map(e => e.textContent.trim())")
    assert texts and all(texts)
