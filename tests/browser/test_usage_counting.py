"""The served usage page while serve still counts, in Chromium: the totals so far, said to be so,
then the full totals once the count ends, with no action of the reader and the filters in the
URL kept through the reload (issue 42 item 2): one, once the page's event stream says every file
is counted (issue 54: a reload every 2 s made the answers again while the pass counted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Error, Page

from tests.browser.conftest import Watch, wait_js
from tests.serve.counting import USAGE_COUNTED, counting_folders, held_python, stats_totals
from tests.serve.process import serve_process

pytestmark = pytest.mark.browser

SHOWN = """() => {
    const main = document.getElementById('st-usage');
    const total = (name) => {
        const dd = document.querySelector(`#st-totals [data-total="${name}"] dd`);
        return dd ? Number(dd.textContent.replace(/,/g, '')) : null;
    };
    return {
        drawn: Number(main.dataset.drawn), counting: main.getAttribute('data-counting'),
        asking: main.dataset.sessions === 'asking',
        note: (document.getElementById('st-counting') || {}).textContent || '',
        project: document.getElementById('st-project').value,
        messages: total('Assistant messages'), sessions: total('Sessions'),
    };
}"""


def _shown(page: Page) -> dict[str, Any]:
    """What the page shows, read in one step once drawn with the sessions its filters keep (a
    chosen project's are asked of serve after the first draw) and serve's first listing is made,
    and a reload may come between two steps."""
    while True:
        wanted = '#st-usage:not([data-drawn="0"]):not([data-sessions="asking"])'
        page.wait_for_selector(wanted, state="attached", timeout=60_000)
        try:
            shown: dict[str, Any] = page.evaluate(SHOWN)
        except Error as exc:  # the page went away under the read: read the next one
            if "destroyed" in str(exc) or "navigat" in str(exc):
                continue
            raise
        # Before serve's first listing is made the page says it is still looking (a fresh cache:
        # nothing counted yet, ``tests/serve/test_usage_restart.py``), loaded again once listed: the next.
        if shown["drawn"] > 0 and not shown["asking"] and shown["counting"] != "unlisted":
            return shown


def test_usage_page_shows_the_totals_so_far_then_reaches_the_full_totals(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    root, small = counting_folders(tmp_path)
    everything, counted_first = stats_totals(root, tmp_path / "c1"), stats_totals(small, tmp_path / "c2")
    gate = tmp_path / "count-now"
    with serve_process(root, tmp_path / "agent", tmp_path / "cache", python=held_python(gate)) as served:
        # A project chosen (in the URL's hash, as the filters keep it): kept through every reload.
        page.goto(served.url + "/usage#project=" + quote("/home/dev/demo", safe=""))
        shown = _shown(page)
        assert shown["counting"] == "3" and "Still counting" in shown["note"]
        assert (shown["messages"], shown["sessions"]) == (counted_first["messages"], 2)
        assert shown["project"] == "/home/dev/demo"
        # The page follows serve's count over its event stream (no reload on a timer): open first.
        page.wait_for_selector('#st-usage[data-live="open"]', state="attached")
        gate.touch()
        page.wait_for_selector(USAGE_COUNTED, state="attached", timeout=120_000)  # reloaded once counted
        shown = _shown(page)
        assert shown["counting"] is None and shown["note"] == ""
        assert (shown["project"], shown["messages"]) == ("/home/dev/demo", counted_first["messages"])
        page.select_option("#st-project", "")
        wait_js(page, f"Number(document.getElementById('st-usage').dataset.drawn) > {shown['drawn']}")
        shown = _shown(page)
        assert (shown["messages"], shown["sessions"]) == (everything["messages"], 5)
        # Loaded twice: at first, and once the stream said every file was counted.
        assert [u for u in watch.requests if u.split("#")[0] == served.url + "/usage"] == [
            served.url + "/usage"
        ] * 2
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []
