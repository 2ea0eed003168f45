"""serve's usage page in Chromium over 200 sessions (issue 54): the first page of the top sessions
comes with the page, the next ones and a filter's are asked of ``/api/usage-sessions`` as the reader
pages and filters, every one equal to a brute-force count over the files (a copied message once)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.counting import USAGE_COUNTED
from tests.serve.process import serve_process
from tests.serve.test_usage_queries import _brute, _corpus, _ranked

pytestmark = pytest.mark.browser

SHOWN = """() => ({
    sessions: document.querySelector('#st-totals [data-total="Sessions"] dd').textContent,
    range: document.getElementById('st-top-range').textContent,
    next: document.getElementById('st-top-next').disabled,
    prev: document.getElementById('st-top-prev').disabled,
    top: Array.from(document.querySelectorAll('#st-top tbody tr')).map((tr) => [
        tr.querySelector('.st-path').textContent.split(' · ').pop(), Number(tr.cells[1].textContent)]),
    hrefs: Array.from(document.querySelectorAll('#st-top tbody a')).length,
})"""


def _settled(page: Page, before: int) -> dict[str, Any]:
    """What the page shows once drawn again and its sessions came (a state, not a time)."""
    wait_js(page, f"Number(document.getElementById('st-usage').dataset.drawn) > {before}")
    wait_js(page, "document.getElementById('st-usage').dataset.sessions !== 'asking'")
    shown: dict[str, Any] = page.evaluate(SHOWN)
    return shown


def _drawn(page: Page) -> int:
    return int(page.get_attribute("#st-usage", "data-drawn") or "0")


def test_top_sessions_page_and_filter_through_the_api(page: Page, watch: Watch, tmp_path: Path) -> None:
    paths = _corpus(tmp_path / "sessions", 200)
    ranked = [(path, messages) for path, messages, _ in _ranked(_brute(paths))]
    mine = [
        (path, messages)
        for path, messages, _ in _ranked(_brute(paths), lambda path, t: t["cwd"].startswith("/work/p1/"))
    ]
    with serve_process(tmp_path / "sessions", tmp_path / "agent", tmp_path / "cache") as served:
        page.goto(served.url + "/usage")
        page.wait_for_selector(USAGE_COUNTED, state="attached", timeout=60_000)
        first = _settled(page, 0)
        assert first["sessions"] == "200" and first["range"] == "1–50 of 200"
        assert [tuple(row) for row in first["top"]] == ranked[:50] and first["hrefs"] == 50
        assert first["prev"] and not first["next"]
        assert not any("/api/usage-sessions" in url for url in watch.requests)  # carried by the page

        before = _drawn(page)
        page.click("#st-top-next")
        second = _settled(page, before)
        assert second["range"] == "51–100 of 200" and not second["prev"]
        assert [tuple(row) for row in second["top"]] == ranked[50:100]

        before = _drawn(page)
        page.select_option("#st-project", "/work/p1/sub")  # a filter starts from the first page
        found = _settled(page, before)
        assert found["sessions"] == str(len(mine)) == "50" and found["range"] == "1–50 of 50"
        assert [tuple(row) for row in found["top"]] == mine and found["next"]
        assert sum("/api/usage-sessions" in url for url in watch.requests) == 2
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []
