"""The page as a reading tool (issue 29), in Chromium: the prompt outline, J / K, the tree
following the reader, copy buttons, local times, compact tool calls, a quiet header."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from sessiontree.pages.export import export_to_file
from tests.browser.conftest import open_page, wait_js
from tests.conftest import GenSession, need_shared, real_file
from tests.exporter.test_reading import CLAUDE, CODEX, _typed_prompts

pytestmark = pytest.mark.browser


PI = "pi/pi-mono--session.jsonl"
CODEX_LONG = "codex/rtchess--dev_history_exported-session.jsonl"  # 54 typed prompts


def _export(source: Path, tmp_path: Path, name: str = "page.html") -> str:
    return export_to_file(source, tmp_path / name).as_uri()


def outline_titles(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        'nav[aria-labelledby="st-outline-title"] .st-prompt-link', "els => els.map(e => e.dataset.idx)"
    )


def _raw_objects(path: Path) -> list[dict[str, Any]]:
    """Every JSON object of a file, two on one line too (a real file has such a line)."""
    decoder, out = json.JSONDecoder(), []
    for line in path.read_text().splitlines():
        at = 0
        while at < len(line):
            obj, at = decoder.raw_decode(line, at)
            out.append(obj)
    return out


def _raw_path(path: Path, leaf: str | None = None) -> list[dict[str, Any]]:
    """The entries root -> leaf of a pi-format file, read from the raw lines (not our store)."""
    by_id: dict[str, dict[str, Any]] = {}
    last = None
    for obj in _raw_objects(path):
        if isinstance(obj.get("id"), str) and obj.get("type") != "session":
            by_id[obj["id"]] = obj
            last = obj["id"]
    if not by_id:  # a v1 file: no ids, one line after another
        return [o for o in _raw_objects(path) if o.get("type") != "session"]
    out, at = [], leaf or last
    while at in by_id:
        out.append(by_id[at])
        at = by_id[at].get("parentId")
    return out[::-1]


def _raw_prompts(path: Path, leaf: str | None = None) -> int:
    entries = _raw_path(path, leaf)
    return sum(1 for e in entries if e.get("type") == "message" and e["message"].get("role") == "user")


def test_outline_lists_the_typed_prompts_of_claude_and_pi_sessions(page: Page, tmp_path: Path) -> None:
    need_shared("real sessions")
    claude = real_file(CLAUDE)
    open_page(page, _export(claude, tmp_path))
    nav = page.get_by_role("navigation", name="Prompts")
    assert nav.count() == 1
    links = nav.locator(".st-prompt-link")
    assert links.count() == _typed_prompts(claude) == 5
    first = links.nth(0).inner_text()
    assert first.startswith("1.\nHow can I make this possible to install as a library with `uv` so I can")
    assert "5 edit · 5 bash" in first  # the tools that turn called, by count
    pi = real_file(PI)
    open_page(page, _export(pi, tmp_path, "pi.html"))
    assert page.locator("#st-outline .st-prompt-link").count() == _raw_prompts(pi)
    # Codex records what the person typed as `user_message` events (its context messages are not)
    for name in (CODEX, CODEX_LONG):
        codex = real_file(name)
        open_page(page, _export(codex, tmp_path, "codex.html"))
        typed = [
            o["payload"]["message"]
            for o in _raw_objects(codex)
            if o.get("type") == "event_msg" and o["payload"].get("type") == "user_message"
        ]
        titles = page.eval_on_selector_all(
            "#st-outline .st-prompt-title", "ts => ts.map(t => t.textContent.replace('…', ''))"
        )
        assert len(titles) == len(typed) > 0
        assert all(" ".join(m.split()).startswith(t.strip()) for t, m in zip(titles, typed, strict=True))


def test_outline_follows_the_branch(page: Page, tmp_path: Path, gen_session: GenSession) -> None:
    source = gen_session(130)
    entries = _raw_path(source)
    open_page(page, _export(source, tmp_path))
    assert page.locator("#st-outline .st-prompt-link").count() == _raw_prompts(source)
    # another branch: the leaf of a side branch from the tree
    by_parent: dict[str, list[str]] = {}
    all_ids = []
    for obj in _raw_objects(source):
        if obj.get("type") != "session" and isinstance(obj.get("id"), str):
            by_parent.setdefault(str(obj.get("parentId")), []).append(obj["id"])
            all_ids.append(obj["id"])
    on_path = {e["id"] for e in entries}
    leaves = [i for i in all_ids if i not in by_parent and i not in on_path]
    assert leaves, "the generated session has a side branch"
    other = leaves[0]
    page.evaluate(f"window.sessiontree.selectLeaf({json.dumps(other)})")
    wait_js(page, f"window.sessiontree.leafId === {json.dumps(other)}")
    expected = _raw_prompts(source, other)
    wait_js(page, f"document.querySelectorAll('#st-outline .st-prompt-link').length === {expected}")
    assert expected != _raw_prompts(source) or _raw_path(source, other) != entries


def test_shift_j_and_k_move_by_prompt_and_the_tree_follows(page: Page, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    open_page(page, _export(real_file(CLAUDE), tmp_path))
    ids = page.eval_on_selector_all(
        "#st-outline .st-prompt-link", "els => els.map(e => Number(e.dataset.idx))"
    )
    page.locator("body").press("Shift+J")
    wait_js(page, f"document.activeElement && document.activeElement.dataset.idx === '{ids[1]}'")
    top = page.evaluate(
        "(() => { const a = document.activeElement.getBoundingClientRect();"
        " const m = document.getElementById('st-main').getBoundingClientRect(); return a.top - m.top; })()"
    )
    assert 0 <= top <= 50  # at the top, just under the sticky toolbar
    page.keyboard.press("Shift+J")
    wait_js(page, f"document.activeElement.dataset.idx === '{ids[2]}'")
    page.keyboard.press("Shift+K")
    wait_js(page, f"document.activeElement.dataset.idx === '{ids[1]}'")
    # the outline and the tree show the reader's place; focus stayed in the messages
    wait_js(page, f"document.querySelector('#st-outline [aria-current]').dataset.idx === '{ids[1]}'")
    article_id = page.evaluate("document.activeElement.dataset.id")
    wait_js(page, f"(document.querySelector('.st-row.st-reading') || {{}}).dataset?.id === '{article_id}'")
    # the visible controls do the same
    page.click("#st-next-prompt")
    wait_js(page, f"document.activeElement.dataset.idx === '{ids[2]}'")
    page.click("#st-prev-prompt")
    wait_js(page, f"document.activeElement.dataset.idx === '{ids[1]}'")
    page.keyboard.press("?")
    assert "Next / previous typed prompt" in page.inner_text("#st-help")


def test_the_tree_opens_on_the_top_entry_and_follows_scrolling(page: Page, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    open_page(page, _export(real_file(CLAUDE), tmp_path))
    first = page.eval_on_selector("#st-messages .st-entry", "e => e.dataset.id")
    wait_js(page, f"(document.querySelector('.st-row.st-reading') || {{}}).dataset?.id === '{first}'")
    page.evaluate(
        "(() => { const m = document.getElementById('st-main'); m.scrollTop = m.scrollHeight / 2; })()"
    )
    top_id_js = (
        "(() => { const top = document.getElementById('st-main').getBoundingClientRect().top;"
        " for (const a of document.querySelectorAll('#st-messages > .st-entry'))"
        "   if (a.getBoundingClientRect().bottom > top + 48) return a.dataset.id; })()"  # under the toolbar
    )
    wait_js(page, f"(document.querySelector('.st-row.st-reading') || {{}}).dataset?.id === {top_id_js}")
    assert page.evaluate(top_id_js) != first
    assert page.evaluate("document.activeElement === document.body")  # nothing took focus


def test_the_address_follows_the_reader_and_a_reload_opens_there(page: Page, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    url = _export(real_file(CLAUDE), tmp_path)
    open_page(page, url)
    assert page.url == url  # opening changes nothing
    page.evaluate(
        "(() => { const m = document.getElementById('st-main'); m.scrollTop = m.scrollHeight / 2; })()"
    )
    reading = "(document.querySelector('.st-row.st-reading') || {}).dataset?.id"
    wait_js(page, f"location.search === '?targetId=' + encodeURIComponent({reading})")
    place = page.evaluate(reading)
    page.reload()
    page.wait_for_selector("html[data-st-ready]")
    wait_js(page, f"{reading} === '{place}'")  # the tree opens on it: the reload kept the place
    assert page.evaluate(
        f"(() => {{ const r = document.querySelector('#st-messages .st-entry[data-id=\"{place}\"]')"
        ".getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight; })()"
    )
    # back at the first entry the address is the page's own again
    # (opened on the middle, the page renders earlier messages as the reader scrolls up to them)
    wait_js(
        page,
        "(() => { document.getElementById('st-main').scrollTop = 0;"
        " return document.querySelector('.st-edge-top').hidden && location.search === ''; })()",
    )


def test_copy_buttons_put_the_right_text_on_the_clipboard(page: Page, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    url = _export(real_file(CLAUDE), tmp_path)
    assert url.startswith("file://")  # an exported page, opened from disk
    open_page(page, url)

    def copied(selector: str) -> str:
        page.evaluate("navigator.clipboard.writeText('')")
        page.locator(selector).first.click()
        wait_js(page, "document.getElementById('st-toast').textContent === 'Copied'")
        return str(page.evaluate("navigator.clipboard.readText()"))

    assert copied(".st-resume") == "claude --resume cb2e607c-c758-415a-8b45-c49e4631906a"
    text = copied("#st-messages .st-entry.st-user .st-copy-msg")
    assert (
        text
        == "How can I make this possible to install as a library with `uv` so I can run from any directory?"
    )
    # a tool call's input (the command as typed) and its output
    bash = page.locator('.st-call[data-tool="Bash"]').first
    bash.locator(".st-call-head").click()
    call_id = bash.get_attribute("data-call-id")
    command = copied(f'.st-call[data-call-id="{call_id}"] > .st-copy-input')
    raw = [json.loads(line) for line in real_file(CLAUDE).read_text().splitlines()]
    uses = {
        b["id"]: b["input"]
        for o in raw
        if o.get("type") == "assistant"
        for b in o["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_use"
    }
    assert command == uses[call_id]["command"]
    results = {
        b["tool_use_id"]: b["content"]
        for o in raw
        if o.get("type") == "user" and isinstance(o["message"]["content"], list)
        for b in o["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    }
    output = copied(f'.st-call[data-call-id="{call_id}"] .st-result .st-output > .st-copy')
    expected = results[call_id] if isinstance(results[call_id], str) else results[call_id][0]["text"]
    assert output == expected
    # a code block in a message's markdown
    code = page.locator("#st-messages .st-entry > .st-body > .st-text .st-codebox > .st-copy").first
    code.scroll_into_view_if_needed()
    pre_text = code.evaluate("b => b.parentElement.querySelector('pre').textContent")
    page.evaluate("navigator.clipboard.writeText('')")
    code.click()
    wait_js(page, "document.getElementById('st-toast').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == pre_text and pre_text.strip()


def test_copy_falls_back_to_a_selection_without_the_clipboard_api(browser: Browser, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    context = browser.new_context()  # no clipboard permission: the Clipboard API is refused
    page = context.new_page()
    try:
        open_page(page, _export(real_file(CLAUDE), tmp_path))
        page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
        page.click(".st-resume")
        wait_js(page, "['Copied', 'Copy failed'].includes(document.getElementById('st-toast').textContent)")
        assert page.inner_text("#st-toast") == "Copied"  # document.execCommand('copy') on a selection
    finally:
        context.close()


def test_times_show_in_the_readers_zone_with_its_name(browser: Browser, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    context = browser.new_context(timezone_id="America/New_York", locale="en-US")
    page = context.new_page()
    try:
        open_page(page, _export(real_file(CLAUDE), tmp_path))
        first = page.locator('#st-header time[datetime="2025-11-17T11:23:23Z"]')
        assert first.inner_text() == "2025-11-17 06:23:23 EST"
        assert "11:23:23 UTC" in (first.get_attribute("title") or "")
        entry = page.locator("#st-messages .st-entry.st-user .st-ts").first
        assert (entry.get_attribute("datetime") or "").startswith("2025-11-17T11:23:23")
        assert entry.inner_text() == "06:23:23 EST"
        assert "(39 min 24 s)" in page.inner_text("#st-header .st-date")
        page.emulate_media(media="print")
        assert "EST" in page.inner_text("#st-messages .st-entry.st-user .st-ts >> nth=0")
    finally:
        context.close()


def test_tool_calls_are_one_line_until_opened(page: Page, tmp_path: Path) -> None:
    need_shared("a real Claude Code session")
    open_page(page, _export(real_file(CLAUDE), tmp_path))
    call = page.locator('.st-call[data-tool="Edit"]').first
    call.scroll_into_view_if_needed()
    head = call.locator(".st-call-head")
    assert head.get_attribute("aria-expanded") == "false"
    assert call.locator(".st-call-body").is_hidden()
    wait_js(page, "!!document.querySelector('.st-call[data-tool=\"Edit\"] .st-call-outcome')")
    assert call.locator(".st-call-outcome").inner_text().startswith("+")  # "+5 −4"
    head.click()
    assert call.locator(".st-call-body").is_visible() and head.get_attribute("aria-expanded") == "true"
    head.press("Enter")
    assert call.locator(".st-call-body").is_hidden()
    page.click("#st-expand-all")
    wait_js(page, "[...document.querySelectorAll('.st-call')].every(c => c.classList.contains('st-open'))")
    page.click("#st-collapse-all")
    wait_js(page, "![...document.querySelectorAll('.st-call')].some(c => c.classList.contains('st-open'))")
    page.locator("body").press("o")
    wait_js(page, "[...document.querySelectorAll('.st-call')].every(c => c.classList.contains('st-open'))")
    # a Read result's line numbers are a gutter, not text
    read = page.locator('.st-call[data-tool="Read"] .st-result').first
    assert read.locator("pre.st-gutter").count() == 1
    assert "→" not in read.locator("pre:not(.st-gutter)").first.inner_text()


def test_header_has_no_zero_chips_and_a_legend(page: Page, tmp_path: Path) -> None:
    need_shared("real sessions")
    for name in (CLAUDE, PI, "codex/rtchess--dev_history_exported-session.jsonl"):
        open_page(page, _export(real_file(name), tmp_path, Path(name).name + ".html"))
        chips = page.eval_on_selector_all(
            "#st-header .st-counts li, #st-header .st-tokens-total li", "els => els.map(e => e.innerText)"
        )
        assert chips and not [c for c in chips if c.startswith("0 ")], chips
    assert page.locator(".st-usage abbr[title='input tokens']").count() >= 0
    open_page(page, _export(real_file(CLAUDE), tmp_path, "again.html"))
    assert page.locator(".st-usage abbr[title='input tokens']").count() > 0
    assert page.locator(".st-usage abbr[title='cache read tokens']").count() > 0
