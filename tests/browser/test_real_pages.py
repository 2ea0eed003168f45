"""Every real session file we have, of every agent, read as a reader would in Chromium (issue 29):
the page opens with no error and no request, its outline walks prompt by prompt with J / K, the
calls open and close all at once, every time is in the reader's zone, the resume command is the
agent's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.pages.export import export_to_file
from tests.browser.conftest import Watch, open_page, wait_js
from tests.conftest import REAL, ROOT

pytestmark = pytest.mark.browser

FIXTURES = ROOT / "tests" / "fixtures"
FILES = sorted(
    {
        *REAL.glob("*/*.jsonl"),
        *(FIXTURES / "claude").glob("*.jsonl"),
        *(FIXTURES / "codex").glob("*.jsonl"),
        *(FIXTURES / "gemini").glob("*.jsonl"),
        *(FIXTURES / "pi-mono").glob("*.jsonl"),
        *FIXTURES.glob("*.jsonl"),
    }
)
RESUME = re.compile(r"(claude --resume|codex resume|pi --resume|omp --resume|gemini --resume) \S+")
MOVES = 4  # prompts walked each way on a long session


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name[-60:]}"


@pytest.mark.parametrize("source", FILES, ids=_name)
def test_every_real_file_reads_as_a_page(page: Page, watch: Watch, tmp_path: Path, source: Path) -> None:
    url = export_to_file(source, tmp_path / "page.html").as_uri()
    open_page(page, url)
    assert watch.page_errors == [] and watch.console_errors == [] and watch.dialogs == []
    assert all(u.startswith(("file:", "data:", "blob:")) for u in watch.requests), watch.requests
    # the outline walks prompt by prompt: J to the next, K back, focus on the prompt each time
    links = page.eval_on_selector_all("#st-outline .st-prompt-link", "as => as.map(a => a.dataset.idx)")
    if links:
        page.locator("#st-outline .st-prompt-link").first.click()
        wait_js(page, f"document.activeElement.dataset?.idx === '{links[0]}'")
        walked = links[: MOVES + 1]
        for idx in walked[1:]:
            page.keyboard.press("Shift+J")
            wait_js(page, f"document.activeElement.dataset?.idx === '{idx}'")
        for idx in reversed(walked[:-1]):
            page.keyboard.press("Shift+K")
            wait_js(page, f"document.activeElement.dataset?.idx === '{idx}'")
    # every call opens and closes from the toolbar
    if page.locator("#st-messages .st-call").count():
        page.click("#st-expand-all")
        wait_js(
            page, "[...document.querySelectorAll('.st-call')].every(c => c.classList.contains('st-open'))"
        )
        page.click("#st-collapse-all")
        wait_js(
            page, "![...document.querySelectorAll('.st-call')].some(c => c.classList.contains('st-open'))"
        )
    # every time on screen is the reader's (data-st-local) and names its zone in the hover title
    times = page.eval_on_selector_all(
        "time[datetime]", "ts => ts.map(t => [t.hasAttribute('data-st-local'), t.title, t.dateTime])"
    )
    parsed = [t for t in times if not t[2].startswith("Invalid")]
    assert all(local and "UTC" in title for local, title, _ in parsed), times[:5]
    resume = page.eval_on_selector_all(".st-resume", "bs => bs.map(b => b.dataset.copy)")
    assert all(RESUME.fullmatch(r) for r in resume), resume
    assert watch.page_errors == [] and watch.console_errors == []
