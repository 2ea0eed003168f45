"""The open index's rows loading while a change is pushed: a real ``serve`` process and Chromium,
the rows' answer held (made by the server before the change) until the change was merged."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import APIResponse, Page, Route

from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import write_session
from tests.serve.process import agent_folder, serve_process

pytestmark = pytest.mark.browser

KEY = "--home-dev-demo--/2026-02-16T10-20-34_demo.jsonl"
NEW = "--work-new--/2026-03-01_new.jsonl"


def test_a_change_pushed_while_rows_load_is_not_undone_by_their_older_answer(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    # The rows of a new sort came after a pushed change, from a listing made before it: they took
    # the pushed rows' place, and the new session left the page until the folder changed again.
    folder = agent_folder(tmp_path, KEY, turns=3)
    held: list[tuple[Route, APIResponse]] = []
    let_through: list[bool] = []

    def hold(route: Route) -> None:
        if let_through:
            route.continue_()
        else:
            held.append((route, route.fetch()))  # answered by the server now, given to the page later

    with serve_process(folder / "sessions", folder, tmp_path / "cache") as served:
        page.goto(served.url + "/")
        page.wait_for_selector(".st-session")
        # The stream's first event handled (it may ask for the rows again): the next rows are the sort's.
        wait_js(page, "Number(document.documentElement.getAttribute('data-st-updates')) >= 1")
        page.route("**/api/index-rows*", hold)
        page.select_option("#st-sort", "size")  # rows asked for again, in place of those shown
        deadline = time.monotonic() + 120  # a bound for a hung page, not a timing assertion
        while not held:
            assert time.monotonic() < deadline, "the page never asked for its rows"
            page.wait_for_timeout(50)
        write_session(folder / "sessions" / NEW, "new1", "/work/new")
        row = f'.st-session[data-key="{NEW}"]'
        page.wait_for_selector(row, timeout=120_000)  # pushed and merged while the rows are held
        let_through.append(True)
        for route, response in held:
            route.fulfill(response=response)
        seen = f"[document.documentElement.getAttribute('data-st-rows'), !!document.querySelector('{row}')]"
        deadline = time.monotonic() + 120
        while (now := page.evaluate(seen)) != ["done", True]:  # the rows' answer in, and the row
            assert time.monotonic() < deadline, (
                f"rows {now[0]}, the new row shown: {now[1]}, held {len(held)}"
            )
            page.wait_for_timeout(30)
        page.unroute("**/api/index-rows*")
    assert watch.page_errors == []
