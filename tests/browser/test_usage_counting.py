"""The served usage page while serve still counts, in Chromium: the totals so far, said to be so,
then the full totals once the count ends, with no action of the reader (issue 42 item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import Watch
from tests.serve.counting import USAGE_COUNTED, counting_folders, held_python, stats_totals
from tests.serve.process import serve_process

pytestmark = pytest.mark.browser

DRAWN = '#st-usage:not([data-drawn="0"])'


def _shown(page: Page, name: str) -> int:
    text = page.inner_text(f'#st-totals [data-total="{name}"] dd')
    return int(text.replace(",", ""))


def test_usage_page_shows_the_totals_so_far_then_reaches_the_full_totals(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    root, small = counting_folders(tmp_path)
    everything, counted_first = stats_totals(root, tmp_path / "c1"), stats_totals(small, tmp_path / "c2")
    gate = tmp_path / "count-now"
    with serve_process(root, tmp_path / "agent", tmp_path / "cache", python=held_python(gate)) as served:
        page.goto(served.url + "/usage")
        page.wait_for_selector(DRAWN)
        assert page.get_attribute("#st-usage", "data-counting") == "3"
        assert "Still counting" in page.inner_text("#st-counting")
        assert _shown(page, "Assistant messages") == counted_first["messages"]
        assert _shown(page, "Sessions") == 2
        gate.touch()
        page.wait_for_selector(USAGE_COUNTED, state="attached", timeout=120_000)  # reloaded until counted
        assert page.locator("#st-counting").count() == 0
        assert _shown(page, "Assistant messages") == everything["messages"]
        assert _shown(page, "Sessions") == 5
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []
