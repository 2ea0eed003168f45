"""The session page as a reader meets it (issue 44): counts that agree, the layout, in real Chromium on
a real ``serve`` process over real files, both themes, 1280 and 400 px, axe-clean."""

from __future__ import annotations

import itertools
import json
import re
import shutil
import time
from collections.abc import Iterator
from typing import Literal

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.browser.axe import assert_clean
from tests.browser.conftest import wait_js
from tests.conftest import HAVE_SHARED, need_shared, real_file
from tests.serve.process import Served, serve_process

pytestmark = pytest.mark.browser

CLAUDE = (
    "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
)
SESSION = "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
SUBAGENT = "agent-ea02459f.jsonl"
PI = "pi/pi-mono--test_fixtures_before-compaction.jsonl"
CODEX = "codex/rtchess--dev_history_exported-session.jsonl"
Scheme = Literal["light", "dark"]
SIZES = [(1280, "light"), (400, "dark")]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    base = tmp_path_factory.mktemp("reader")
    root = base / "sessions"
    (root / "claude").mkdir(parents=True)
    (root / "pi").mkdir()
    for name in (SESSION, SUBAGENT):  # the names Claude Code gives them, so the subagent is found
        shutil.copyfile(real_file(CLAUDE + name), root / "claude" / name)
    shutil.copyfile(real_file(PI), root / "pi" / "long.jsonl")
    if HAVE_SHARED:  # a Codex session of 176 apply_patch calls (its licence keeps it in ../shared)
        (root / "codex").mkdir()
        shutil.copyfile(real_file(CODEX), root / "codex" / "chess.jsonl")
    with serve_process(root, base / "agent", base / "cache") as server:
        yield server


def _open(browser: Browser, served: Served, key: str, width: int, scheme: Scheme) -> Page:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)  # a ceiling on a loaded machine, not a timed assertion
    page.goto(f"{served.url}/s/{key}")
    page.wait_for_selector("html[data-st-ready]")
    return page


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_the_header_the_outline_and_the_chart_count_alike(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, f"claude/{SESSION}", width, scheme)
    try:
        prompts = int(page.inner_text('#st-header li[data-count="prompts"] .st-n'))
        outline = page.locator("#st-outline .st-prompt-link").count()
        assert prompts == outline == 5
        cost = page.inner_text("#st-header li[data-cost] .st-n")
        chart = page.get_attribute("#st-header svg.st-chart", "aria-label") or ""
        ends = re.search(r"cost \(\$([\d.]+)", chart)
        assert cost == "$2.1717" and ends is not None and ends.group(1) == "2.17"
        assert "over 5 turns" in chart
        share = page.inner_text("#st-header .st-subagent-share")
        assert share.startswith("1 subagent adds 20 messages") and "$0.1984" in share
        assert_clean(page, f"a Claude Code session with its subagent at {width} px, {scheme}")
    finally:
        page.context.close()


COVERED = """() => {
  // Every Copy button on screen is either reachable (the element at its centre is itself) or under
  // the toolbar's band, which is opaque there (hidden, not drawn over by ↑ ↓ ⊞ ⊟ ☾ ?).
  const band = document.getElementById('st-toolbar');
  const edge = band.getBoundingClientRect().bottom;
  const opaque = getComputedStyle(band).backgroundColor !== 'rgba(0, 0, 0, 0)';
  const bad = [];
  for (const b of document.querySelectorAll('#st-messages .st-copy')) {
    const r = b.getBoundingClientRect();
    if (!r.width || r.bottom < 0 || r.top > innerHeight) continue;
    const y = r.top + r.height / 2;
    if (y < edge) { if (!opaque) bad.push('under a see-through band'); continue; }
    const at = document.elementFromPoint(r.left + r.width / 2, y);
    if (at !== b) bad.push(at ? at.id || at.className || at.tagName : 'nothing');
  }
  return bad;
}"""


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_the_layout_hides_nothing_and_says_things_once(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, "pi/long.jsonl", width, scheme)
    try:
        # One "All sessions": the pages' bar; the served links keep the files only.
        assert page.locator("a", has_text="All sessions").count() == 1
        assert page.locator(".st-serve-links a", has_text="Raw JSONL").count() == 1
        # The bar starts where the header does, not indented beside the ☰ button.
        nav = page.locator("#st-main > .st-nav a").first.bounding_box()
        title = page.locator("#st-header h1").bounding_box()
        assert nav is not None and title is not None and abs(nav["x"] - title["x"]) <= 1
        if width >= 1000:
            # A long session opens at prompt 1 with its outline at its start (it overflows).
            box = page.evaluate(
                "(() => { const o = document.getElementById('st-outline');"
                " return [o.scrollTop, o.scrollHeight > o.clientHeight]; })()"
            )
            assert box == [0, True]
        # Scrolled anywhere, no toolbar button sits over a message's Copy button.
        step = page.evaluate("document.getElementById('st-main').clientHeight") // 3
        for n in range(1, 13):
            page.evaluate(f"document.getElementById('st-main').scrollTop = {n * step}")
            # The scroll's event and the frame after it handled (the toolbar's state), then an exact check.
            page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
            assert page.evaluate(COVERED) == [], n
        assert_clean(page, f"a long pi session at {width} px, {scheme}")
    finally:
        page.context.close()


