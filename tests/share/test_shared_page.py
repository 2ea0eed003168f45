"""The page that is shared: the real fixture shares untouched, and the redacted page renders in Chromium."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sessiontree.exporter import live_script
from sessiontree.share.publish import share_session
from tests.browser.conftest import wait_js
from tests.chromium import CHROMIUM, CHROMIUM_ARGS
from tests.exporter.conftest import parse_page
from tests.share.conftest import FakeGh
from tests.share.sessions import SECRETS, page_text, write_session


def test_real_v1_session_shares_and_stays_untouched(
    real_v1: Path, fake_gh: FakeGh, temp_root: Path, isolated_agent_dir: Path
) -> None:
    before = (real_v1.read_bytes(), os.stat(real_v1).st_mtime_ns)
    notes: list[str] = []
    outcome = share_session(real_v1, isolated_agent_dir, notify=notes.append)
    assert outcome.gist is not None
    assert outcome.size == len(fake_gh.uploaded_raw().encode("utf-8"))
    name = fake_gh.uploaded_path().name
    assert name.startswith("sessiontree-") and name.endswith(".html") and name != "index.html"
    assert "<!doctype html>" in fake_gh.uploaded().lower()
    assert (real_v1.read_bytes(), os.stat(real_v1).st_mtime_ns) == before
    assert list(temp_root.iterdir()) == []


@pytest.mark.browser
def test_redacted_page_renders_in_chromium(fake_gh: FakeGh, isolated_agent_dir: Path, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    from playwright.sync_api import sync_playwright

    session = write_session(tmp_path / "s.jsonl")
    share_session(session, isolated_agent_dir, notify=lambda _: None)
    shared = tmp_path / "shared.html"
    shared.write_text(fake_gh.uploaded(), encoding="utf-8")
    assert all(secret not in page_text(fake_gh.uploaded()) for secret in SECRETS)

    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(shared.as_uri())
            page.wait_for_selector("#st-messages article.st-entry", timeout=120_000)
            page.click("#st-expand-all")  # tool calls are one line until opened
            wait_js(  # (wait_for_function evaluates a string, which the page's CSP forbids)
                page,
                "document.querySelector('#st-messages').innerText.includes('REDACTED:aws-access-key')",
                timeout=120,
            )
            shown = page.inner_text("#st-messages")
        finally:
            browser.close()
    assert errors == []
    assert "[REDACTED:github-token]" in shown
    assert "[REDACTED:env-assignment]" in shown
    assert all(secret not in shown for secret in SECRETS)
    assert "Login fails. My token is" in shown


def test_a_shared_page_does_not_carry_the_live_script(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    share_session(write_session(tmp_path / "s.jsonl"), isolated_agent_dir, notify=lambda _: None)
    shared = fake_gh.uploaded()
    scripts = [text for attrs, text in parse_page(shared).scripts if "type" not in attrs]
    assert len(scripts) == 1 and "sessiontree" in scripts[0]
    assert "appendEntry" not in shared and live_script() not in shared
