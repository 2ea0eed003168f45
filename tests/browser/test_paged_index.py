"""The served index at more sessions than its first window: Chromium scrolls to the rest, the
filter, sort and project choice reach rows the page did not carry, a new session arrives live."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from sessiontree.pages.index_rows import FIRST_ROWS
from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import write_session
from tests.serve.process import Served, listed, serve_process

COUNT = FIRST_ROWS + 150
ROWS = "document.querySelectorAll('#st-groups > .st-group > .st-sessions > .st-session:not([hidden])').length"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    for n in range(COUNT):
        path = write_session(root / f"--work-p{n % 5}--" / f"s{n:03}.jsonl", f"id{n:03}", f"/work/p{n % 5}")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))
    return root


@pytest.fixture
def served(root: Path, tmp_path: Path) -> Iterator[Served]:
    with serve_process(root, tmp_path / "agent", tmp_path / "cache") as s:
        with httpx.Client(base_url=s.url, timeout=120) as client:
            listed(client)  # every row read: the rows counted below are not corrected meanwhile
        yield s


def test_scrolling_filtering_and_sorting_reach_every_row(
    served: Served, root: Path, page: Page, watch: Watch
) -> None:
    page.goto(served.url + "/")
    wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
    assert page.evaluate(ROWS) == FIRST_ROWS
    # Scrolling to the end brings the next windows until every row is there.
    for _ in range(5):
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        if page.evaluate(ROWS) == COUNT:
            break
        wait_js(
            page, f"{ROWS} > {FIRST_ROWS} && document.documentElement.getAttribute('data-st-rows') === 'done'"
        )
    wait_js(page, f"{ROWS} === {COUNT}")
    assert page.locator("#st-more").is_hidden()

    # The oldest session (past the first window) by the filter, from a fresh page.
    page.goto(served.url + "/")
    page.wait_for_selector(".st-session")
    assert page.locator("li.st-session[data-key='--work-p0--/s000.jsonl']").count() == 0
    page.fill("#st-filter", "hello from id000")
    page.wait_for_selector("li.st-session[data-key='--work-p0--/s000.jsonl']:not([hidden])")
    wait_js(page, f"{ROWS} === 1")
    page.fill("#st-filter", "")
    wait_js(page, f"{ROWS} === {FIRST_ROWS}")

    # The project filter: only its group, its newest rows first.
    page.select_option("#st-project-filter", "/work/p3")
    wait_js(
        page,
        "[...document.querySelectorAll('#st-groups > .st-group')].every((g) => g.dataset.cwd === '/work/p3')",
    )
    wait_js(page, f"{ROWS} === {COUNT // 5}")
    page.select_option("#st-project-filter", "")

    # Sorted by size: the largest session first, though it is the oldest.
    big = root / "--work-p1--" / "s001.jsonl"
    with open(big, "a", encoding="utf-8") as fh:
        fh.write(" " * 5000 + "\n")  # a blank line makes the file the largest (and newest)
    os.utime(big, (1_600_000_000, 1_600_000_000))  # ... but the oldest by last activity
    # The server lists what its watcher reported: wait until its rows by size begin with the grown
    # one (whether the open page learns it as a pushed row or as a reload depends on when its
    # event stream reconnected after the navigations above, so the page is not what is waited on).
    by_size = served.url + "/api/index-rows?sort=size&limit=1"
    wait_js(page, f"fetch({by_size!r}).then((r) => r.json()).then((d) => d.html.includes('s001.jsonl'))")
    page.reload()
    page.wait_for_selector(".st-session")
    page.select_option("#st-sort", "size")
    wait_js(page, "document.querySelector('#st-groups .st-session').dataset.key === '--work-p1--/s001.jsonl'")
    assert watch.page_errors == [] and watch.console_errors == []


def test_a_new_session_arrives_on_the_paged_index(
    served: Served, root: Path, page: Page, watch: Watch
) -> None:
    page.goto(served.url + "/")
    wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
    write_session(root / "--work-fresh--" / "new.jsonl", "fresh", "/work/fresh")
    page.wait_for_selector("li.st-session[data-key='--work-fresh--/new.jsonl'] >> text=hello from fresh")
    # At the top (the newest), and the rows that did not change are still there once each.
    assert page.evaluate("document.querySelector('#st-groups .st-group').dataset.cwd") == "/work/fresh"
    assert page.evaluate(ROWS) == FIRST_ROWS + 1
    assert watch.page_errors == [] and watch.console_errors == []
