"""A built site's search and links in Chromium, over a real ``http.server`` process on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page

from sessiontree.site import browse, layout
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


def test_the_site_pane_lists_the_project_opens_next_and_shows_what_grew_after_a_rebuild(
    page: Page, tmp_path: Path, gen_session: GenSession, watch: Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pane's list in files of one session (``CHUNK_ROWS``, 500 in a real build): the pane
    draws the project's sessions from all of them."""
    import json
    import os
    import time

    monkeypatch.setattr(browse, "CHUNK_ROWS", 1)
    archive = make_archive(tmp_path, gen_session)
    now = time.time()
    for hours, path in enumerate(archive.app):  # app[0] newest
        os.utime(path, (now - 3600 * (hours + 1), now - 3600 * (hours + 1)))
    site = tmp_path / "site"
    options = BuildOptions(root=archive.root, site=site, jobs=2, search=False)
    build_site(options)
    keys = [p.relative_to(archive.root).as_posix() for p in archive.app]
    data = json.loads((site / "sessions.json").read_text(encoding="utf-8"))
    assert len(data["sessions"]) == 1 and len(data["more"]) >= 2
    rows = data["sessions"]
    for name in data["more"]:
        rows += json.loads((site / name).read_text(encoding="utf-8"))["sessions"]
    assert [s["k"] for s in rows if s["p"] == "/home/dev/app"] == keys
    with serve_folder(site) as url:
        page.goto(url + "/" + layout.page_path(keys[0]))
        page.wait_for_selector("#st-browse .st-browse-row")
        shown = page.eval_on_selector_all("#st-browse .st-browse-row", "rs => rs.map(r => r.dataset.key)")
        assert shown == keys  # this project only, newest activity first
        page.keyboard.press("Alt+ArrowDown")
        page.wait_for_url("**/" + layout.page_path(keys[1]))
        page.wait_for_selector("#st-browse .st-browse-row")
        # Another session grows and the site is built again: the reloaded pane counts it as new.
        last = json.loads(archive.app[2].read_text(encoding="utf-8").splitlines()[-1])
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        text = {"role": "user", "content": [{"type": "text", "text": "a late question"}]}
        line = {"type": "message", "id": "late1", "parentId": last["id"], "timestamp": stamp, "message": text}
        with archive.app[2].open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
        build_site(options)
        page.reload()
        grew = f'#st-browse .st-browse-row.st-browse-grew[data-key="{keys[2]}"]'
        page.wait_for_selector(grew)
        assert page.inner_text(grew + " .st-browse-new") == "1 new"
        page.click(grew + " a")
        page.wait_for_selector("html[data-st-ready]")
        wait_js(page, "document.documentElement.getAttribute('data-st-unseen') === 'late1'")
    assert watch.page_errors == []
    assert {urlparse(u).hostname for u in watch.requests if u.startswith("http")} == {"127.0.0.1"}
