"""A built site in Chromium: the index from file:// (filter, links) and over HTTP (Pagefind search)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page

from sessiontree.site import layout, pagefind_index, search_router
from sessiontree.site.build import BuildOptions, build_site
from sessiontree.site.manifest import load_manifest
from tests.browser.conftest import Watch, wait_js
from tests.conftest import GenSession
from tests.site.archive import PHRASE, Archive, make_archive, plant

pytestmark = pytest.mark.browser


@pytest.fixture
def built(tmp_path: Path, gen_session: GenSession) -> tuple[Archive, Path]:
    archive = make_archive(tmp_path, gen_session)
    site = tmp_path / "site"
    result = build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    assert set(result.failures) == {"--home-dev-lib--/notes.jsonl"}
    assert result.search_records and result.search_records > 100
    return archive, site


@pytest.fixture
def static_server(built: tuple[Archive, Path]) -> Iterator[str]:
    """``python -m http.server`` on a free loopback port, as a real process serving the site."""
    with serve_folder(built[1]) as url:
        yield url


@contextmanager
def serve_folder(site: Path) -> Iterator[str]:
    """Serve ``site`` with a real ``python -m http.server`` process on a free loopback port."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # "Serving HTTP on 127.0.0.1 port N ..."
        match = re.search(r"port (\d+)", line)
        assert match, line
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def visible_titles(page: Page) -> list[str]:
    return page.eval_on_selector_all(
        ".st-session:not([hidden]) > a, .st-session:not([hidden]) > .st-title",
        "els => els.filter(e => e.offsetParent !== null).map(e => e.textContent.trim())",
    )


def test_the_index_filters_and_links_from_a_file(
    page: Page, built: tuple[Archive, Path], watch: Watch
) -> None:
    archive, site = built
    page.goto((site / "index.html").as_uri())
    assert "Opened from a file" in page.inner_text("#st-fulltext")
    cwds = page.eval_on_selector_all(".st-group", "els => els.map(e => e.getAttribute('data-cwd'))")
    assert sorted(cwds) == ["", "/home/dev/app", "/home/dev/demo", "/home/dev/lib"]  # demo: the v1 file
    page.fill("#st-filter", "home/dev/lib")
    wait_js(page, "document.querySelectorAll('.st-group:not([hidden])').length === 1")
    assert page.get_attribute(".st-group:not([hidden])", "data-cwd") == "/home/dev/lib"
    page.fill("#st-filter", "")
    wait_js(page, "document.querySelectorAll('.st-group:not([hidden])').length === 4")
    key = archive.app[0].relative_to(archive.root).as_posix()
    page.click(f'a[href="{layout.page_path(key)}"]')
    page.wait_for_selector("html[data-st-ready]")
    assert page.url.endswith(layout.page_path(key))
    assert page.locator("#st-messages .st-entry").count() > 5
    page.goto((site / "index.html").as_uri())
    page.click('a[href="usage.html"]')
    page.wait_for_selector("svg")
    assert page.locator("svg rect").count() > 0
    assert watch.page_errors == []
    assert all(urlparse(u).scheme in ("file", "data") for u in watch.requests)


def test_message_search_over_http_finds_a_deep_phrase_and_opens_its_entry(
    page: Page, built: tuple[Archive, Path], static_server: str, watch: Watch
) -> None:
    archive, _site = built
    planted_path, entry_id = archive.planted
    page.goto(static_server + "/index.html")
    page.fill("#st-filter", PHRASE)
    hit = f'.st-fulltext-hit a[href$="?targetId={entry_id}"]'
    page.wait_for_selector(hit, timeout=120_000)
    key = planted_path.relative_to(archive.root).as_posix()
    assert page.get_attribute(hit, "href") == f"/{layout.page_path(key)}?targetId={entry_id}"
    assert "heron" in page.inner_text(".st-fulltext-hit mark, .st-fulltext-excerpt").lower()
    page.click(hit)
    page.wait_for_selector("html[data-st-ready]")
    target = f'.st-entry[data-id="{entry_id}"]'
    page.wait_for_selector(target)
    assert "st-target" in (page.get_attribute(target, "class") or "")
    assert PHRASE in page.inner_text(target)
    assert watch.page_errors == []
    hosts = {urlparse(u).hostname for u in watch.requests if urlparse(u).scheme in ("http", "https")}
    assert hosts == {"127.0.0.1"}


