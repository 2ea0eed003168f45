"""Real exports in Chromium: generated v3 sessions, the v1 fixture, gist-style loading, no network, XSS."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.exporter import ExportOptions
from sessiontree.exporter.page import unpack_fragments
from sessiontree.pages.export import export_to_file
from sessiontree.store.titles import cut_title
from tests.browser.conftest import Server, Watch, open_page, wait_js
from tests.browser.hostile import HOSTILE_ID, P, write_hostile_session
from tests.conftest import GenSession

pytestmark = pytest.mark.browser


def page_data(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="st-data">') + len(
        '<script type="application/json" id="st-data">'
    )
    data: dict[str, object] = json.loads(text[start : text.index("</script>", start)])
    return data


def export_generated(gen_session: GenSession, out: Path, turns: int = 30) -> Path:
    src = gen_session(turns, blobs=True)
    return export_to_file(src, out, ExportOptions(blobs_dir=src.parent / "blobs"))


def tree_ids_with(page: Page, selector: str) -> set[str]:
    """Scroll the virtual tree from top to bottom and collect the ids of rows matching ``selector``."""
    found: set[str] = set()
    total = page.eval_on_selector("#st-tree", "t => t.scrollHeight")
    step = page.eval_on_selector("#st-tree", "t => t.clientHeight")
    for top in range(0, total + step, step):
        page.eval_on_selector(
            "#st-tree", f"t => {{ t.scrollTop = {top}; t.dispatchEvent(new Event('scroll')); }}"
        )
        # The tree draws its rows at the next frame: two frames later they are drawn (40 ms was a
        # hope: a loaded machine's frames come later).
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
        found.update(page.eval_on_selector_all(f"#st-tree {selector}", "els => els.map(e => e.dataset.id)"))
    return found


def not_data(urls: list[str]) -> list[str]:
    return [u for u in urls if not u.startswith("data:")]


def test_generated_session_with_branches_and_blobs(
    page: Page, gen_session: GenSession, tmp_path: Path, watch: Watch
) -> None:
    out = export_generated(gen_session, tmp_path / "gen.html")
    data = page_data(out)
    entries = data["entries"]
    assert isinstance(entries, list)
    open_page(page, out.as_uri())
    assert page.inner_text("#st-status").endswith(f"/ {len(entries)} entries")
    # Every tool call on the active path holds its result.
    statuses = page.eval_on_selector_all(".st-call", "els => els.map(e => e.dataset.status)")
    assert statuses and "pending" not in statuses
    # Images: embedded once each in st-data, resolved in the page.
    images = data["images"]
    assert isinstance(images, dict) and images
    frags = unpack_fragments(data["frags"])  # type: ignore[arg-type]
    assert sum(f.count("data:image/") for f in frags) == 0
    srcs = page.eval_on_selector_all("img.st-img", "els => els.map(e => e.getAttribute('src') || '')")
    assert srcs and all(s.startswith("data:image/") for s in srcs)
    # Branches: a branch point folds, and switching branch changes the shown path.
    kids: dict[object, int] = {}
    for e in entries:
        kids[e.get("parentId")] = kids.get(e.get("parentId"), 0) + 1
    expected = {k for k, n in kids.items() if n > 1 and k is not None}
    assert expected
    assert tree_ids_with(page, "[aria-expanded]") == expected
    leaf = page.evaluate("window.sessiontree.leafId")
    page.keyboard.press("]")
    assert page.evaluate("window.sessiontree.leafId") != leaf
    page.keyboard.press("[")
    assert page.evaluate("window.sessiontree.leafId") == leaf
    assert watch.page_errors == [] and watch.console_errors == []
    assert not_data(watch.requests) == [out.as_uri()]


def test_real_v1_fixture_opens_and_navigates(page: Page, real_v1: Path, tmp_path: Path, watch: Watch) -> None:
    before = real_v1.read_bytes()
    out = export_to_file(real_v1, tmp_path / "real.html")
    assert real_v1.read_bytes() == before
    entries = page_data(out)["entries"]
    assert isinstance(entries, list)
    open_page(page, out.as_uri())
    assert page.inner_text("#st-status") == f"{len(entries)} / {len(entries)} entries"
    page.click('[data-filter="user-only"]')
    users = sum(1 for e in entries if e.get("cat") == "user")
    assert page.inner_text("#st-status") == f"{users} / {len(entries)} entries"
    # The v1 session is linear: every user message is on the path, filled in progressively.
    wait_js(page, f"document.querySelectorAll('#st-messages .st-entry').length === {users}")
    classes = page.eval_on_selector_all("#st-messages .st-entry", "els => els.map(e => e.className)")
    assert all("st-user" in c for c in classes)
    page.click('[data-filter="default"]')
    page.fill("#st-search", "npm publish")
    wait_js(page, "!document.querySelector('#st-status').textContent.startsWith('1018 ')")
    hits = page.locator("#st-tree [role=treeitem]")
    assert hits.count() >= 1
    first = hits.first.get_attribute("data-id")
    hits.first.click()
    assert page.evaluate("window.sessiontree.leafId") == first
    assert watch.page_errors == [] and watch.console_errors == []
    assert not_data(watch.requests) == [out.as_uri()]


LOADER = """<!doctype html><html><head><title>gist preview</title></head><body>loading...
<script>
fetch('/export.html').then(r => r.text()).then(html => {
  document.open(); document.write(html); document.close();
});
</script></body></html>"""


def test_works_when_written_into_another_page(
    page: Page, gen_session: GenSession, http_server: Server, watch: Watch
) -> None:
    out = export_generated(gen_session, http_server.root / "export.html")
    (http_server.root / "loader.html").write_text(LOADER, encoding="utf-8")
    entries = page_data(out)["entries"]
    assert isinstance(entries, list)
    loader = http_server.url + "/loader.html?0123abcd4567ef&leafId=" + str(entries[5]["id"])
    page.goto(loader)
    page.wait_for_selector("html[data-st-ready]")
    assert page.evaluate("window.sessiontree.leafId") == entries[5]["id"]
    assert page.locator("#st-tree [role=treeitem]").count() > 5
    assert page.locator("#st-messages .st-entry").count() >= 1
    # Interactions still work: a filter, a tree click, a copied link that keeps the gist id.
    page.click('[data-filter="user-only"]')
    assert page.get_attribute('[data-filter="user-only"]', "aria-pressed") == "true"
    page.click('[data-filter="default"]')
    row = page.locator("#st-tree [role=treeitem]").nth(8)
    row_id = row.get_attribute("data-id")
    row.click()
    assert page.evaluate("window.sessiontree.leafId") == row_id
    page.locator("#st-messages .st-entry .st-link").last.click()
    wait_js(page, "document.querySelector('#st-toast').textContent === 'Link copied'")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.startswith(
        http_server.url + "/loader.html?0123abcd4567ef&leafId=" + str(row_id) + "&targetId="
    )
    assert watch.page_errors == []
    assert watch.requests == [loader, http_server.url + "/export.html"]


def test_hostile_session_runs_no_script(
    page: Page, tmp_path: Path, http_server: Server, watch: Watch
) -> None:
    src = write_hostile_session(tmp_path / "hostile.jsonl")
    out = export_to_file(src, http_server.root / "hostile.html")
    shutil.copy(out, tmp_path / "hostile.html")
    for url in [(tmp_path / "hostile.html").as_uri(), http_server.url + "/hostile.html"]:
        open_page(page, url)
        # Show everything: all kinds, thinking, long outputs, the system prompt and tools, images zoomed.
        page.click('[data-filter="all"]')
        page.keyboard.press("t")
        page.keyboard.press("o")
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        for img in page.locator("img.st-img").all():
            if img.get_attribute("src"):
                img.click()
                page.keyboard.press("Escape")
        rows = page.locator("#st-tree [role=treeitem]")
        for k in range(rows.count()):
            rows.nth(k).click()
        page.fill("#st-search", "script")
        wait_js(page, "document.querySelector('#st-status').textContent.split(' ')[0] !== ''")
        page.keyboard.press("Escape")
        # A deep link to the entry with a hostile id, and its copy link.
        page.goto(url + "?targetId=" + HOSTILE_ID.replace('"', "%22").replace(" ", "%20"))
        page.wait_for_selector("html[data-st-ready]")
        page.locator("#st-messages .st-entry .st-link").first.click()
        page.wait_for_timeout(300)
        assert page.evaluate("window.__xss") is None
        assert watch.dialogs == []
        # The payloads are there as text: escaped, not dropped.
        assert "<script>window.__xss=1" in page.inner_text("#st-messages")
        # the tab title is cut at a word boundary; the heading carries the whole title on hover
        assert page.title() == cut_title(P) != P
        assert page.get_attribute("h1.st-title", "title") == P
        assert page.locator("#st-messages script, #st-messages iframe, #st-header script").count() == 0
        handlers = "[onerror], [onload], [onclick], a[href^='javascript'], [src^='javascript']"
        assert page.locator(handlers).count() == 0
    assert all(u.startswith(("file://", http_server.url, "data:")) for u in watch.requests)
    assert not any("evil.example" in u for u in watch.requests)
    assert watch.page_errors == []
