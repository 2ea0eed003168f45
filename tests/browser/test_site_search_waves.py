"""A built site's rare-word search asks for its files in four waves (issue 54 item 3): each wave's
requests are all asked for with only the waves before it answered (a server that holds every answer
of a wave until the wave is complete), and nothing else is asked for."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page

from sessiontree.site import pagefind_index, search_router
from sessiontree.site.build import BuildOptions, build_site
from sessiontree.site.manifest import load_manifest
from tests.browser.conftest import Watch
from tests.conftest import GenSession
from tests.site.archive import make_archive, plant

pytestmark = pytest.mark.browser

SERVER = Path(__file__).with_name("wave_server.py")


@contextmanager
def wave_server(site: Path, waves: list[dict[str, list[str]]], tmp: Path) -> Iterator[tuple[str, Path]]:
    """``wave_server.py`` over ``site`` as a real process on a free loopback port, and its log."""
    spec, log = tmp / "waves.json", tmp / "waves.log"
    spec.write_text(json.dumps(waves), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-u", str(SERVER), str(site), str(spec), str(log)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.fullmatch(r"port (\d+)\n", line)
        assert match, line
        yield f"http://127.0.0.1:{match.group(1)}", log
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def meta_of(site: Path, bundle: str) -> str:
    return search_router.entry_meta((site / bundle / "pagefind-entry.json").read_bytes())


@pytest.mark.parametrize("split", [False, True], ids=["shard", "split-shard"])
def test_a_rare_words_search_asks_in_four_waves_or_five_through_a_split_shard(
    page: Page,
    tmp_path: Path,
    gen_session: GenSession,
    monkeypatch: pytest.MonkeyPatch,
    watch: Watch,
    split: bool,
) -> None:
    """Wave 1, as the page starts: Pagefind's module, the first bundle's entry, metadata and
    WebAssembly (Pagefind runs on it) and the word's router shard (the page carries the router's
    routes); 2: the entry and metadata of each bundle the shard names; 3: their index chunks (and
    perhaps the first bundle's); 4: the hits' fragments. No routes or list file, no worker: 5 + 4 +
    2 + 2 requests for a word in two bundles (16 in five waves before: the routes came first, the
    WebAssembly with the word's bundles), whatever the archive's size. A word whose shard is split
    (its two letters' keys in many bundles) asks for its key's file in a wave between 1 and 2."""
    archive = make_archive(tmp_path, gen_session)
    monkeypatch.setattr(pagefind_index, "CUT_ONE_IN", 1)  # one bundle per session
    if split:
        monkeypatch.setattr(search_router, "SPLIT_BYTES", 0)  # every shard a file per key
    holders = [archive.app[1], archive.root / "--home-dev-lib--" / "2026-11-04_shared.jsonl"]
    planted = [plant(path, "zqxjwvrareword kept here") for path in holders]
    site = tmp_path / "site"
    build_site(BuildOptions(root=archive.root, site=site, jobs=2))
    order = pagefind_index.router_order(load_manifest(site).bundles)
    first = order[0]
    keys = {path.relative_to(archive.root).as_posix() for path in holders}
    own = sorted(name for name, b in load_manifest(site).bundles.items() if keys & set(b.keys))
    assert len(own) == 2 and first not in own
    routes = search_router.read_routes(site, order)
    assert routes is not None and routes["meta0"] == meta_of(site, first)
    shard = f"zq-{routes['shards']['zq']}.json"  # type: ignore[index]
    waves = [
        {
            "required": [
                re.escape(f"/{first}/pagefind.js"),
                re.escape(f"/{first}/pagefind-entry.json"),
                re.escape(f"/{first}/pagefind.{meta_of(site, first)}.pf_meta"),
                re.escape(f"/{first}/wasm.en.pagefind"),
                re.escape(f"/search-router/{shard}"),
            ]
        },
        {
            "required": [
                re.escape(f"/{b}/{name}")
                for b in own
                for name in ("pagefind-entry.json", f"pagefind.{meta_of(site, b)}.pf_meta")
            ]
        },
        {
            "required": [re.escape(f"/{b}/index/") + r"[\w-]+\.pf_index" for b in own],
            "optional": [re.escape(f"/{first}/index/") + r"[\w-]+\.pf_index"],
        },
        {"required": [re.escape(f"/{b}/fragment/") + r"[\w-]+\.pf_fragment" for b in own]},
    ]
    if split:
        keys = json.loads((site / "search-router" / shard).read_text())["split"]
        assert set(keys) == {"zqx"}
        waves.insert(1, {"required": [re.escape(f"/search-router/zqx-{keys['zqx']}.json")]})
    with wave_server(site, waves, tmp_path) as (url, log):
        page.goto(url + "/search.html?q=zqxjwvrareword")
        for entry_id in planted:
            page.wait_for_selector(f'.st-fulltext-hit a[href$="?targetId={entry_id}"]', timeout=120_000)
        asked = [line.split(" ", 1) for line in log.read_text(encoding="utf-8").splitlines()]
    assert watch.page_errors == [] and watch.console_errors == []
    assert not [path for wave, path in asked if wave == "held"]  # no wave waited for a later one
    by_wave = {w: [path for wave, path in asked if wave == str(w)] for w in range(len(waves))}
    assert {path for wave, path in asked if wave == "-"} <= {"/search.html", "/favicon.ico"}
    assert [len(by_wave[w]) for w in (0, *range(1, len(waves) - 2), len(waves) - 1)] == [5] + [1] * split + [
        4,
        2,
    ]
    assert len(by_wave[len(waves) - 2]) in (
        2,
        3,
    )  # the first bundle's index chunk if its ranges hold the word
    waved = [path for paths in by_wave.values() for path in paths]
    assert len(waved) == len(set(waved))  # each once: Pagefind took the page's own requests
