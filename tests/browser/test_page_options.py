"""Pages made with PageOptions in Chromium: the live script, images by URL, extra CSP sources."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.exporter import (
    PageOptions,
    image_files,
    iter_page,
    live_script,
    render_session,
)
from sessiontree.exporter.options import RenderedSession
from sessiontree.exporter.page import assemble_page, unpack_fragments
from sessiontree.exporter.render import RenderContext, render_appended_entry
from sessiontree.pages.export import export_to_file
from sessiontree.store import load_session
from tests.browser.conftest import Server, Watch, open_page, wait_js
from tests.conftest import GenSession

pytestmark = pytest.mark.browser


def test_an_export_has_no_append_entry(
    page: Page, gen_session: GenSession, tmp_path: Path, watch: Watch
) -> None:
    out = export_to_file(gen_session(6), tmp_path / "plain.html")
    open_page(page, out.as_uri())
    assert page.evaluate("typeof window.sessiontree.appendEntry") == "undefined"
    assert page.evaluate("typeof window.sessiontree.hook.addEntry") == "function"
    assert watch.page_errors == [] and watch.console_errors == []


def test_live_script_appends_rendered_entries(
    page: Page, gen_session: GenSession, tmp_path: Path, watch: Watch
) -> None:
    session = load_session(gen_session(6))
    rendered = render_session(session)
    out = tmp_path / "live.html"
    out.write_text(
        "".join(iter_page(rendered, PageOptions(extra_scripts=(live_script(),)))), encoding="utf-8"
    )
    open_page(page, out.as_uri())
    leaf = rendered.leaf_id
    assert page.evaluate("window.sessiontree.leafId") == leaf
    entry = {
        "type": "message",
        "id": "live0001",
        "parentId": leaf,
        "timestamp": "2026-02-16T11:00:00.000Z",
        "message": {"role": "user", "content": "a live question", "timestamp": 1},
    }
    meta, html, images = render_appended_entry(entry, RenderContext.for_entries(session.entries, {}))
    page.evaluate("([m, h, i]) => window.sessiontree.appendEntry(m, h, i)", [meta, html, images])
    assert page.evaluate("window.sessiontree.leafId") == "live0001"
    wait_js(page, "!!document.querySelector('#st-messages .st-entry[data-id=\"live0001\"]')")
    assert "a live question" in (page.text_content('#st-messages .st-entry[data-id="live0001"]') or "")
    # the tree's rows are drawn as they scroll into view, and it follows the reading position:
    # scrolled to its end, the new leaf is its last row
    page.evaluate("document.getElementById('st-tree').scrollTop = 1e9")
    wait_js(page, "!!document.querySelector('.st-row[data-id=\"live0001\"]')")
    assert page.locator('.st-row[data-id="live0001"]').count() == 1
    assert watch.page_errors == [] and watch.console_errors == []


def test_images_served_under_a_prefix_load(
    page: Page, gen_session: GenSession, http_server: Server, watch: Watch
) -> None:
    src = gen_session(30, blobs=True)
    rendered = render_session(load_session(src, blobs_dir=src.parent / "blobs"))
    blobs = http_server.root / "blobs"
    blobs.mkdir()
    for image in image_files(rendered):
        (blobs / image.name).write_bytes(image.data)
    html = "".join(iter_page(rendered, PageOptions(image_prefix="/blobs/")))
    (http_server.root / "index.html").write_text(html, encoding="utf-8")
    open_page(page, http_server.url + "/index.html?leafId=" + str(rendered.leaf_id))
    page.click('.st-filter[data-filter="all"]')
    # Show every message on some path that has an image, then wait for one to load by URL.
    with_image = next(
        m["id"] for m, f in zip(rendered.entries, _frags(rendered), strict=True) if "st-img" in f
    )
    page.evaluate("(id) => window.sessiontree.selectLeaf(id)", with_image)
    wait_js(page, "[...document.querySelectorAll('img.st-img')].some(i => i.complete && i.naturalWidth > 0)")
    srcs = page.eval_on_selector_all("img.st-img", "els => els.map(e => e.getAttribute('src'))")
    assert srcs and all(s.startswith("/blobs/") for s in srcs if s)
    fetched = [u for u in watch.requests if u.startswith(http_server.url + "/blobs/")]
    assert fetched and all(
        Path(u.split("?")[0]).name in {i.name for i in image_files(rendered)} for u in fetched
    )
    assert watch.page_errors == []


def _frags(rendered: RenderedSession) -> list[str]:
    return unpack_fragments(rendered.frags.value())


def test_only_the_page_s_own_stylesheet_applies(
    page: Page, gen_session: GenSession, tmp_path: Path, watch: Watch
) -> None:
    out = export_to_file(gen_session(30, blobs=True), tmp_path / "styled.html")
    open_page(page, out.as_uri())
    page.click('.st-filter[data-filter="all"]')
    page.locator(".st-row").nth(3).click()
    # The stylesheet applies (rows are absolutely placed) and the CSSOM placement works.
    assert page.eval_on_selector(".st-row", "r => getComputedStyle(r).position") == "absolute"
    tops = page.eval_on_selector_all(
        ".st-row", "rs => rs.slice(0, 3).map(r => r.getBoundingClientRect().top)"
    )
    assert len(set(tops)) == 3
    assert page.evaluate("getComputedStyle(document.querySelector('#st-app')).display") != "block"
    assert watch.console_errors == [] and watch.page_errors == []


def test_a_style_attribute_in_a_fragment_is_refused(page: Page, tmp_path: Path, watch: Watch) -> None:
    meta = {"id": "u1", "parentId": None, "type": "message", "role": "user", "cat": "user", "preview": "x"}
    frag = (
        '<article class="st-entry st-user" data-id="u1">'
        '<p id="painted" style="color: rgb(255, 0, 0)">x</p></article>'
    )
    html = assemble_page({"id": "s", "title": "t"}, [meta], [frag], {}, "<h1>t</h1>", "", leaf_id="u1")
    out = tmp_path / "attr.html"
    out.write_text(html, encoding="utf-8")
    open_page(page, out.as_uri())
    assert page.eval_on_selector("#painted", "p => getComputedStyle(p).color") != "rgb(255, 0, 0)"
    assert any("style" in e for e in watch.console_errors)  # Chromium reports the refused attribute
