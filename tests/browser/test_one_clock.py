"""One clock (issue 44 item 3): every time on the index, the search page and a session page in the
reader's zone with the zone named and UTC on hover; the index's "created" is the first entry's
time. Real Chromium on a real ``serve`` process over real files, both themes, 1280 and 400 px."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Literal

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.axe import assert_clean
from tests.browser.conftest import wait_js
from tests.conftest import real_file
from tests.serve.process import Served, serve_process

pytestmark = pytest.mark.browser

PI = "pi/pi-mono--test_fixtures_before-compaction.jsonl"
CLAUDE = (
    "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-danieldemmel-me-next_"
    "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
)
ZONE = "Asia/Kolkata"  # +05:30: a zone no test machine runs in by chance


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("clock")
    root = base / "sessions"
    for name in (PI, CLAUDE):
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(real_file(name), target)
    with serve_process(root, base / "agent", base / "cache") as server:
        yield server


Scheme = Literal["light", "dark"]


def _page(browser: Browser, width: int, scheme: Scheme) -> Page:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, timezone_id=ZONE, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(60_000)
    setattr(page, "st_errors", errors)  # noqa: B010 - read back by the test
    return page


def _times(page: Page, scope: str) -> list[list[str]]:
    return page.eval_on_selector_all(
        f"{scope} time[datetime]",
        "ts => ts.map(t => [t.textContent, t.title, t.hasAttribute('data-st-local') ? 'y' : ''])",
    )


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (400, "dark")])
def test_every_time_is_in_the_reader_zone(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _page(browser, width, scheme)
    try:
        page.goto(served.url + "/")
        wait_js(page, "document.querySelectorAll('#st-groups time[data-st-local]').length >= 4")
        row = page.locator(".st-session", has_text="alright, read").first
        created = row.locator("time").first
        # The header says 2025-12-09T00:53Z (rewritten later); the first entry 2025-12-08T22:41:05Z.
        assert created.inner_text() == "2025-12-09 04:11 GMT+5:30"
        assert created.get_attribute("title") == "2025-12-09 · 2025-12-08 22:41:05 UTC"
        times = _times(page, "#st-groups")
        assert times and all(t[2] == "y" and "GMT+5:30" in t[0] and t[1].endswith(" UTC") for t in times)
        assert_clean(page, f"the index at {width} px, {scheme}")

        page.goto(served.url + "/search?q=misnomer")
        wait_js(page, "document.querySelectorAll('.st-fulltext-hit time[data-st-local]').length > 0")
        hit = _times(page, ".st-fulltext-hit")[0]
        assert hit[0] == "2025-12-09 04:11 GMT+5:30" and hit[1].endswith("2025-12-08 22:41:05 UTC"), hit
        assert_clean(page, f"the search page at {width} px, {scheme}")

        page.goto(served.url + "/s/" + PI)
        page.wait_for_selector("html[data-st-ready]")
        when = _times(page, "#st-header")
        assert when and when[0][0] == "2025-12-09 04:11:05 GMT+5:30", when
        assert all(t[2] == "y" for t in _times(page, "#st-messages"))
        assert getattr(page, "st_errors") == []  # noqa: B009
    finally:
        page.context.close()
