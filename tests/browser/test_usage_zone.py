"""The usage page's days are the reader's (issue 44 item 3): usage kept per UTC quarter hour is put
into days in the browser's zone, the zone named, on the served ``/usage`` and on a built site's
usage page. Real Chromium in Asia/Kolkata (+05:30) and in UTC, a real ``serve`` process and a
real HTTP server over a built site, both themes, 1280 and 400 px, axe-clean; the days and a range's
totals are ``sessiontree stats``' run with ``TZ`` set to the same zone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pytest
from playwright.sync_api import Browser, Page

from sessiontree.site.build import BuildOptions, build_site
from tests.archive.sessions import generate, set_times, write_lines
from tests.browser.axe import assert_clean
from tests.browser.conftest import wait_js
from tests.browser.test_site import serve_folder
from tests.serve.counting import TOTAL_FIELDS, USAGE_COUNTED
from tests.serve.process import serve_process

pytestmark = pytest.mark.browser

ZONE = "Asia/Kolkata"
NOON = datetime(2026, 3, 1, 12, tzinfo=UTC)  # 17:30 on the 1st in India
LATE = datetime(2026, 3, 1, 18, 40, tzinfo=UTC)  # 00:10 on the 2nd in India, still the 1st in UTC
Scheme = Literal["light", "dark"]


def _session(root: Path) -> tuple[int, int]:
    """A pi session whose first half is at noon UTC and second half at 18:40 UTC; its usage counts."""
    lines = generate(8, 44)
    half = len(lines) // 2
    counts = set_times(lines, lambda n: int(n >= half), (NOON, LATE))
    lines[0]["cwd"] = "/home/dev/late"
    write_lines(root / "late.jsonl", lines)
    return counts[0], counts[1]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, tuple[int, int]]]:
    base = tmp_path_factory.mktemp("usage-zone")
    root = base / "sessions"
    root.mkdir()
    yield base, _session(root)


def _open(browser: Browser, url: str, zone: str, width: int, scheme: Scheme) -> Page:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, timezone_id=zone, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)  # a ceiling on a loaded machine, not a timed assertion
    page.goto(url)
    page.wait_for_selector(USAGE_COUNTED, state="attached")  # served: every file counted
    return page


def _days(page: Page) -> dict[str, str]:
    """The calendar's days with usage: day -> what its cell says on hover."""
    titles: list[str] = page.eval_on_selector_all(
        "#st-calendar rect.st-cell > title", "ts => ts.map(t => t.textContent)"
    )
    return {t.split(": ")[0]: t for t in titles if not t.endswith("no usage")}


def _stats(base: Path, zone: str, *args: str) -> Any:
    """``sessiontree stats --json`` in its own process, in ``zone`` (``TZ``)."""
    cmd = [
        sys.executable, "-m", "sessiontree", "--agent-dir", str(base / "stats-agent"), "stats", "--json",
        "--root", str(base / "sessions"), "--cache-dir", str(base / "stats-cache"), *args,
    ]  # fmt: skip
    env = {**os.environ, "TZ": zone, "HOME": str(base)}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _figures(total: dict[str, Any]) -> dict[str, Any]:
    return {**{key: total[key] for key in TOTAL_FIELDS}, "cost": pytest.approx(total["cost"], abs=2e-6)}


def _shown(page: Page) -> dict[str, Any]:
    """What the page's JSON download holds."""
    with page.expect_download() as caught:
        page.click("#st-json")
    shown: dict[str, Any] = json.loads(Path(caught.value.path()).read_text(encoding="utf-8"))
    return shown


def _check(page: Page, zone: str, counts: tuple[int, int], where: str, base: Path) -> None:
    early, late = counts
    days = _days(page)
    if zone == "UTC":
        assert list(days) == ["2026-03-01"], days
        assert days["2026-03-01"].endswith(f", {early + late} messages")
    else:
        assert list(days) == ["2026-03-01", "2026-03-02"], days
        assert days["2026-03-01"].endswith(f", {early} messages")
        assert days["2026-03-02"].endswith(f", {late} messages")
    named = page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone")
    assert named in ({"UTC", "Etc/UTC"} if zone == "UTC" else {ZONE, "Asia/Calcutta"})  # ICU's older name
    assert page.inner_text("#st-zone") == named
    assert page.get_attribute("#st-zone", "title") == ("UTC+00:00 now" if zone == "UTC" else "UTC+05:30 now")
    assert f"({named})" in page.inner_text("#st-calendar-caption")
    # The same days, the same figures, as ``stats`` counts them in that zone.
    by_day = _stats(base, zone)
    assert by_day["zone"] == zone
    whole = _shown(page)
    assert whole["zone"] == named  # the download names its days' zone too
    assert {d["day"]: _figures(d) for d in whole["days"]} == {g["key"]: _figures(g) for g in by_day["groups"]}
    # A range is the reader's whole days: the 2nd holds the late half in India, nothing in UTC.
    page.fill("#st-from", "2026-03-02")
    page.fill("#st-to", "2026-03-02")
    page.dispatch_event("#st-to", "change")
    wait_js(page, "location.hash.includes('to=2026-03-02')")
    shown = _shown(page)
    assert shown["total"]["messages"] == (0 if zone == "UTC" else late), shown["total"]
    ranged = _stats(base, zone, "--since", "2026-03-02", "--until", "2026-03-02")["total"]
    assert {key: shown["total"][key] for key in TOTAL_FIELDS} == {key: ranged[key] for key in TOTAL_FIELDS}
    assert_clean(page, f"{where}'s usage page in {zone}")


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (400, "dark")])
@pytest.mark.parametrize("zone", [ZONE, "UTC"])
def test_usage_days_are_the_readers_on_serve_and_on_a_built_site(
    browser: Browser, sessions: tuple[Path, tuple[int, int]], zone: str, width: int, scheme: Scheme
) -> None:
    base, counts = sessions
    tag = f"{zone.replace('/', '-')}-{width}"
    with serve_process(base / "sessions", base / f"agent-{tag}", base / f"cache-{tag}") as served:
        page = _open(browser, served.url + "/usage", zone, width, scheme)
        try:
            _check(page, zone, counts, "serve", base)
        finally:
            page.context.close()
    site = base / f"site-{tag}"
    options = BuildOptions(root=base / "sessions", site=site, jobs=1, search=False)
    assert build_site(options).usage_written
    with serve_folder(site) as url:
        page = _open(browser, url + "/usage.html", zone, width, scheme)
        try:
            _check(page, zone, counts, "the built site", base)
        finally:
            page.context.close()
