"""A built site's message search puts the newest messages first when asked (issue 44 item 5), as
``serve``'s does: each Pagefind chunk carries its messages' times. Real sessions written to disk,
a real build with Pagefind, a real HTTP server process, real Chromium in both themes at 1280 and
400 px, axe-clean."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Literal

import pytest
from playwright.sync_api import Browser

from sessiontree.site.build import BuildOptions, build_site
from tests.archive.sessions import make_session, write_lines
from tests.browser.axe import assert_clean
from tests.browser.conftest import wait_js
from tests.browser.test_site import serve_folder

pytestmark = pytest.mark.browser

WORD = "zephyrquill"
NAMES = ["alpha", "bravo", "carbon", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper"]
Scheme = Literal["light", "dark"]


def _plant(path: Path, lines: list[dict[str, object]], names: Iterator[str]) -> list[tuple[int, str]]:
    """Put WORD and a word of its own in every long assistant text; return (epoch s, entry id) of each."""
    planted = []
    for line in lines:
        message = line.get("message")
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for block in message.get("content", []):
            if block.get("type") == "text" and len(block["text"]) > 40:
                block["text"] = f"{WORD} {next(names)} " + block["text"]
                when = datetime.fromisoformat(str(line["timestamp"]).replace("Z", "+00:00"))
                planted.append((int(when.timestamp()), str(line["id"])))
                break
    write_lines(path, lines)
    return planted


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[tuple[int, str]]]]:
    base = tmp_path_factory.mktemp("site-order")
    root = base / "sessions"
    names = iter(NAMES * 4)
    planted: list[tuple[int, str]] = []
    for n, days in enumerate([0, 9, 4]):  # written out of time order: the newest is not the first
        path, lines = make_session(root / f"p{n}", f"s{n}", seed=70 + n, turns=3, cwd=f"/w/p{n}", days=days)
        planted += _plant(path, lines, names)
    assert len(planted) >= 6
    site = base / "site"
    result = build_site(BuildOptions(root=root, site=site, jobs=1))
    assert result.search_records
    with serve_folder(site) as url:
        yield url, planted


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (400, "dark")])
def test_built_site_search_orders_hits_newest_first(
    browser: Browser, site: tuple[str, list[tuple[int, str]]], width: int, scheme: Scheme
) -> None:
    url, planted = site
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)  # a ceiling on a loaded machine, not a timed assertion
    try:
        page.goto(url + "/search.html")
        page.fill("#st-q", WORD)
        wait_js(page, f"document.querySelectorAll('.st-fulltext-hit').length === {len(planted)}")
        page.select_option("#st-order", "newest")
        newest = sorted(planted, reverse=True)
        first = json.dumps(newest[0][1])
        wait_js(
            page,
            f"(document.querySelector('.st-fulltext-hit a') || {{}}).href?.endsWith('targetId=' + {first})",
        )
        wait_js(page, f"document.querySelectorAll('.st-fulltext-hit').length === {len(planted)}")
        shown = page.eval_on_selector_all(
            ".st-fulltext-hit a",
            "as => as.map(a => [new URL(a.href).searchParams.get('targetId'),"
            " Date.parse(a.querySelector('time').getAttribute('datetime')) / 1000])",
        )
        assert [(int(t), i) for i, t in shown] == newest
        # Best match first: the same hits, each once.
        page.select_option("#st-order", "best")
        wait_js(page, f"document.querySelectorAll('.st-fulltext-hit').length === {len(planted)}")
        best = page.eval_on_selector_all(
            ".st-fulltext-hit a", "as => as.map(a => new URL(a.href).searchParams.get('targetId'))"
        )
        assert sorted(best) == sorted(i for _, i in planted)
        assert_clean(page, f"the built site's search, newest first, at {width} px, {scheme}")
    finally:
        context.close()
