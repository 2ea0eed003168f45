"""The sessions pane in Chromium through a real ``serve`` process: the project's sessions newest
first, the next one by key, a dot and a count for a session that grew, the unseen marker."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route

from tests.browser.axe import assert_clean
from tests.browser.conftest import Watch, wait_js
from tests.serve.conftest import append_line
from tests.serve.process import serve_process
from tests.store.helpers import assistant, header, msg

pytestmark = pytest.mark.browser


def _write(path: Path, sid: str, cwd: str, hours_ago: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header(sid, cwd=cwd, title=f"Session {sid}"), msg("u1", None, "user", f"question of {sid}")]
    lines.append(assistant("a1", "u1"))
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    stamp = time.time() - hours_ago * 3600
    os.utime(path, (stamp, stamp))


def _keys(page: Page) -> list[str]:
    return page.eval_on_selector_all("#st-browse .st-browse-row", "rs => rs.map(r => r.dataset.key)")


def test_the_pane_lists_opens_next_and_marks_what_grew(page: Page, watch: Watch, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    demo = root / "--work-demo--"
    _write(demo / "new.jsonl", "new", "/work/demo", 1)
    _write(demo / "mid.jsonl", "mid", "/work/demo", 2)
    _write(demo / "old.jsonl", "old", "/work/demo", 3)
    _write(root / "--work-other--" / "else.jsonl", "else", "/work/other", 0.5)
    with serve_process(root, agent, tmp_path / "cache") as served:
        page.goto(served.url + "/s/--work-demo--/new.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        assert _keys(page) == [
            "--work-demo--/new.jsonl",
            "--work-demo--/mid.jsonl",
            "--work-demo--/old.jsonl",
        ]
        current = page.locator("#st-browse a[aria-current=page]")
        assert current.locator(".st-browse-title").inner_text().startswith("Session new")
        assert current.locator(".st-browse-agent-badge").inner_text() == "pi"  # every row names its agent
        assert "1 message" not in page.inner_text("#st-browse") and "2 messages" in page.inner_text(
            "#st-browse"
        )
        page.select_option("#st-browse .st-browse-scope", "all")
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 4")
        assert _keys(page)[0] == "--work-other--/else.jsonl"
        assert int(page.get_attribute("#st-browse", "data-draw-ms") or "999") < 100
        page.select_option("#st-browse .st-browse-scope", "project")
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 3")
        page.keyboard.press("Alt+ArrowDown")
        page.wait_for_url("**/mid.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        page.keyboard.press("Alt+ArrowUp")
        page.wait_for_url("**/new.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        # Another session grows: its dot lights and its new message is counted, live.
        now = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        append_line(demo / "old.jsonl", {**msg("u2", "a1", "user", "a late question"), "timestamp": now})
        grew = '#st-browse .st-browse-row.st-browse-grew[data-key="--work-demo--/old.jsonl"]'
        page.wait_for_selector(grew, timeout=120_000)
        assert page.locator(grew + " .st-browse-dot").count() == 1
        assert page.inner_text(grew + " .st-browse-new") == "1 new"
        assert page.locator("#st-browse .st-browse-grew").count() == 1
        page.click(grew + " a")
        page.wait_for_url("**/old.jsonl")
        page.wait_for_selector("html[data-st-ready]")
        wait_js(page, "document.documentElement.getAttribute('data-st-unseen') === 'u2'")
        marker = page.locator('#st-messages .st-entry[data-id="u2"]')
        marker.wait_for()
        content = marker.evaluate("e => getComputedStyle(e, '::before').content")
        assert "New since your last visit" in content
        assert page.locator('#st-messages .st-entry[data-id="u1"]').evaluate(
            "e => getComputedStyle(e, '::before').content"
        ) in ("none", "normal")
        page.wait_for_selector("#st-browse a[aria-current=page]")
        assert page.locator("#st-browse .st-browse-grew").count() == 0  # seen now
    assert watch.page_errors == []
    assert all(url.startswith(served.url) for url in watch.requests)


def test_the_pane_draws_its_first_rows_then_more_and_hears_new_sessions(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    """250 sessions: 100 rows drawn, the rest as the list is scrolled; a new file is pushed to the
    pane by the page's event stream (no polling), its markdown title shown as plain text."""
    agent = tmp_path / "agent"
    demo = agent / "sessions" / "--work-demo--"
    for n in range(250):
        _write(demo / f"s{n:03d}.jsonl", f"s{n:03d}", "/work/demo", 1 + n / 100)
    with serve_process(agent / "sessions", agent, tmp_path / "cache") as served:
        page.goto(served.url + "/s/--work-demo--/s000.jsonl")
        page.wait_for_selector("html[data-st-live=open]")
        # The files the fresh server had no time to read are listed from their stat, with no folder
        # yet (so not in "this project" until the background pass reads them and the pane hears it).
        wait_js(page, "document.querySelector('#st-browse .st-browse-more')?.textContent === '150 more…'")
        assert page.locator("#st-browse .st-browse-row").count() == 100
        assert page.get_attribute("html", "data-st-browse") == "250"
        page.locator("#st-browse .st-browse-more").scroll_into_view_if_needed()
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 250")
        assert page.locator("#st-browse .st-browse-more").count() == 0
        fresh = demo / "fresh.jsonl"
        lines = [header("fresh", cwd="/work/demo", title="**Bold** and `code` [link](https://x.invalid)")]
        lines += [msg("u1", None, "user", "hello"), assistant("a1", "u1")]
        fresh.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        row = '#st-browse .st-browse-row[data-key="--work-demo--/fresh.jsonl"]'
        page.wait_for_selector(row, timeout=120_000)
        assert page.inner_text(row + " .st-browse-title") == "Bold and code link"
        assert _keys(page)[0] == "--work-demo--/fresh.jsonl"
        assert page.locator("#st-browse .st-browse-row").count() >= 250  # the drawn rows kept
    assert watch.page_errors == []
    requests = [url for url in watch.requests if "/api/sessions" in url]
    # The first window, the filters' choices, the next window as it was scrolled, then one per
    # pushed change (the new file; the background pass's corrections): no polling.
    assert 4 <= len(requests) <= 6


