"""The open index's agent and project filters offer what arrives (issue 44 item 5): a real ``serve``
process, real Chromium on its home page in both themes at 1280 and 400 px, a real Claude Code
file and a pi session of a new project written into the folder while the page is open."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.browser.axe import assert_clean
from tests.browser.conftest import wait_js
from tests.conftest import real_file
from tests.serve.conftest import write_session
from tests.serve.process import agent_folder, listed, serve_process

pytestmark = pytest.mark.browser

KEY = "--home-dev-demo--/2026-02-16T10-20-34_demo.jsonl"
CLAUDE = (
    "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
    "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
)
Scheme = Literal["light", "dark"]


def _choices(page: Page, select: str) -> list[list[str]]:
    return page.eval_on_selector_all(f"#{select} option", "os => os.map(o => [o.value, o.textContent])")


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    yield agent_folder(tmp_path, KEY, turns=3)


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (400, "dark")])
def test_new_agent_and_project_are_offered_on_the_open_index(
    browser: Browser, folder: Path, tmp_path: Path, width: int, scheme: Scheme
) -> None:
    context = browser.new_context(
        viewport={"width": width, "height": 800}, color_scheme=scheme, bypass_csp=True
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(60_000)  # a ceiling on a loaded machine, not a timed assertion
    sessions = folder / "sessions"
    with serve_process(sessions, folder, tmp_path / "cache") as served:
        try:
            with httpx.Client(base_url=served.url, timeout=120) as client:
                listed(client)  # the page made from the whole listing, not corrected while used
            page.goto(served.url + "/")
            page.wait_for_selector(".st-session")
            wait_js(page, "document.documentElement.getAttribute('data-st-live') === 'open'")
            assert _choices(page, "st-agent-filter") == [["", "Every agent"], ["pi", "pi"]]
            projects = _choices(page, "st-project-filter")
            assert [p[0] for p in projects] == ["", "/home/dev/demo"]
            page.select_option("#st-project-filter", "/home/dev/demo")  # a choice made stays made

            # A Claude Code session copied in whole (renamed into place), a pi session of a new project.
            claude = sessions / "claude" / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
            claude.parent.mkdir()
            shutil.copyfile(real_file(CLAUDE), claude.with_suffix(".tmp"))
            os.replace(claude.with_suffix(".tmp"), claude)
            write_session(sessions / "--work-fresh--" / "2026-03-01_fresh.jsonl", "fresh", "/work/fresh")

            wait_js(page, "!!document.querySelector('#st-agent-filter option[value=\"claude\"]')")
            wait_js(page, "!!document.querySelector('#st-project-filter option[value=\"/work/fresh\"]')")
            assert _choices(page, "st-agent-filter") == [
                ["", "Every agent"],
                ["claude", "Claude Code"],
                ["pi", "pi"],
            ]
            values = [p[0] for p in _choices(page, "st-project-filter")]
            assert values[0] == "" and values[1:] == sorted(values[1:]) and len(values) == 4
            assert {"/home/dev/demo", "/work/fresh"} < set(values)
            assert page.input_value("#st-project-filter") == "/home/dev/demo"

            # The new choices filter the list like the others.
            page.select_option("#st-project-filter", "")
            page.select_option("#st-agent-filter", "claude")
            # The rows the filter shows once the server's answer for it is in (the rows at hand show
            # at once and its answer takes their place; a push of the files just added may correct it
            # again), read in the same turn of the page as the state is checked: two busy CI runs
            # read [] between a wait that had passed and a read after it.
            rows = "#st-groups > .st-group > .st-sessions > .st-session"
            drawn = f"[...document.querySelectorAll('{rows}')].filter(li => !li.hidden)"
            settled = (
                "(() => { if (document.documentElement.getAttribute('data-st-rows') === 'loading')"
                " return null;"
                f" const shown = {drawn}.map(li => li.dataset.agent);"
                " return shown.length && shown.every(a => a === 'claude') ? shown : null; })()"
            )
            shown = page.wait_for_function(settled, timeout=120_000).json_value()
            assert shown == ["claude"], shown  # the one Claude Code session, no other agent's
            page.select_option("#st-agent-filter", "")
            page.select_option("#st-project-filter", "/work/fresh")
            wait_js(page, "document.querySelectorAll('#st-groups > .st-group:not([hidden])').length === 1")
            assert page.get_attribute("#st-groups > .st-group:not([hidden])", "data-cwd") == "/work/fresh"
            assert_clean(page, f"the index with new choices at {width} px, {scheme}")
            assert errors == []
        finally:
            context.close()
