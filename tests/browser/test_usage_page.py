"""The usage page in real Chromium: the server-made SVG chart draws, nothing is fetched, nothing runs."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Page

from sessiontree.archive.search import SearchIndex
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from tests.archive.sessions import make_session, write_lines
from tests.browser.conftest import Server, Watch
from tests.pages.usage_records import many_models, start_of

pytestmark = pytest.mark.browser


def test_usage_chart_renders_without_network(
    page: Page, watch: Watch, http_server: Server, tmp_path: Path
) -> None:
    roots = tmp_path / "sessions"
    hostile = '<img src="http://example.invalid/x.png"><script>alert(1)</script>'
    for i, days in enumerate((0, 1, 4)):
        path, lines = make_session(
            roots / "p", f"s{i}", seed=40 + i, turns=12, title=f"Session {i} {hostile}", days=days
        )
        for n, line in enumerate(lines):
            message = line.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and n % 2:
                message["provider"], message["model"] = "evil", hostile
        write_lines(path, lines)
    with SearchIndex([roots], tmp_path / "cache") as index:
        index.update()
        records = index.usage()
    html = render_usage_page(records, UsagePageOptions(link_for=lambda p: "session?path=" + Path(p).name))
    (http_server.root / "usage.html").write_text(html, encoding="utf-8")
    page.goto(f"{http_server.url}/usage.html")
    charts = page.locator("figure.st-usage-chart svg")
    assert charts.count() == 2
    for i in range(2):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100
    bars = page.locator("figure.st-usage-chart svg rect.st-bar")
    assert bars.count() >= 2 * 3 * 2  # two charts, three days, two models
    first = bars.first.bounding_box()
    assert first is not None and first["height"] > 0
    colours = page.evaluate(
        "Array.from(document.querySelectorAll('rect.st-bar')).map(r => getComputedStyle(r).fill)"
    )
    assert len(set(colours)) == 2 and "none" not in colours
    links = page.locator("table.st-top a")
    href = links.first.get_attribute("href", timeout=1000)
    assert links.count() == 3 and href is not None and href.startswith("session?path=")
    assert page.locator("script").count() == 0 and page.locator("main img").count() == 0
    assert "<script>alert(1)</script>" in page.locator("table.st-top").inner_text()
    assert watch.requests == [f"{http_server.url}/usage.html"]
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_usage_page_at_400px_has_no_horizontal_overflow(
    page: Page, http_server: Server, scheme: Literal["light", "dark"]
) -> None:
    """Twelve models with unbroken names and titles over fourteen months, on a phone-wide window."""
    html = render_usage_page(
        many_models(12, start_of(2025, 11, 20), 420, no_cost=3),
        UsagePageOptions(link_for=lambda p: "session.html"),
    )
    (http_server.root / "usage.html").write_text(html, encoding="utf-8")
    page.set_viewport_size({"width": 400, "height": 800})
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{http_server.url}/usage.html")
    assert page.locator("table.st-top tr").count() > 10
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    fills = page.evaluate(
        "Array.from(document.querySelectorAll('.st-legend .st-swatch'))"
        ".map(s => getComputedStyle(s).backgroundColor)"
    )
    assert len(fills) == 9 and len(set(fills)) == 9  # eight models and "other", each its own colour