def test_message_search_merges_every_batch_bundle(
    page: Page, tmp_path: Path, gen_session: GenSession, monkeypatch: pytest.MonkeyPatch, watch: Watch
) -> None:
    archive = make_archive(tmp_path, gen_session)
    monkeypatch.setattr(pagefind_index, "CUT_ONE_IN", 1)  # one bundle per session
    planted = {PHRASE: archive.planted}
    for path, phrase in [
        (archive.app[0], "amber falcon ledger"),
        (archive.app[2], "cobalt lynx harbour"),
        (archive.corrupt, "saffron otter beacon"),
        (archive.root / "--home-dev-lib--" / "2026-11-04_shared.jsonl", "indigo walrus meadow"),
    ]:
        planted[phrase] = (path, plant(path, phrase))
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    manifest = load_manifest(site)
    bundle_of = {key: name for name, b in manifest.bundles.items() for key in b.keys}
    assert len(manifest.bundles) == len(manifest.pages) == 6
    with serve_folder(site) as url:
        page.goto(url + "/index.html")
        for phrase, (path, entry_id) in planted.items():
            page.fill("#st-filter", phrase)
            hit = f'.st-fulltext-hit a[href$="?targetId={entry_id}"]'
            page.wait_for_selector(hit, timeout=120_000)
            key = path.relative_to(archive.root).as_posix()
            assert page.get_attribute(hit, "href") == f"/{layout.page_path(key)}?targetId={entry_id}"
            assert bundle_of[key]  # each phrase lives in its own session's bundle
    assert len({bundle_of[p.relative_to(archive.root).as_posix()] for p, _ in planted.values()}) == 5
    assert watch.page_errors == []
    fetched = {urlparse(u).path.split("/")[1] for u in watch.requests if "/pagefind-" in u}
    # Only the bundles the router says can hold the phrases' words were merged (not every one).
    assert {bundle_of[p.relative_to(archive.root).as_posix()] for p, _ in planted.values()} <= fetched
    assert fetched <= set(manifest.bundles)


def test_rare_word_search_fetches_only_its_bundle(
    page: Page, tmp_path: Path, gen_session: GenSession, monkeypatch: pytest.MonkeyPatch, watch: Watch
) -> None:
    """The files the search fetches for a rare word do not grow with the sessions (issue 42 item
    3): at 10,000 sessions every one of 1,278 bundles was merged (2,560 requests, 11.8 s)."""
    archive = make_archive(tmp_path, gen_session)
    monkeypatch.setattr(pagefind_index, "CUT_ONE_IN", 1)  # one bundle per session
    path, entry_id = archive.app[1], plant(archive.app[1], "zqxjwvrareword kept here")
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    manifest = load_manifest(site)
    assert len(manifest.bundles) == 6
    key = path.relative_to(archive.root).as_posix()
    (own,) = [name for name, b in manifest.bundles.items() if key in b.keys]
    with serve_folder(site) as url:
        page.goto(url + "/search.html?q=zqxjwvrareword")
        page.wait_for_selector(f'.st-fulltext-hit a[href$="?targetId={entry_id}"]', timeout=120_000)
        page.fill("#st-q", "zqxjwvnowhere")  # a word no session holds: no bundle at all
        wait_js(
            page,
            "(document.getElementById('st-fulltext') || {}).textContent?.includes('No message matches.')",
        )
    assert watch.page_errors == []
    # Pagefind's module (the same file in every bundle) and Pagefind itself run on the first
    # bundle, asked for as the page starts; every other file from the rare word's own bundle alone.
    module = [u for u in watch.requests if u.endswith("/pagefind.js")]
    assert len(module) == 1
    fetched = {
        urlparse(u).path.split("/")[1] for u in watch.requests if "/pagefind-" in u and u not in module
    }
    first = pagefind_index.router_order(manifest.bundles)[0]
    assert fetched == {own, first}
    routed = [urlparse(u).path.rsplit("/", 1)[1] for u in watch.requests if "/search-router/" in u]
    # The rare word's shard alone (the page carries the routes, its name): no routes or list file.
    routes = search_router.read_routes(site, pagefind_index.router_order(manifest.bundles))
    assert routes is not None
    assert routed == [f"zq-{routes['shards']['zq']}.json"]  # type: ignore[index]
    # The pages name one bundle (where Pagefind's module is), not the list: it grows with the archive.
    for name in ("index.html", "search.html"):
        assert len(set(re.findall(r"pagefind-[0-9a-f]{16}", (site / name).read_text(encoding="utf-8")))) == 1