SHOWN = """() => [...document.querySelectorAll('#st-messages > .st-entry')].map((a) => [
  a.dataset.idx,
  a.classList.contains('st-user') ? 'user' : a.classList.contains('st-assistant') ? 'assistant' : 'other',
  (a.querySelector(':scope > .st-head .st-turn-time') || {}).textContent || ''])"""


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_the_focused_view_shows_each_prompt_and_its_last_reply(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, "pi/long.jsonl", width, scheme)
    try:
        prompts = page.eval_on_selector_all("#st-outline .st-prompt-link", "ls => ls.map(l => l.dataset.idx)")
        everything = page.evaluate(SHOWN)
        assert any(kind == "other" for _i, kind, _t in everything)  # tool results, notes: not focused
        page.keyboard.press("f")
        page.wait_for_selector("html.st-focused")
        assert page.get_attribute("#st-focused", "aria-pressed") == "true"
        shown = page.evaluate(SHOWN)
        kinds = [kind for _i, kind, _t in shown]
        # Prompt, reply, prompt, reply...: every prompt shown is an outline prompt, and each reply is
        # headed by its turn's length and calls.
        assert kinds[0] == "user" and set(kinds) == {"user", "assistant"}
        # At most one reply a turn (two prompts may meet: a turn left without a reply).
        pairs = [(i, k) for (i, k, _t), (_j, k2, _u) in itertools.pairwise(shown) if k == k2]
        assert all(k == "user" for _i, k in pairs), pairs
        assert [i for i, kind, _t in shown if kind == "user"] == prompts[: kinds.count("user")]
        turns = [t for _i, kind, t in shown if kind == "assistant"]
        assert all(re.fullmatch(r"turn [\d.]+ (s|min|h).*?( · \d+ calls?)?", t) for t in turns), turns
        assert_clean(page, f"the Focused view at {width} px, {scheme}")
        page.click("#st-focused")  # the toolbar toggle: every message again
        page.wait_for_selector("html:not(.st-focused)")
        assert page.get_attribute("#st-focused", "aria-pressed") == "false"
        assert any(kind == "other" for _i, kind, _t in page.evaluate(SHOWN))
    finally:
        page.context.close()


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_a_patch_row_names_its_files_and_a_long_patch_is_cut(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    need_shared(CODEX)
    page = _open(browser, served, "codex/chess.jsonl", width, scheme)
    try:
        heads = page.eval_on_selector_all(
            '.st-call[data-tool="apply_patch"] > .st-call-head .st-call-path',
            "ps => ps.map(p => p.textContent)",
        )
        assert heads[:3] == ["index.html", "styles.css", "app.js"], heads[:3]
        call = page.locator('.st-call[data-tool="apply_patch"]').first
        call.locator(".st-call-head").click()
        box = call.locator(".st-diff-box")
        more = box.locator(".st-more")
        label = more.inner_text()
        total = int(re.fullmatch(r"Show all ([\d,]+) lines", label).group(1).replace(",", ""))  # type: ignore[union-attr]
        shown = box.locator(".st-diff > span:not(.st-rest)")
        assert shown.count() == 20 and total > 25
        assert box.locator(".st-rest").is_hidden()
        more.click()
        assert box.locator(".st-rest").is_visible() and more.inner_text() == "Show less"
        assert box.locator(".st-diff span[class^='st-diff-']").count() == total
        assert_clean(page, f"a Codex session's patches at {width} px, {scheme}")
    finally:
        page.context.close()


LONG_OUTPUT = """() => {
  const boxes = [...document.querySelectorAll('.st-output[data-more]')];
  const box = boxes.find((b) => !b.classList.contains('st-diff-box'));
  if (!box) return null;
  box.scrollIntoView();
  return box.closest('[data-id]').dataset.id;
}"""


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_a_long_output_shows_twenty_lines_then_all(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, f"claude/{SESSION}", width, scheme)
    try:
        entry = page.evaluate(LONG_OUTPUT)
        assert entry is not None, "a long output in the session"
        box = page.locator(f'[data-id="{entry}"] .st-output[data-more]').first
        if box.is_hidden():  # in a folded call or run: open what holds it
            box.evaluate("b => b.closest('.st-call')?.querySelector('.st-call-head')?.click()")
        more = box.locator(".st-more")
        label = more.inner_text()
        total = int(re.fullmatch(r"Show all ([\d,]+) lines", label).group(1).replace(",", ""))  # type: ignore[union-attr]
        pre = box.locator("pre.st-pre")
        shown = pre.evaluate("p => p.innerText")
        assert len(shown.rstrip("\n").split("\n")) == 20 and total > 20, (len(shown.split("\n")), total)
        assert total == 20 + int(box.get_attribute("data-more") or 0)
        more.click()
        assert more.inner_text() == "Show less"
        assert len(pre.evaluate("p => p.innerText").rstrip("\n").split("\n")) == total
        assert_clean(page, f"a long output shown whole at {width} px, {scheme}")
    finally:
        page.context.close()


ROWS = """() => [...document.querySelectorAll('#st-groups .st-sessions > .st-session')]
  .filter((li) => !li.hidden && !li.closest('.st-group').hidden)
  .map((li) => [li.dataset.key, li.querySelector('.st-meta').textContent])"""


def wait_rows(page: Page, keys: list[str]) -> None:
    """Wait until the rows shown are ``keys`` and no answer is on its way (120 s: a bound for a hang)."""
    wanted = json.dumps(keys)
    wait_js(
        page,
        f"document.documentElement.getAttribute('data-st-rows') !== 'loading'"
        f" && JSON.stringify(({ROWS})().map((r) => r[0])) === {json.dumps(wanted)}",
        120,
    )


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_home_rows_say_agent_and_prompts_and_sort_and_filter(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(served.url + "/")
        # A large file's counts come with the listing's background pass (the live index shows them).
        wait_js(
            page,
            "[...document.querySelectorAll('#st-groups .st-meta')]"
            ".every(m => m.textContent.includes('prompt'))",
            60,
        )
        rows = dict(page.evaluate(ROWS))
        # Every row: its agent's badge (pi too) and its typed prompts, counted from the listing's data.
        assert rows["pi/long.jsonl"].startswith("pi · 55 prompts · ")
        assert rows[f"claude/{SESSION}"].startswith("Claude Code · 5 prompts · ")
        page.select_option("#st-sort", "prompts")
        keys = [k for k, _m in page.evaluate(ROWS)]
        counts = [int(re.search(r"· (\d+) prompts? ·", dict(page.evaluate(ROWS))[k]).group(1)) for k in keys]  # type: ignore[union-attr]
        assert counts == sorted(counts, reverse=True) and keys[0] == "pi/long.jsonl"
        page.select_option("#st-sort", "size")
        sizes = page.eval_on_selector_all(
            "#st-groups .st-sessions > .st-session",
            "ls => ls.filter(l => !l.closest('.st-group').hidden).map(l => Number(l.dataset.size))",
        )
        assert sizes == sorted(sizes, reverse=True)
        cwd = page.get_attribute(".st-group:has(.st-session[data-key='pi/long.jsonl'])", "data-cwd") or ""
        # A filter shows the rows at hand at once, then the server's answer for it takes their place
        # (150 ms later, and later on a loaded machine): each check waits for the answer's rows.
        page.select_option("#st-agent-filter", "claude")
        wait_rows(page, [f"claude/{SESSION}"])
        page.select_option("#st-agent-filter", "")
        page.select_option("#st-project-filter", cwd)
        wait_rows(page, ["pi/long.jsonl"])
        assert_clean(page, f"the home list at {width} px, {scheme}")
    finally:
        context.close()


def test_the_sessions_pane_rows_name_agent_and_prompts(browser: Browser, served: Served) -> None:
    # Once the listing has counted every file (a large one waits for its background pass).
    deadline = time.monotonic() + 60
    while not all(
        isinstance(s["q"], int) for s in httpx.get(served.url + "/api/sessions").json()["sessions"]
    ):
        assert time.monotonic() < deadline, "the listing never counted every file"
        time.sleep(0.1)
    page = _open(browser, served, "pi/long.jsonl", 1280, "light")
    try:
        page.select_option(".st-browse-scope", "all")
        wait_js(page, "document.querySelectorAll('.st-browse-row').length >= 2")
        rows = page.eval_on_selector_all(
            ".st-browse-row",
            "rs => rs.map(r => [r.dataset.key, r.querySelector('.st-browse-agent-badge').textContent,"
            " r.querySelector('.st-browse-meta').textContent])",
        )
        by_key = {k: (a, m) for k, a, m in rows}
        assert by_key["pi/long.jsonl"][0] == "pi" and " · 55 prompts · " in by_key["pi/long.jsonl"][1]
        assert by_key[f"claude/{SESSION}"][0] == "claude" and "5 prompts" in by_key[f"claude/{SESSION}"][1]
        assert_clean(page, "the sessions pane")
    finally:
        page.context.close()


GROUPS = """() => [...document.querySelectorAll('.st-fulltext-group')].map((g) => ({
  session: g.querySelector('h3 a').getAttribute('href'),
  times: [...g.querySelectorAll('.st-fulltext-hit:not([hidden]) time')]
    .map((t) => t.getAttribute('datetime')),
  hidden: g.querySelectorAll('.st-fulltext-hit[hidden]').length,
  folds: [...g.querySelectorAll('.st-fulltext-repeats')].map((b) => b.textContent),
}))"""


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_search_groups_by_session_folds_repeats_and_orders_by_time(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, "pi/long.jsonl", width, scheme)
    try:
        page.keyboard.press("Control+k")  # from a session page: the search page
        page.wait_for_url("**/search*")
        page.fill("#st-q", "todo")
        wait_js(page, "document.querySelectorAll('.st-fulltext-group').length >= 1", 60)  # a cold index
        box = page.locator("#st-q").bounding_box()
        head = page.locator("#st-search-head").bounding_box()
        assert box is not None and head is not None and box["width"] >= head["width"] - 2  # full width
        groups = {g["session"]: g for g in page.evaluate(GROUPS)}
        claude = groups[f"/s/claude/{SESSION}"]
        # Claude Code's todo tool says the same line after every update: one hit, the rest folded.
        assert claude["folds"] == ["Same text 8 more times"] and claude["hidden"] == 8
        button = page.locator(".st-fulltext-repeats").first
        button.click()
        assert button.get_attribute("aria-expanded") == "true"
        unfolded = {g["session"]: g for g in page.evaluate(GROUPS)}[f"/s/claude/{SESSION}"]
        assert unfolded["hidden"] == 0
        assert_clean(page, f"search results at {width} px, {scheme}")
        page.fill("#st-q", "test")  # in every session
        wait_js(page, "document.querySelectorAll('.st-fulltext-group').length >= 2", 60)
        first = "document.querySelector('.st-fulltext-group h3 a')?.getAttribute('href')"
        best = page.evaluate(GROUPS)
        page.select_option("#st-order", "newest")
        wait_js(page, "document.querySelectorAll('.st-fulltext-group').length >= 2", 60)
        wait_js(page, first + " === '/s/pi/long.jsonl'")  # the newest hit is the pi session's
        ordered = page.evaluate(GROUPS)
        assert [g["times"] for g in ordered] != [
            g["times"] for g in best
        ]  # another order, asked of the server
        every = [t for g in ordered for t in g["times"]]
        assert ordered[0]["times"][0] == max(every)  # the newest hit leads
        assert all(g["times"] == sorted(g["times"], reverse=True) for g in ordered)
        page.goto(served.url + "/usage")
        page.keyboard.press("Control+k")  # and from the usage page
        page.wait_for_url("**/search*")
    finally:
        page.context.close()


@pytest.mark.parametrize(("width", "scheme"), SIZES)
def test_a_run_of_tool_only_messages_is_one_row_until_opened(
    browser: Browser, served: Served, width: int, scheme: Scheme
) -> None:
    page = _open(browser, served, "pi/long.jsonl", width, scheme)
    try:
        wait_js(page, "document.querySelectorAll('.st-run-head').length > 0")
        # The pane draws its rows beside the messages about when the page is ready: a click sent
        # while it lays them out can miss the row (a busy CI run's failure), so wait for them.
        wait_js(page, "performance.getEntriesByName('st-browse-drawn').length > 0")
        row = page.locator(".st-run-head").first
        text = row.inner_text()
        found = re.fullmatch(r"(\d+) tool calls in (\d+) messages( · (\d+) with parallel calls)?", text)
        assert found is not None, text
        run = row.get_attribute("data-run")
        row = page.locator(f'.st-run-head[data-run="{run}"]')  # this run's row, whatever renders above it
        members = page.locator(f'.st-entry[data-run="{run}"]')
        assert members.count() == int(found.group(2)) >= 2
        assert all(not members.nth(k).is_visible() for k in range(members.count()))
        calls = sum(
            members.nth(k).locator(":scope > .st-body > .st-call").count() for k in range(members.count())
        )
        assert calls == int(found.group(1))
        assert members.locator(".st-parallel").count() == int(found.group(4) or 0)
        assert_clean(page, f"folded tool runs at {width} px, {scheme}")
        opened = f"document.querySelector('.st-run-head[data-run=\"{run}\"]')?.getAttribute('aria-expanded')"
        state = "[" + opened + ", document.documentElement.getAttribute('data-st-replaced'), location.href]"
        for _ in range(3):
            # A click the row's handler gets opens its run at once (it toggles as it is clicked). Under
            # load the page can lay the column out again between Playwright finding the row still and
            # its mouse event (the pane draws its filters' choices beside it after its rows): three
            # busy CI runs saw the row closed after one click. A click that left it closed missed it.
            row.click()
            if page.evaluate(opened) == "true":
                break
        assert page.evaluate(opened) == "true", page.evaluate(state)  # the page reloaded? (a stale stream)
        assert members.first.is_visible()
        # j walks the messages shown: it never stops on a folded one.
        row.click()
        for _ in range(12):
            page.keyboard.press("j")
            assert page.evaluate("!document.querySelector('.st-entry.st-cur.st-folded')")
    finally:
        page.context.close()
