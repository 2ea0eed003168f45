"""A built site's usage page lists the top sessions of a date range and of two filters at once
(issue 54) from its files of sessions by UTC month beside usage.html: in real Chromium over a real
``python -m http.server``, exactly the sessions a brute-force count over the files gives (a copied
message once, in the oldest file) and equal to serve's ``/api/usage-sessions`` for the same filter;
a one-month range fetches that month's file only; opened from a file it fetches nothing and says so."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page

from sessiontree.site.build import BuildOptions, build_site
from tests.browser.conftest import Watch, wait_js
from tests.browser.test_site import serve_folder
from tests.browser.test_usage_paged import _drawn, _settled
from tests.serve.process import serve_process
from tests.serve.test_usage_queries import _brute as brute
from tests.serve.test_usage_queries import _counted
from tests.serve.test_usage_queries import _reply as served_reply
from tests.store.helpers import header, msg

pytestmark = pytest.mark.browser

PROJECTS = ("/work/p0", "/work/p1", "/work/p1/sub", "/work/p10")
COUNT = 90


def _stamp(n: int, k: int) -> datetime:
    """Session ``n``'s ``k``-th reply: March, April or May (every seventh's second reply a month on),
    days 5-14 at midday UTC (the same days in any zone)."""
    month = 3 + n % 3 + (1 if n % 7 == 0 and k == 2 else 0)
    return datetime(2026, month, 5 + n % 10, 11 + n % 3, k * 7, tzinfo=UTC)


def _reply(entry_id: str, parent: str, n: int, k: int) -> dict[str, Any]:
    """serve's tests' reply (counts and a cost unique to it), at ``_stamp``."""
    reply = served_reply(entry_id, parent, n, k)
    reply["timestamp"] = _stamp(n, k).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return reply


def _corpus(root: Path) -> list[Path]:
    """Pi sessions over four projects, two models, three months; every tenth a fork that copies the
    first reply of the session before it (one message, counted in the older file)."""
    paths = []
    base = datetime(2026, 3, 1, tzinfo=UTC).timestamp()
    for n in range(COUNT):
        cwd = PROJECTS[n % len(PROJECTS)]
        folder = root / ("--" + cwd.strip("/").replace("/", "-") + "--")
        lines = [header(f"s{n}", cwd=cwd), msg("u1", None, "user", f"question {n}")]
        if n % 10 == 9:
            lines.append(_reply(f"a{n - 1}-1", "u1", n - 1, 1))
        lines += [_reply(f"a{n}-1", "u1", n, 1), _reply(f"a{n}-2", f"a{n}-1", n, 2)]
        path = folder / f"2026-03-01T00-00-00-000Z_s{n:05}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        os.utime(path, (base + n, base + n))
        paths.append(path)
    return paths


def _brute(paths: list[Path], keep: Callable[[str, str, int], bool]) -> list[tuple[str, int]]:
    """The sessions ``keep`` (folder, model, time in ms) keeps, from the files' lines (a message in the
    oldest file only), ranked as serve ranks them: most cost, then tokens, then path."""
    per = brute(paths, keep)
    ranked = sorted(per.items(), key=lambda item: (-round(item[1]["cost"], 9), -item[1]["tokens"], item[0]))
    return [(path, t["messages"]) for path, t in ranked]


def _ms(year: int, month: int, day: int) -> int:
    return int(datetime(year, month, day, tzinfo=UTC).timestamp() * 1000)


def _shown(page: Page, hash_: str) -> dict[str, Any]:
    """What the page lists once the filters of ``hash_`` are drawn and their sessions came."""
    before = _drawn(page)
    page.evaluate("(h) => { location.hash = h; }", hash_)
    shown = _settled(page, before)
    shown["state"] = page.get_attribute("#st-usage", "data-sessions")
    shown["note"] = page.text_content("#st-top-note")
    return shown


def _chunks_asked(watch: Watch) -> list[str]:
    return sorted(url.rsplit("/", 1)[-1] for url in watch.requests if "/usage-sessions-" in url)


def test_a_date_range_and_two_filters_list_their_top_sessions(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    paths = _corpus(tmp_path / "sessions")
    site = tmp_path / "site"
    build_site(BuildOptions(root=tmp_path / "sessions", site=site, jobs=1, search=False))
    assert sorted(p.name for p in site.glob("usage-sessions-*.json")) == [
        f"usage-sessions-2026-0{m}.json" for m in (3, 4, 5, 6)
    ]
    april = _brute(paths, lambda cwd, model, ms: _ms(2026, 4, 1) <= ms < _ms(2026, 5, 1))
    both = _brute(paths, lambda cwd, model, ms: cwd.startswith("/work/p1/") and model == "p/m-large")
    ranged_two = _brute(
        paths, lambda cwd, model, ms: cwd == "/work/p0" and _ms(2026, 5, 1) <= ms < _ms(2026, 7, 1)
    )
    assert len(april) > 20 and len(both) > 20 and ranged_two
    with serve_folder(site) as url:
        page.goto(f"{url}/usage.html")
        wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
        assert _chunks_asked(watch) == []  # no filter: the page's own top sessions

        shown = _shown(page, "#from=2026-04-01&to=2026-04-30")
        assert shown["sessions"] == str(len(april)) and [tuple(r) for r in shown["top"]] == april[:20]
        assert _chunks_asked(watch) == ["usage-sessions-2026-04.json"]  # that month's only

        shown = _shown(page, "#project=%2Fwork%2Fp1%2Fsub&model=p%2Fm-large")
        assert shown["sessions"] == str(len(both)) and [tuple(r) for r in shown["top"]] == both[:20]
        asked = _chunks_asked(watch)  # every month for two filters and no range, each once
        assert asked == sorted(f"usage-sessions-2026-0{m}.json" for m in (3, 4, 5, 6)), asked

        shown = _shown(page, "#from=2026-05-01&to=2026-06-30&project=%2Fwork%2Fp0")
        assert (
            shown["sessions"] == str(len(ranged_two)) and [tuple(r) for r in shown["top"]] == ranged_two[:20]
        )
        assert len(_chunks_asked(watch)) == 4  # known already
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []

    with serve_process(tmp_path / "sessions", tmp_path / "agent", tmp_path / "cache") as served:
        _counted(served.url)
        for query, expected in (
            ({"since": _ms(2026, 4, 1), "until": _ms(2026, 5, 1)}, april),
            ({"project": "/work/p1/sub", "model": "p/m-large"}, both),
        ):
            answer = httpx.get(served.url + "/api/usage-sessions", params={**query, "limit": 20}, timeout=120)
            listed = answer.json()
            assert listed["count"] == len(expected)
            assert [(row[1], row[4]) for row in listed["top"]] == expected[:20]


def test_opened_from_a_file_it_fetches_nothing_and_says_so(page: Page, watch: Watch, tmp_path: Path) -> None:
    _corpus(tmp_path / "sessions")
    site = tmp_path / "site"
    build_site(BuildOptions(root=tmp_path / "sessions", site=site, jobs=1, search=False))
    page.goto((site / "usage.html").as_uri())
    wait_js(page, "Number(document.getElementById('st-usage').dataset.drawn) > 0")
    shown = _shown(page, "#from=2026-04-01&to=2026-04-30")
    assert shown["state"] == "unlisted" and shown["top"] == [] and "Opened from a file" in shown["note"]
    assert _chunks_asked(watch) == []
    assert watch.console_errors == [] and watch.page_errors == [] and watch.dialogs == []