def test_rare_word_search_asks_for_every_bundles_files_at_once(
    page: Page, tmp_path: Path, gen_session: GenSession, monkeypatch: pytest.MonkeyPatch, watch: Watch
) -> None:
    """A rare word's search asks for what Pagefind needs of each bundle the router names (its entry
    and metadata files) at once, as soon as the router answered, not one bundle and one file after
    another (issue 54 item 3: seven round trips in a row, 375 ms at 1,000 sessions); Pagefind runs
    on the site's first bundle (its WebAssembly once); it takes each file from the page (no worker,
    each file asked for once) and the hits are every session holding the word, no other."""
    archive = make_archive(tmp_path, gen_session)
    monkeypatch.setattr(pagefind_index, "CUT_ONE_IN", 1)  # one bundle per session
    holders = [archive.app[0], archive.app[2], archive.root / "--home-dev-lib--" / "2026-11-04_shared.jsonl"]
    planted = {path: plant(path, "zqxjwvrareword kept here") for path in holders}
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    manifest = load_manifest(site)
    keys = {path.relative_to(archive.root).as_posix() for path in holders}
    own = {name for name, b in manifest.bundles.items() if keys & set(b.keys)}
    assert len(own) == 3
    with serve_folder(site) as url:
        page.goto(url + "/search.html?q=zqxjwvrareword")
        for entry_id in planted.values():
            page.wait_for_selector(f'.st-fulltext-hit a[href$="?targetId={entry_id}"]', timeout=120_000)
        shown = page.eval_on_selector_all(".st-fulltext-hit a", "els => els.map(e => e.getAttribute('href'))")
    assert watch.page_errors == [] and watch.console_errors == []
    pages = {"/" + layout.page_path(k) for k in keys}
    assert {href.split("?")[0] for href in shown} == pages  # every session holding the word, no other
    fetched = [urlparse(u).path for u in watch.requests if "/pagefind-" in u]
    assert len(fetched) == len(set(fetched))  # each once: Pagefind took the page's own requests
    assert not [p for p in fetched if p.endswith("pagefind-worker.js")]
    first = pagefind_index.router_order(manifest.bundles)[0]  # Pagefind runs on it
    bundles = own | {first}
    assert {p.split("/")[1] for p in fetched if not p.endswith("/pagefind.js")} == bundles
    early = [p for p in fetched if p.endswith(("pagefind-entry.json", ".pf_meta"))]
    assert len(early) == 2 * len(bundles)
    # One WebAssembly (the first bundle's, asked for as the page starts), and every bundle's entry
    # and metadata asked for before any index chunk (test_site_search_waves.py: in which wave).
    (wasm,) = [p for p in fetched if p.endswith(".pagefind")]
    assert wasm == f"/{first}/wasm.en.pagefind"
    assert max(fetched.index(p) for p in early) < min(
        n for n, p in enumerate(fetched) if p.endswith(".pf_index")
    )