def test_the_pane_hears_of_a_change_made_before_the_pages_stream_opened(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    """The pane fetches its list as the page shows, the page's event stream opens once the viewer
    booted: a new file listed in between was pushed to no stream. The stream's first event names
    the listing's state, and the pane, whose list has another, fetches it again."""
    agent = tmp_path / "agent"
    demo = agent / "sessions" / "--work-demo--"
    _write(demo / "old.jsonl", "old", "/work/demo", 1)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)  # the page's stream: let through once the change is listed

    page.route("**/events/s/**", hold)
    with serve_process(agent / "sessions", agent, tmp_path / "cache") as served:
        page.goto(served.url + "/s/--work-demo--/old.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        _write(demo / "fresh.jsonl", "fresh", "/work/demo", 0.5)
        deadline = time.monotonic() + 120  # a bound for a hung server, not a timing assertion
        while len(httpx.get(served.url + "/api/sessions").json()["sessions"]) < 2:
            assert time.monotonic() < deadline, "the listing never showed the new file"
            time.sleep(0.05)
        deadline = time.monotonic() + 120
        while not held:
            assert time.monotonic() < deadline, "the page never opened its stream"
            page.wait_for_timeout(50)
        assert _keys(page) == ["--work-demo--/old.jsonl"]  # the list as fetched before the change
        held[0].continue_()
        page.wait_for_selector(
            '#st-browse .st-browse-row[data-key="--work-demo--/fresh.jsonl"]', timeout=120_000
        )
        page.wait_for_selector("html[data-st-live=open]")
    assert watch.page_errors == []


_COUNT_FETCHES = """
window.__lists = 0; window.__models = 0; window.__told = 0; window.__listUrls = [];
const opened = XMLHttpRequest.prototype.open;
XMLHttpRequest.prototype.open = function (method, url, ...rest) {
  if (String(url).includes('/api/sessions')) { window.__lists += 1; window.__listUrls.push(String(url)); }
  if (String(url).includes('/api/session-models')) window.__models += 1;
  return opened.call(this, method, url, ...rest);
};
document.addEventListener('st-sessions-changed', () => { window.__told += 1; });
"""


def test_the_streams_first_word_while_the_list_is_fetched_costs_no_second_fetch(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    """The stream's first event names the listing's state: said while the pane's first fetch is under
    way, it is weighed once the list is in (the same state: nothing more to fetch; the filters'
    choices are asked for once the first rows are drawn)."""
    agent = tmp_path / "agent"
    _write(agent / "sessions" / "--work-demo--" / "one.jsonl", "one", "/work/demo", 1)
    held: list[Route] = []

    def hold(route: Route) -> None:
        if held:  # the filters' choices, asked for once the first rows are drawn
            route.continue_()
        else:
            held.append(route)  # the pane's first window: answered once the page's stream said its state

    page.add_init_script(_COUNT_FETCHES)
    page.route("**/api/sessions/window?*", hold)
    with serve_process(agent / "sessions", agent, tmp_path / "cache") as served:
        page.goto(served.url + "/s/--work-demo--/one.jsonl")
        wait_js(page, "window.__told === 1 && window.__lists === 1")
        assert len(held) == 1
        held[0].continue_()
        page.wait_for_selector("html[data-st-browse]", state="attached")  # the list is in and drawn
        page.wait_for_selector("#st-browse .st-browse-agent option[value=pi]", state="attached")
        urls = page.evaluate("window.__listUrls")
        assert len(urls) == 2 and "choices=1" in urls[1]  # no second fetch for the state it has now
        assert page.evaluate("window.__models") == 0  # its part carried its sessions' models
        assert _keys(page) == ["--work-demo--/one.jsonl"]
    assert watch.page_errors == []


# Set before the page's own scripts: a frame is asked for as soon as the first prompt is in the
# DOM; when the pane is put in, whether that frame (the first screen's paint) has come.
_FRAME_BEFORE_PANE = """
window.__stFramed = false;
new MutationObserver(() => {
  if (window.__stAsked === undefined && document.querySelector('.st-entry.st-user')) {
    window.__stAsked = true;
    requestAnimationFrame(() => { window.__stFramed = true; });
  }
  if (window.__stPaneFramed === undefined && document.getElementById('st-browse')) {
    window.__stPaneFramed = window.__stFramed;
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_the_pane_starts_after_the_first_screen_is_painted(page: Page, tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    root = agent / "sessions"
    _write(root / "--work-demo--" / "one.jsonl", "one", "/work/demo", 1)
    with serve_process(root, agent, tmp_path / "cache") as served:
        page.add_init_script(_FRAME_BEFORE_PANE)
        page.goto(served.url + "/s/--work-demo--/one.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        assert page.evaluate("window.__stPaneFramed") is True


# Set before the page's own scripts: whether the pane was built when its list was asked for.
_PANE_AT_FETCH = """
window.__paneAtFetch = [];
const open = XMLHttpRequest.prototype.open;
XMLHttpRequest.prototype.open = function (method, url, ...rest) {
  const built = !!document.getElementById('st-browse');
  if (/\\/api\\/sessions\\/window\\?.*around=/.test(String(url))) window.__paneAtFetch.push(built);
  return open.call(this, method, url, ...rest);
};
"""


def test_the_panes_list_is_asked_for_before_the_pane_is_built(
    page: Page, watch: Watch, tmp_path: Path
) -> None:
    """The list's first part is asked for as the pane's script runs (with the page's first chunk), not
    once the pane is built after the first screen's paint; it is asked for once, and drawn."""
    agent = tmp_path / "agent"
    root = agent / "sessions"
    _write(root / "--work-demo--" / "one.jsonl", "one", "/work/demo", 1)
    _write(root / "--work-demo--" / "two.jsonl", "two", "/work/demo", 2)
    with serve_process(root, agent, tmp_path / "cache") as served:
        page.add_init_script(_PANE_AT_FETCH + _COUNT_FETCHES)
        page.goto(served.url + "/s/--work-demo--/one.jsonl")
        page.wait_for_selector("#st-browse .st-browse-row")
        page.wait_for_selector("html[data-st-browse]", state="attached")  # every part in and drawn
        assert page.evaluate("window.__paneAtFetch") == [False]  # before the pane, once
        assert _keys(page) == ["--work-demo--/one.jsonl", "--work-demo--/two.jsonl"]
    assert watch.page_errors == []


@pytest.mark.parametrize(
    ("zone", "width", "scheme", "days"),
    [
        # 12:00 and 20:00 UTC on the 16th: 21:00 on the 16th and 05:00 on the 17th in Tokyo,
        # 04:00 and 12:00 on the 16th in Los Angeles.
        ("Asia/Tokyo", 1280, "light", {"2026-02-16": ["noon"], "2026-02-17": ["late"]}),
        ("America/Los_Angeles", 400, "dark", {"2026-02-16": ["late", "noon"], "2026-02-17": []}),
    ],
)
def test_the_panes_from_and_to_are_the_readers_days(
    browser: Browser,
    tmp_path: Path,
    zone: str,
    width: int,
    scheme: Literal["light", "dark"],
    days: dict[str, list[str]],
) -> None:
    agent = tmp_path / "agent"
    demo = agent / "sessions" / "--work-demo--"
    for name, hour in (("late", 20), ("noon", 12)):
        _write(demo / f"{name}.jsonl", name, "/work/demo", 0)
        stamp = datetime(2026, 2, 16, hour, tzinfo=UTC).timestamp()
        os.utime(demo / f"{name}.jsonl", (stamp, stamp))  # the last activity the pane filters by
    with serve_process(agent / "sessions", agent, tmp_path / "cache") as served:
        context = browser.new_context(
            viewport={"width": width, "height": 800}, timezone_id=zone, color_scheme=scheme, bypass_csp=True
        )
        page = context.new_page()
        try:
            page.goto(served.url + "/s/--work-demo--/late.jsonl")
            page.wait_for_selector("html[data-st-ready]")
            if width < 760:
                page.click("#st-menu")  # a narrow page keeps its sidebar behind the menu button
            page.wait_for_selector("#st-browse .st-browse-row")
            page.click("#st-browse .st-browse-filters summary")
            for day, shown in days.items():
                page.fill("#st-browse .st-browse-from", day)
                page.fill("#st-browse .st-browse-to", day)
                keys = json.dumps([f"--work-demo--/{name}.jsonl" for name in shown], separators=(",", ":"))
                wait_js(
                    page,
                    "JSON.stringify([...document.querySelectorAll('#st-browse .st-browse-row')]"
                    f".map(r => r.dataset.key)) === {json.dumps(keys)}",
                )
            assert_clean(page, f"the sessions pane in {zone} at {width} px, {scheme}")
        finally:
            context.close()


USAGE = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.01}}


def test_the_panes_model_filter_comes_with_its_parts(page: Page, watch: Watch, tmp_path: Path) -> None:
    """Each part of the pane's list carries its sessions' models (a query of the usage store for its
    keys): the model filter offers every model and filters by it, and the pane never asks for the
    list of every session's models."""
    agent = tmp_path / "agent"
    root = agent / "sessions"
    for n, model in enumerate(("m-alpha", "m-beta", "m-alpha")):
        path = root / "--work-demo--" / f"s{n}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [header(f"s{n}", cwd="/work/demo", title=f"Session {n}"), msg("u1", None, "user", "q")]
        lines.append(msg(f"a{n}", "u1", "assistant", "ok", provider="p", model=model, usage=USAGE))
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        stamp = time.time() - (n + 1) * 3600
        os.utime(path, (stamp, stamp))
    with serve_process(root, agent, tmp_path / "cache") as served:
        part = httpx.get(served.url + "/api/sessions", timeout=60).json()
        assert {s["k"]: s["m"] for s in part["sessions"]} == {
            "--work-demo--/s0.jsonl": ["p/m-alpha"],
            "--work-demo--/s1.jsonl": ["p/m-beta"],
            "--work-demo--/s2.jsonl": ["p/m-alpha"],
        }
        everyone = httpx.get(served.url + "/api/session-models", timeout=60).json()["models"]
        assert everyone == {s["k"]: s["m"] for s in part["sessions"]}  # the same query, every key
        page.add_init_script(_COUNT_FETCHES)
        page.goto(served.url + "/s/--work-demo--/s0.jsonl")
        page.wait_for_selector("html[data-st-browse]", state="attached")
        choices = page.eval_on_selector_all(
            "#st-browse .st-browse-model option", "os => os.map(o => o.value)"
        )
        assert sorted(c for c in choices if c) == ["p/m-alpha", "p/m-beta"]
        page.select_option("#st-browse .st-browse-scope", "all")
        page.click("#st-browse .st-browse-filters summary")
        page.select_option("#st-browse .st-browse-model", "p/m-beta")
        wait_js(page, "document.querySelectorAll('#st-browse .st-browse-row').length === 1")
        assert _keys(page) == ["--work-demo--/s1.jsonl"]
        assert page.evaluate("window.__models") == 0
    assert watch.page_errors == []
