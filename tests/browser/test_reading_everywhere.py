"""One viewer everywhere (issue 29): the same session read in an exported file, a built site over a
real http.server and the real ``sessiontree serve`` process gives the same outline, keys, resume
command and local times; on a served page a prompt typed while it is open joins the outline."""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Page

from sessiontree.pages.export import export_to_file
from sessiontree.site import layout
from sessiontree.site.build import BuildOptions, build_site
from tests.browser.conftest import Watch, open_page, wait_js
from tests.browser.test_serve_live import last_id, open_live
from tests.browser.test_site import serve_folder
from tests.conftest import real_file
from tests.serve.conftest import append_line
from tests.serve.process import agent_folder, serve_process
from tests.store.helpers import assistant, msg

pytestmark = pytest.mark.browser

PI = "pi/pi-mono--session.jsonl"
KEY = "--home-dev-demo--/2026-02-16T10-20-34_pi-mono.jsonl"


def reading_aids(page: Page) -> dict[str, object]:
    """What the reading aids show: the outline, the resume command, times localized, and J's move."""
    outline = page.eval_on_selector_all(
        "#st-outline .st-prompt-link", "as => as.map(a => [a.dataset.idx, a.textContent])"
    )
    page.locator("#st-outline .st-prompt-link").first.click()
    wait_js(page, f"document.activeElement.dataset?.idx === '{outline[0][0]}'")
    page.keyboard.press("Shift+J")
    wait_js(page, f"document.activeElement.dataset?.idx === '{outline[1][0]}'")
    return {
        "outline": outline,
        "resume": page.eval_on_selector_all(".st-resume", "bs => bs.map(b => b.dataset.copy)"),
        "all times local": page.evaluate(
            "[...document.querySelectorAll('time[datetime]')].every(t => t.hasAttribute('data-st-local'))"
        ),
        "tools": page.eval_on_selector("#st-expand-all", "b => b.getAttribute('aria-label') || b.title"),
    }


def test_export_site_and_serve_read_alike(page: Page, watch: Watch, tmp_path: Path) -> None:
    source = real_file(PI)
    agent = agent_folder(tmp_path, "--home-dev-other--/2026-01-01T00-00-00_x.jsonl", turns=3)
    root = agent / "sessions"
    (root / KEY).parent.mkdir(parents=True)
    shutil.copyfile(source, root / KEY)

    open_page(page, export_to_file(source, tmp_path / "page.html").as_uri())
    exported = reading_aids(page)
    assert len(exported["outline"]) >= 2 and exported["all times local"] is True  # type: ignore[arg-type]

    site = tmp_path / "site"
    build_site(BuildOptions(root=root, site=site, jobs=1))
    with serve_folder(site) as url:
        open_page(page, f"{url}/{layout.page_path(KEY)}")
        assert reading_aids(page) == exported

    with serve_process(root, agent, tmp_path / "cache") as served:
        open_live(page, f"{served.url}/s/{quote(KEY)}")
        assert reading_aids(page) == exported
    assert watch.page_errors == []


def test_a_prompt_typed_while_the_page_is_open_joins_the_outline(page: Page, tmp_path: Path) -> None:
    key = "--home-dev-demo--/2026-02-16T10-20-34_demo.jsonl"
    agent = agent_folder(tmp_path, key, turns=6)
    path = agent / "sessions" / key
    with serve_process(agent / "sessions", agent, tmp_path / "cache") as served:
        open_live(page, f"{served.url}/s/{quote(key)}")
        count = "document.querySelectorAll('#st-outline .st-prompt-link').length"
        before = page.evaluate(count)
        parent = last_id(path)
        append_line(path, msg("live-u1", parent, "user", "zqlive a prompt typed while the page is open"))
        append_line(path, assistant("live-a1", "live-u1", "an answer streamed in live"))
        wait_js(page, f"{count} === {before + 1}")
        last = page.locator("#st-outline .st-prompt-link").last
        assert "zqlive a prompt typed" in last.inner_text()
        last.click()
        wait_js(page, "document.activeElement.dataset?.id === 'live-u1'")
