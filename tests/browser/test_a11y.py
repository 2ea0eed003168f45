"""Accessibility: axe-core finds no WCAG 2.x A/AA violation on exported pages, in both themes and sizes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from sessiontree.archive.catalog import Catalog
from sessiontree.archive.search import SearchIndex
from sessiontree.exporter import ExportOptions
from sessiontree.pages.export import export_to_file
from sessiontree.pages.index_page import IndexOptions, render_index
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.site import layout
from sessiontree.site.build import BuildOptions, build_site
from tests.browser.axe import assert_clean, audit_page
from tests.browser.conftest import Server, open_page, wait_js
from tests.browser.pages import real_empty, real_session, write_sessions_folder
from tests.conftest import GenSession
from tests.readers.helpers import REAL
from tests.serve.conftest import append_line
from tests.serve.counting import USAGE_COUNTED
from tests.serve.process import serve_process
from tests.site.archive import PHRASE, make_archive
from tests.store.helpers import assistant, msg

pytestmark = pytest.mark.browser

WIDE: ViewportSize = {"width": 1280, "height": 800}
NARROW: ViewportSize = {"width": 390, "height": 844}
Theme = Literal["light", "dark"]
THEMES: tuple[Theme, ...] = ("light", "dark")


def wait_all_messages(page: Page) -> None:
    """Wait until the whole active path is in the DOM (the viewer adds it in idle chunks)."""
    wait_js(page, "document.querySelectorAll('#st-messages .st-edge:not([hidden])').length === 0")


def show_everything(page: Page) -> None:
    """Every entry kind, thinking, long outputs and collapsed sections open."""
    page.click('[data-filter="all"]')
    page.keyboard.press("t")
    page.keyboard.press("o")
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    wait_all_messages(page)


def open_sidebar_overlay(page: Page) -> None:
    page.click("#st-menu")
    wait_js(page, "getComputedStyle(document.getElementById('st-sidebar')).transform === 'none'")


def audit_wide(page: Page, url: str, where: str, *, zoom: bool) -> None:
    """Audit a viewer page at the wide size: all messages in, then with the help and the zoom open."""
    open_page(page, url)
    wait_all_messages(page)
    assert_clean(page, f"{where}, wide")
    page.keyboard.press("?")
    assert page.is_visible("#st-help")
    assert_clean(page, f"{where}, help overlay", include="#st-help")
    page.keyboard.press("Escape")
    if zoom:
        img = page.locator("img.st-img[src]").first
        img.scroll_into_view_if_needed()
        img.click()
        assert page.is_visible("#st-zoom")
        assert_clean(page, f"{where}, image zoom", include="#st-zoom")
        page.keyboard.press("Escape")


def audit_browsing(page: Page, session_url: str, search_url: str, where: str) -> None:
    """Audit the sessions pane (its filters open, narrow in the drawer too) and the search page with hits."""
    page.set_viewport_size(WIDE)
    open_page(page, session_url)
    page.wait_for_selector("#st-browse .st-browse-row", timeout=120_000)
    page.evaluate("document.querySelector('#st-browse details').open = true")
    assert_clean(page, f"{where}, sessions pane")
    page.set_viewport_size(NARROW)
    open_sidebar_overlay(page)
    assert_clean(page, f"{where}, sessions pane in the drawer")
    page.set_viewport_size(WIDE)
    page.goto(search_url)
    page.wait_for_selector(".st-fulltext-hit a", timeout=60_000)
    audit_both_widths(page, f"{where}, search page")
    page.set_viewport_size(WIDE)


def audit_export(browser: Browser, url: str, name: str, theme: Theme, *, zoom: bool) -> None:
    """Audit one export wide and narrow: plain, with every detail shown, the help overlay and the zoom."""
    with audit_page(browser, **WIDE) as page:
        page.emulate_media(color_scheme=theme)  # the export's theme is auto: it follows the system
        audit_wide(page, url, f"{name}, {theme}", zoom=zoom)
        page.set_viewport_size(NARROW)
        open_sidebar_overlay(page)
        show_everything(page)
        # Every tree row at once: a screen tall enough that the virtual tree renders them all.
        rows = page.evaluate("document.querySelector('#st-tree .st-tree-inner').offsetHeight")
        outline = page.evaluate("document.getElementById('st-outline').offsetHeight")  # at most 300 px
        page.set_viewport_size({"width": NARROW["width"], "height": min(rows + 400 + outline, 8000)})
        wait_js(page, f"document.querySelectorAll('#st-tree [role=treeitem]').length === {rows // 24}")
        assert_clean(page, f"{name}, {theme}, narrow, sidebar open, all rows", include="#st-sidebar")
        page.set_viewport_size(NARROW)
        page.keyboard.press("Escape")
        wait_js(page, "getComputedStyle(document.getElementById('st-sidebar')).visibility === 'hidden'")
        assert_clean(page, f"{name}, {theme}, narrow, everything shown")


@pytest.mark.parametrize("theme", THEMES)
def test_real_session_export_is_clean(browser: Browser, tmp_path: Path, theme: Theme) -> None:
    out = export_to_file(real_session(), tmp_path / "real.html")
    audit_export(browser, out.as_uri(), real_session().name, theme, zoom=False)


@pytest.mark.parametrize("theme", THEMES)
def test_claude_session_with_command_and_ide_chips_is_clean(
    browser: Browser, tmp_path: Path, theme: Theme
) -> None:
    # Slash-command and IDE-context chips, command output and an interruption notice (issue 23).
    source = next((REAL / "claude").glob("*cb2e607c*.jsonl"))
    out = export_to_file(source, tmp_path / "claude.html")
    audit_export(browser, out.as_uri(), "claude chips", theme, zoom=False)


@pytest.mark.parametrize("theme", THEMES)
def test_generated_session_export_is_clean(
    browser: Browser, gen_session: GenSession, tmp_path: Path, theme: Theme
) -> None:
    """Images, branches, a compaction, labels, custom messages, every entry type."""
    src = gen_session(30, blobs=True)
    out = export_to_file(src, tmp_path / "gen.html", ExportOptions(blobs_dir=src.parent / "blobs"))
    audit_export(browser, out.as_uri(), "generated session", theme, zoom=True)


def write_colour_session(path: Path) -> Path:
    """Write a session whose bash output uses every ANSI colour, plus a failed call and a label."""
    sgr = [f"\x1b[{c}mfg {c}\x1b[0m" for c in [*range(30, 38), *range(90, 98)]]
    sgr += [f"\x1b[{c}mbg {c}\x1b[0m" for c in range(40, 48)] + ["\x1b[1mbold\x1b[0m"]
    ts = "2026-02-16T10:21:00.000Z"

    def msg(eid: str, parent: str | None, message: dict[str, object]) -> dict[str, object]:
        return {"type": "message", "id": eid, "parentId": parent, "timestamp": ts, "message": message}

    def call(cid: str, command: str) -> dict[str, object]:
        return {"type": "toolCall", "id": cid, "name": "bash", "arguments": {"command": command}}

    def result(cid: str, text: str, error: bool) -> dict[str, object]:
        content = [{"type": "text", "text": text}]
        return {
            "role": "toolResult",
            "toolCallId": cid,
            "toolName": "bash",
            "content": content,
            "isError": error,
        }

    lines = [
        {
            "type": "session",
            "version": 3,
            "id": "colours",
            "timestamp": ts,
            "cwd": "/tmp/c",
            "title": "Colours",
        },
        msg("u1", None, {"role": "user", "content": [{"type": "text", "text": "Show the palette"}]}),
        msg("a1", "u1", {"role": "assistant", "content": [call("c1", "palette"), call("c2", "false")]}),
        msg("t1", "a1", result("c1", "\n".join(sgr), False)),
        msg("t2", "t1", result("c2", "exit status 1", True)),
        {
            "type": "label",
            "id": "l1",
            "parentId": "t2",
            "timestamp": ts,
            "targetId": "u1",
            "label": "palette",
        },
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("theme", THEMES)
def test_every_ansi_colour_reads_in_both_themes(browser: Browser, tmp_path: Path, theme: Theme) -> None:
    out = export_to_file(write_colour_session(tmp_path / "colours.jsonl"), tmp_path / "colours.html")
    with audit_page(browser, **WIDE) as page:
        page.emulate_media(color_scheme=theme)
        open_page(page, out.as_uri())
        show_everything(page)
        assert page.locator('#st-messages [class*="ansi-fg-"]').count() == 16
        assert page.locator('#st-messages [class*="ansi-bg-"]').count() == 8
        assert_clean(page, f"ANSI palette, {theme}")


def test_empty_session_and_empty_search_are_clean(browser: Browser, tmp_path: Path) -> None:
    with audit_page(browser, **WIDE) as page:
        open_page(page, export_to_file(real_empty(), tmp_path / "empty.html").as_uri())
        assert_clean(page, "a session with no entries")
        open_page(page, export_to_file(real_session(), tmp_path / "real.html").as_uri())
        page.fill("#st-search", "no entry says zzzyzzx")
        wait_js(page, "document.querySelector('#st-status').textContent.startsWith('0 /')")
        assert_clean(page, "a search without hits", include="#st-sidebar")


def audit_both_widths(page: Page, where: str) -> None:
    page.set_viewport_size(WIDE)
    assert_clean(page, f"{where}, wide")
    page.set_viewport_size(NARROW)
    assert_clean(page, f"{where}, narrow")


@pytest.mark.parametrize("theme", THEMES)
def test_index_page_is_clean(browser: Browser, tmp_path: Path, theme: Theme) -> None:
    entries = Catalog(write_sessions_folder(tmp_path / "sessions")).scan()
    out = tmp_path / "index.html"
    out.write_text(render_index(entries, lambda e: "s/" + e.key, IndexOptions(theme=theme)), encoding="utf-8")
    with audit_page(browser, **WIDE) as page:
        page.goto(out.as_uri())
        assert page.locator(".st-session").count() == len(entries) == 7
        audit_both_widths(page, f"index page, {theme}")
        page.fill("#st-filter", "no session says zzzyzzx")
        assert page.is_visible("#st-no-match")
        assert_clean(page, f"index page, {theme}, filtered to nothing")


@pytest.mark.parametrize("theme", THEMES)
def test_usage_page_is_clean(browser: Browser, tmp_path: Path, theme: Theme) -> None:
    root = write_sessions_folder(tmp_path / "sessions")
    with SearchIndex([root], tmp_path / "cache") as index:
        index.update()
        records = index.usage()
    options = UsagePageOptions(link_for=lambda p: "session?path=" + Path(p).name)
    out = tmp_path / "usage.html"
    out.write_text(render_usage_page(records, options), encoding="utf-8")
    with audit_page(browser, **WIDE) as page:
        page.emulate_media(color_scheme=theme)
        page.goto(out.as_uri())
        wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
        assert page.locator("#st-chart svg").count() == page.locator("#st-calendar svg").count() == 1
        page.click("summary")  # the chart's table too
        audit_both_widths(page, f"usage page, {theme}")
        page.select_option("#st-agent", "pi")
        page.fill("#st-from", "2099-01-01")  # filtered to nothing
        wait_js(page, "!document.getElementById('st-empty').hidden")
        assert_clean(page, f"usage page, {theme}, filtered to nothing")


def test_built_site_is_clean(
    browser: Browser, gen_session: GenSession, tmp_path: Path, http_server: Server
) -> None:
    """The static site over HTTP, both themes: index, Pagefind hits, usage, a session page (images by URL)."""
    archive = make_archive(tmp_path, gen_session)
    result = build_site(BuildOptions(root=archive.root, site=http_server.root, jobs=1))
    assert result.usage_written
    key = archive.app[0].relative_to(archive.root).as_posix()
    for theme in THEMES:
        with audit_page(browser, **WIDE) as page:
            page.emulate_media(color_scheme=theme)
            page.goto(http_server.url + "/index.html")
            audit_both_widths(page, f"site index, {theme}")
            page.set_viewport_size(WIDE)
            page.fill("#st-filter", PHRASE)
            page.wait_for_selector(".st-fulltext-hit a", timeout=60_000)
            assert_clean(page, f"site index with search hits, {theme}")
            page.goto(http_server.url + "/usage.html")
            wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
            assert page.locator("#st-chart svg").count() == 1
            audit_both_widths(page, f"site usage page, {theme}")
            page.set_viewport_size(WIDE)
            page.emulate_media(color_scheme=theme)
            audit_wide(
                page, f"{http_server.url}/{layout.page_path(key)}", f"site session page, {theme}", zoom=True
            )
            search = f"{http_server.url}/search.html?q={quote(PHRASE)}"
            audit_browsing(page, f"{http_server.url}/{layout.page_path(key)}", search, f"site, {theme}")


@pytest.mark.slow(seconds=60)
def test_served_pages_are_clean(browser: Browser, tmp_path: Path) -> None:
    """sessiontree serve (a real process), both themes: index, search, usage, sessions (one damaged), live."""
    agent = tmp_path / "agent"
    root = write_sessions_folder(agent / "sessions")
    damaged = root / "--home-dev-demo--" / "s1.jsonl"
    damaged.write_text(damaged.read_text(encoding="utf-8") + '{"type": "message", tru\n', encoding="utf-8")
    live = root / "--home-dev-demo--" / "s0.jsonl"
    with serve_process(root, agent, tmp_path / "cache") as served:
        for theme in THEMES:
            with audit_page(browser, **WIDE) as page:
                page.emulate_media(color_scheme=theme)
                page.goto(served.url + "/")
                wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
                audit_both_widths(page, f"served index, {theme}")
                page.set_viewport_size(WIDE)
                page.fill("#st-filter", "parser")
                page.wait_for_selector(".st-fulltext-hit a", timeout=60_000)
                assert_clean(page, f"served index with full-text hits, {theme}")
                page.goto(served.url + "/usage")
                page.wait_for_selector(USAGE_COUNTED, state="attached", timeout=60_000)  # no reload due
                audit_both_widths(page, f"served usage dashboard, {theme}")
                page.set_viewport_size(WIDE)
                for path in (root / "--home-dev-real--" / real_session().name, damaged):
                    url = f"{served.url}/s/{quote(path.relative_to(root).as_posix())}"
                    audit_wide(page, url, f"served {path.name}, {theme}", zoom=False)
                assert page.is_visible(".st-serve-notice")
                session = f"{served.url}/s/{quote(damaged.relative_to(root).as_posix())}"
                audit_browsing(page, session, f"{served.url}/search?q=parser", f"served, {theme}")
                page.goto(f"{served.url}/s/{quote(live.relative_to(root).as_posix())}")
                page.wait_for_selector("html[data-st-ready]")
                wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
                parent = json.loads(live.read_text(encoding="utf-8").splitlines()[-1])["id"]
                append_line(live, msg(f"live-{theme}", parent, "user", "typed while the page is open"))
                append_line(live, assistant(f"live-a-{theme}", f"live-{theme}", "answered live"))
                wait_js(page, f"window.sessiontree.leafId === 'live-a-{theme}'")
                wait_all_messages(page)
                assert_clean(page, f"served live session after appends, {theme}")
