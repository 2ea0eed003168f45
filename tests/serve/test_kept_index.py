"""Issue 54 item 1: a fresh server's first ``GET /`` answers with the index page its last run made
from a listing read whole, while its own first listing is not made yet; the listing, once made,
has another state (what the page's event stream says first: the page asks for its rows again),
and the next page is the listing read whole."""

from __future__ import annotations

import re
from pathlib import Path

import anyio
import httpx
import pytest

from sessiontree.archive.catalog import Catalog
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.kept_index import kept_page_path
from sessiontree.store.surrogates import shown_name
from tests.serve.conftest import gate_first_listing, make_client, write_session
from tests.serve.process import serve_process

HANG = 120.0
STATE = re.compile(r'id="st-groups"[^>]* data-state="([^"]+)"')


def _state_of(html: str) -> str:
    found = STATE.search(html)
    assert found is not None, html[:2000]
    return found.group(1)


@pytest.mark.anyio
async def test_a_fresh_server_shows_the_kept_page_until_its_listing_is_made(
    sessions_dir: Path, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    async with make_client(config) as client:
        last_run = (await client.get("/")).text
    kept = kept_page_path(config)
    assert kept.read_text(encoding="utf-8") == last_run and "zqkeptnew" not in last_run
    write_session(sessions_dir / "--work-new--" / "2026-03-01_new.jsonl", "zqkeptnew", "/work/new")

    go = gate_first_listing(monkeypatch, HANG)
    try:
        async with make_client(config) as client:
            first = await client.get("/")  # the first listing waits for the gate: the kept page
            assert first.status_code == 200 and first.text == last_run and not go.is_set()
            go.set()
            rows = (await client.get("/api/index-rows")).json()
            assert rows["state"] != _state_of(first.text) and "zqkeptnew" in rows["html"]
            state = client._transport.app.state.serve  # type: ignore[attr-defined]
            assert (await state.index_feed.first_event()).data["state"] == rows["state"]
            again = (await client.get("/")).text  # listed now: made from the listing read whole
            assert "zqkeptnew" in again and _state_of(again) == rows["state"]
        with anyio.fail_after(HANG):
            while kept.read_text(encoding="utf-8") != again:  # kept for the next run
                await anyio.sleep(0.05)
    finally:
        go.set()


@pytest.mark.anyio
async def test_no_kept_page_a_fresh_server_answers_from_its_folders(
    sessions_dir: Path, agent_dir: Path, tmp_path: Path
) -> None:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    kept_page_path(config).parent.mkdir(parents=True)
    kept_page_path(config).write_text("", encoding="utf-8")  # found but empty: as good as none
    async with make_client(config) as client:
        page = (await client.get("/")).text
    assert "s1" in page or "hello from s1" in page
    assert _state_of(page)


def test_a_restarted_server_lists_what_a_whole_read_does(tmp_path: Path, agent_dir: Path) -> None:
    """A real serve keeps its index page; started again over its cache dir with a new session, its
    first page is the kept one or the new listing, and its rows end as a whole read has them."""
    root, cache = agent_dir / "sessions", tmp_path / "cache"
    with serve_process(root, agent_dir, cache) as served:
        last_run = httpx.get(served.url + "/", timeout=HANG).text
        assert served.stop() == 0
    (kept,) = cache.glob("serve-index-*.html")
    assert kept.read_text(encoding="utf-8") == last_run
    write_session(root / "--work-new--" / "2026-03-01_new.jsonl", "zqkeptnew", "/work/new")
    with serve_process(root, agent_dir, cache) as served:
        first = httpx.get(served.url + "/", timeout=HANG).text
        assert first == last_run or "zqkeptnew" in first
        rows = httpx.get(served.url + "/api/index-rows", timeout=HANG).json()
        whole = sorted(shown_name(e.key) for e in Catalog(root).scan())  # no cache: a whole read
        assert sorted(re.findall(r'data-key="([^"]+)"', rows["html"])) == whole
        assert served.stop() == 0
