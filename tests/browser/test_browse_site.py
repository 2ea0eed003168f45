"""A built site's search and links in Chromium, over a real ``http.server`` process on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page

from sessiontree.site import layout
from sessiontree.site.build import BuildOptions, build_site
from tests.browser.conftest import Watch, wait_js
from tests.browser.test_site import serve_folder
from tests.conftest import GenSession
from tests.site.archive import make_archive, plant

pytestmark = pytest.mark.browser

RARE = "zqturbopack"


def test_an_exact_rare_word_ranks_its_session_first_and_every_page_links_home(
    page: Page, tmp_path: Path, gen_session: GenSession, watch: Watch
) -> None:
    archive = make_archive(tmp_path, gen_session)
    exact = archive.app[2]
    exact_id = plant(exact, RARE)
    # Near misses, more of them and in more sessions: stems and longer words.
    for path in (archive.app[0], archive.root / "--home-dev-lib--" / "2026-11-04_shared.jsonl"):
        plant(path, f"{RARE}s {RARE}ing {RARE}ers {RARE}s {RARE}ing")
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    exact_page = "/" + layout.page_path(exact.relative_to(archive.root).as_posix())
    with serve_folder(site) as url:
        page.goto(url + "/search.html?q=" + RARE)
        wait_js(
            page, "(document.querySelector('.st-fulltext-status') || {}).textContent?.includes('session')", 60
        )
        first = page.locator(".st-fulltext-group").first
        assert first.locator("h3 a").get_attribute("href") == exact_page
        assert (
            first.locator(".st-fulltext-hit a").first.get_attribute("href")
            == f"{exact_page}?targetId={exact_id}"
        )
        assert first.locator("mark").first.inner_text().lower() == RARE
        groups = page.locator(".st-fulltext-group").count()
        assert groups == 3  # the near misses are found too, after it
        excerpts = page.eval_on_selector_all(".st-fulltext-excerpt", "ps => ps.map(p => p.textContent)")
        assert excerpts and not any(e.lstrip().startswith(("tool.", "assistant.", "user.")) for e in excerpts)
        total = page.inner_text(".st-fulltext-status")
        assert total.endswith("in 3 sessions")
        assert page.locator(".st-fulltext-hit").count() == int(total.split()[0])  # every hit reachable
        for shown in ("/index.html", exact_page, "/usage.html", "/search.html"):
            page.goto(url + shown)
            hrefs = page.eval_on_selector_all("nav.st-nav a", "as => as.map(a => a.href)")
            assert hrefs == [url + "/index.html", url + "/usage.html", url + "/search.html"], shown
        page.goto(url + exact_page)
        page.wait_for_selector("html[data-st-ready]")
        page.keyboard.press("Control+k")
        page.wait_for_url("**/search.html")
    assert watch.page_errors == []
    assert {urlparse(u).hostname for u in watch.requests if u.startswith("http")} == {"127.0.0.1"}
