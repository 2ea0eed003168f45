"""The usage dashboard in real Chromium, served by a real ``sessiontree serve`` process and as a
built site over a real HTTP server process: every filter changes every panel as
``sessiontree stats --json`` does for the same filter, the CSV is the table shown, home is linked."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import pytest
from click.testing import CliRunner
from playwright.sync_api import Page

from sessiontree.cli import cli
from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
from sessiontree.site.build import BuildOptions, build_site
from tests.archive.sessions import make_session, write_lines
from tests.browser.conftest import Server, Watch, wait_js
from tests.browser.test_site import serve_folder
from tests.pages.usage_records import many_models, start_of
from tests.readers.helpers import CODEX_NEW, TOUR
from tests.serve.counting import USAGE_COUNTED
from tests.serve.process import serve_process

pytestmark = pytest.mark.browser

HOSTILE = '<img src="http://example.invalid/x.png"><script>alert(1)</script>'
RANGE = {"from": "2026-03-03", "to": "2026-03-12"}
FILTERS: list[tuple[str, dict[str, str], list[str]]] = [
    ("everything", {}, []),
    ("a date range", RANGE, ["--since", RANGE["from"], "--until", RANGE["to"]]),
    ("a project and its folders", {"project": "/home/dev/app"}, ["--project", "/home/dev/app"]),
    ("an agent", {"agent": "pi"}, ["--agent", "pi"]),
    ("a model", {"model": HOSTILE}, ["--model", HOSTILE]),  # it has a "/": shown without its provider
]  # fmt: skip


def _folders(tmp: Path) -> list[Path]:
    """pi sessions in three projects over three weeks (one model renamed hostile), Claude Code, Codex."""
    pi = tmp / "pi"
    spread = [
        ("/home/dev/app", 0),
        ("/home/dev/app/sub", 4),
        ("/home/dev/lib", 9),
        ("/home/dev/application", 15),
    ]
    for i, (cwd, days) in enumerate(spread):
        path, lines = make_session(
            pi / f"p{i}", f"s{i}", seed=60 + i, turns=10, title=f"Session {i} {HOSTILE}", cwd=cwd, days=days
        )
        for n, line in enumerate(lines):
            message = line.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and n % 3 == 0:
                message["provider"], message["model"] = "evil", HOSTILE
        write_lines(path, lines)
    claude = tmp / "claude" / "-home-dev-tour"
    claude.mkdir(parents=True)
    shutil.copy(TOUR, claude / TOUR.name)
    codex = tmp / "codex" / "2026" / "01" / "06"
    codex.mkdir(parents=True)
    shutil.copy(CODEX_NEW, codex / CODEX_NEW.name)
    return [pi, tmp / "claude", tmp / "codex"]


def _stats(roots: list[Path], cache: Path, by: str, args: list[str]) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli,
        [
            "stats",
            "--json",
            "--by",
            by,
            "--cache-dir",
            str(cache),
            *args,
            *(a for r in roots for a in ("--root", str(r))),
        ],
    )
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _redraw(page: Page, control: str, value: str) -> None:
    before = int(page.get_attribute("#st-usage", "data-drawn") or "0")
    if control in ("from", "to"):
        page.fill(f"#st-{control}", value)
    else:
        page.select_option(f"#st-{control}", value)
    wait_js(page, f"Number(document.getElementById('st-usage').dataset.drawn) > {before}")


def _apply(page: Page, filters: dict[str, str]) -> None:
    before = int(page.get_attribute("#st-usage", "data-drawn") or "0")
    page.click("#st-reset")
    wait_js(page, f"Number(document.getElementById('st-usage').dataset.drawn) > {before}")
    for control, value in filters.items():
        _redraw(page, control, value)
    # serve's page asks for the sessions these filters keep: drawn again once they came.
    wait_js(page, "document.getElementById('st-usage').dataset.sessions !== 'asking'")


def _shown(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => {
        const cells = (sel) => Array.from(document.querySelectorAll(sel)).map(
            (tr) => Array.from(tr.cells).map((c) => c.textContent));
        const totals = {};
        for (const d of document.querySelectorAll('#st-totals [data-total]')) {
            totals[d.dataset.total] = d.querySelector('dd').textContent;
        }
        return {
            totals,
            series: cells('#st-series tbody tr'),
            top: Array.from(document.querySelectorAll('#st-top tbody tr')).map((tr) => ({
                path: tr.querySelector('.st-path').textContent,
                href: tr.querySelector('a') && tr.querySelector('a').getAttribute('href'),
                messages: tr.cells[1].textContent, cost: tr.cells[3].textContent })),
            active: document.querySelectorAll('#st-calendar rect.st-cell:not(.st-l0)').length,
            bars: document.querySelectorAll('#st-chart rect.st-bar').length,
            unpriced: document.getElementById('st-unpriced').textContent,
            costTitle: document.querySelector('#st-totals [data-total="Cost"] dd').title,
            note: (({ hidden, textContent }) => (hidden ? '' : textContent))(
                document.getElementById('st-top-note')),
        };
    }"""
    )
    return result


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def _dollars(amount: float | None, unpriced: object = None) -> str:
    """How a cost cell starts: dollars as stats prints them, or that no price was known."""
    if amount is None:
        return "no price for" if unpriced else "-"
    return f"${amount:,.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.4f}"


