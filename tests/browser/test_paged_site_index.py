"""A built site's index at more sessions than its first window, in Chromium over HTTP: the page
carries the first rows, scrolling fetches the files of the rest, and the filter, a project and a
sort reach rows the page did not carry (issue 42 item 3; ``test_paged_index`` is serve's)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.pages.index_rows import CHUNK_ROWS, FIRST_ROWS
from sessiontree.site.build import BuildOptions, build_site
from tests.browser.conftest import Watch, wait_js
from tests.browser.test_site import serve_folder
from tests.serve.conftest import write_session

pytestmark = pytest.mark.browser

COUNT = FIRST_ROWS + CHUNK_ROWS + 50
SHOWN = "#st-groups > .st-group:not([hidden]) > .st-sessions > .st-session:not([hidden])"
ROWS = f"document.querySelectorAll('{SHOWN}').length"
DONE = "document.documentElement.getAttribute('data-st-rows') === 'done'"
OLDEST = "li.st-session[data-key='--work-p0--/s000.jsonl']"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("paged-site")
    root = base / "sessions"
    for n in range(COUNT):
        path = write_session(root / f"--work-p{n % 5}--" / f"s{n:03}.jsonl", f"id{n:03}", f"/work/p{n % 5}")
        if n == 1:  # the largest session, and the second oldest
            path.write_text(path.read_text(encoding="utf-8") + " " * 5000 + "\n", encoding="utf-8")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))
    site = base / "site"
    result = build_site(BuildOptions(root=root, site=site, jobs=2, search=False, usage=False))
    assert not result.failures
    return site


@pytest.fixture(scope="module")
def url(site: Path) -> Iterator[str]:
    with serve_folder(site) as found:
        yield found


def _open(page: Page, url: str) -> None:
    page.goto(url + "/index.html")
    page.wait_for_selector(".st-session")
    assert page.evaluate(ROWS) == FIRST_ROWS
    assert page.locator(OLDEST).count() == 0


def _chunk_names(site: Path) -> list[str]:
    page = (site / "index.html").read_text(encoding="utf-8")
    found = re.search(r'data-chunk-list="([^"]*)"', page)
    assert found is not None
    return [f"index-rows-{name}.json" for name in found.group(1).split()]


def test_the_site_index_page_carries_its_first_window(site: Path) -> None:
    page = (site / "index.html").read_text(encoding="utf-8")
    assert page.count('<li class="st-session') == FIRST_ROWS
    assert sorted(p.name for p in site.glob("index-rows-*.json")) == sorted(_chunk_names(site))


def test_scrolling_reaches_every_row(site: Path, url: str, page: Page, watch: Watch) -> None:
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url.rsplit("/", 1)[-1]))
    _open(page, url)
    assert not [f for f in fetched if f.startswith("index-rows-")]  # nothing past the first screen
    for _ in _chunk_names(site):  # a file a scroll
        shown = page.evaluate(ROWS)
        if shown == COUNT:
            break
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        wait_js(page, f"{ROWS} > {shown} && {DONE}")
    wait_js(page, f"{ROWS} === {COUNT}")
    assert page.locator("#st-more").is_hidden()
    keys = page.eval_on_selector_all(".st-session", "rows => rows.map((r) => r.dataset.key)")
    assert len(set(keys)) == COUNT
    assert [f for f in fetched if f.startswith("index-rows-")] == _chunk_names(site)  # each once, in order
    assert watch.page_errors == [] and watch.console_errors == []


def test_filter_project_and_sort_reach_rows_the_page_did_not_carry(
    url: str, page: Page, watch: Watch
) -> None:
    _open(page, url)
    page.fill("#st-filter", "hello from id000")
    page.wait_for_selector(OLDEST + ":not([hidden])")
    wait_js(page, f"{DONE} && {ROWS} === 1")
    page.fill("#st-filter", "no session says this")
    page.wait_for_selector("#st-no-match:not([hidden])")
    page.fill("#st-filter", "")
    wait_js(page, f"{ROWS} === {COUNT}")  # every file was fetched to filter

    _open(page, url)
    page.select_option("#st-project-filter", "/work/p3")
    wait_js(page, f"{DONE} && {ROWS} === {COUNT // 5}")
    assert page.evaluate("[...document.querySelectorAll('#st-groups > .st-group:not([hidden])')].length") == 1

    _open(page, url)
    page.select_option("#st-sort", "size")
    wait_js(
        page,
        f"{DONE} && document.querySelector('{SHOWN}').dataset.key === '--work-p1--/s001.jsonl'",
    )
    assert page.evaluate(ROWS) == COUNT
    assert watch.page_errors == [] and watch.console_errors == []