def _check_against_stats(page: Page, roots: list[Path], cache: Path, args: list[str], where: str) -> None:
    """The page's panels against ``stats``, its top sessions too (serve's from its API, a built site's
    carried by the page or, for a date range or two filters, ranked from its files of sessions)."""
    shown = _shown(page)
    by_session = _stats(roots, cache, "session", args)
    total = by_session["total"]
    t = shown["totals"]
    for name, field in (("Input", "input"), ("Output", "output"), ("Cache read", "cacheRead")):
        assert _count(t[name]) == total[field], (where, name)
    assert _count(t["Cache write"]) == total["cacheWrite"], where
    assert _count(t["Assistant messages"]) == total["messages"] > 0, where
    assert t["Cost"].startswith(_dollars(total["cost"], total["unpricedModels"])), (where, t["Cost"], total)
    assert ("estimated" in t["Cost"]) == total["costEstimated"], where
    for model in total["unpricedModels"]:  # named in the note and on the total's hover
        assert model in shown["costTitle"] and model in shown["unpriced"], where
    assert ("without a price" in t["Cost"]) == bool(
        total["unpricedModels"] or "recorded as $0" in shown["unpriced"]
    )
    prompt = total["input"] + total["cacheRead"] + total["cacheWrite"]
    assert t["Cache hit ratio"] == (f"{100 * total['cacheRead'] / prompt:.1f}%" if prompt else "-"), where
    days = [g for g in _stats(roots, cache, "day", args)["groups"] if g["key"] != "unknown"]
    assert _count(t["Active days"]) == len(days) == shown["active"], where
    assert _count(t["Sessions"]) == len(by_session["groups"]), where
    assert [row["path"].rsplit(" · ", 1)[-1] for row in shown["top"]] == [
        g["key"] for g in by_session["groups"][:20]
    ], where
    for row, group in zip(shown["top"], by_session["groups"], strict=False):
        assert _count(row["messages"]) == group["messages"] and row["cost"].startswith(
            _dollars(group["cost"], group["unpricedModels"])
        )
        assert row["href"], where
    by_model = {g["key"]: g for g in _stats(roots, cache, "model", args)["groups"]}
    summed: dict[str, int] = {}
    for cells in shown["series"]:
        summed[cells[1]] = summed.get(cells[1], 0) + _count(cells[2])
    dated = {k: g["messages"] for k, g in by_model.items()}
    assert summed.items() <= dated.items() and set(summed) == set(by_model), (
        where
    )  # undated rows are not drawn
    assert shown["bars"] > 0, where


def _check_filters(page: Page, roots: list[Path], cache: Path) -> None:
    wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
    seen: list[dict[str, Any]] = []
    for where, filters, args in FILTERS:
        _apply(page, filters)
        _check_against_stats(page, roots, cache, args, where)
        shown = _shown(page)
        assert shown not in seen, f"{where}: a panel did not change"
        seen.append(shown)


def _check_csv(page: Page) -> None:
    page.select_option("#st-by", "project")
    with page.expect_download() as caught:
        page.click("#st-csv")
    text = Path(caught.value.path()).read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    table = _shown(page)["series"]
    assert len(rows) == len(table) > 0
    for row, cells in zip(rows, table, strict=True):
        assert [row["period"], row["group"]] == cells[:2]
        fields = ("messages", "input", "output", "cacheRead", "cacheWrite")
        assert [int(row[f]) for f in fields] == [_count(c) for c in cells[2:7]]
        cost = float(row["cost"]) if row["cost"] else None
        assert cells[7].startswith(_dollars(cost, row["unpricedModels"]))
    with page.expect_download() as caught:
        page.click("#st-json")
    shown = json.loads(Path(caught.value.path()).read_text(encoding="utf-8"))
    assert len(shown["over"]["rows"]) == len(rows) and shown["filters"]["project"] == ""


def test_served_dashboard_filters_agree_with_stats(page: Page, watch: Watch, tmp_path: Path) -> None:
    roots = _folders(tmp_path / "sessions")
    extra = [a for r in roots[1:] for a in ("--root", str(r))]
    with serve_process(roots[0], tmp_path / "agent", tmp_path / "serve-cache", *extra) as served:
        page.goto(served.url + "/usage")
        # Every file counted (a page of the totals so far loads itself again then): a state.
        page.wait_for_selector(USAGE_COUNTED, state="attached", timeout=60_000)
        _check_filters(page, roots, tmp_path / "stats-cache")
        _check_csv(page)
        # The filters live in the URL: a reload keeps them.
        _apply(page, {"agent": "pi", "model": HOSTILE})
        page.reload()
        wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
        assert page.input_value("#st-agent") == "pi" and page.input_value("#st-model") == HOSTILE
        href = page.locator("#st-top a").first.get_attribute("href")
        assert href is not None and href.startswith("/s/")
        page.click("#st-home")
        page.wait_for_url(served.url + "/")
    origin = served.url
    assert all(url.startswith(origin) or url.startswith("blob:") for url in watch.requests), watch.requests
    # The hostile model name goes to the server's own API as a filter, never as an address.
    assert all(urlsplit(url).hostname in ("127.0.0.1", None) for url in watch.requests), watch.requests
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []


def test_built_dashboard_filters_agree_with_stats(page: Page, watch: Watch, tmp_path: Path) -> None:
    roots = _folders(tmp_path / "sessions")
    site = tmp_path / "site"
    options = BuildOptions(root=roots[0], more_roots=tuple(roots[1:]), site=site, jobs=1, search=False)
    assert build_site(options).usage_written
    with serve_folder(site) as url:
        page.goto(f"{url}/usage.html")
        _check_filters(page, roots, tmp_path / "stats-cache")
        _check_csv(page)
        page.locator("#st-top a").first.click()
        page.wait_for_url(re.compile(rf"{url}/sessions/.*\.html"))
        page.go_back()
        wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
        page.click("#st-home")
        page.wait_for_url(f"{url}/index.html")
    assert all(u.startswith(url) or u.startswith("blob:") for u in watch.requests), watch.requests
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
    wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
    assert page.locator("#st-top tbody tr").count() == 12
    page.click("summary")
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    fills = page.evaluate(
        "Array.from(document.querySelectorAll('.st-legend .st-swatch'))"
        ".map(s => getComputedStyle(s).backgroundColor)"
    )
    assert len(fills) == 9 and len(set(fills)) == 9  # eight models and "other", each its own colour
    assert "other (4 models)" in page.inner_text("#st-legend")
