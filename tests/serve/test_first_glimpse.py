"""Issue 54 item 1: "a folder never seen before shows its first rows from the newest files first,
before every file has been read": with no page kept from a last run, a fresh server's first
``GET /`` answers with what a walk of the folders finds in a moment (``archive.glimpse``) while its
first listing is not made; the listing, once made, has another state (the page asks again) and
is what a whole read lists."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from sessiontree.archive.collection import Sources
from sessiontree.archive.glimpse import glimpse
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.kept_index import kept_page_path
from sessiontree.store.surrogates import shown_name
from tests.serve.conftest import gate_first_listing, make_client, write_session

HANG = 120.0
STATE = re.compile(r'id="st-groups"[^>]* data-state="([^"]+)"')
KEYS = re.compile(r'data-key="([^"]+)"')


def _two_roots(tmp_path: Path) -> list[Path]:
    """Two folders (so keys carry labels), five sessions with distinct times, newest in the second."""
    roots = [tmp_path / "one" / "sessions", tmp_path / "two" / "sessions"]
    for n in range(5):
        path = write_session(
            roots[n % 2] / "--work-p--" / f"2026-01-0{n + 1}_s{n}.jsonl", f"zq{n}", "/work/p"
        )
        os.utime(path, (1_700_000_000 + n * 60, 1_700_000_000 + n * 60))
    return roots


def test_a_glimpse_lists_the_newest_first_as_the_listing_keys_them(tmp_path: Path) -> None:
    roots = _two_roots(tmp_path)
    whole = Sources(roots, None).scan()  # no cache: a whole read
    now = time.monotonic()
    seen = glimpse(roots, now + HANG, now + HANG, 100)
    assert [e.key for e in seen] == [e.key for e in whole] and len(seen) == 5
    assert [e.title or e.first_message for e in seen] == [e.first_message for e in whole]
    assert [e.modified for e in seen] == sorted((e.modified for e in whole), reverse=True)
    some = glimpse(roots, now + HANG, now + HANG, 2)  # the two newest read, the rest from their stat
    assert [e.first_message for e in some[:2]] == ["hello from zq4", "hello from zq3"]
    assert all(e.pending and e.first_message is None for e in some[2:])
    assert [(e.key, e.size) for e in some] == [(e.key, e.size) for e in whole]
    # Each folder had a file read, its cwd the one "--work-p--" is the name of: the rest shown
    # under it, not "(no working directory)"; with none read the name alone cannot tell.
    assert [e.cwd for e in some] == ["/work/p"] * 5
    assert [e.cwd for e in glimpse(roots, now + HANG, now + HANG, 0)] == [""] * 5
    assert glimpse(roots, now - 1, now + HANG, 100) == []  # no time to walk: nothing found


@pytest.mark.anyio
async def test_with_no_kept_page_the_first_page_is_a_glimpse_until_the_listing_is_made(
    tmp_path: Path, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = _two_roots(tmp_path)
    config = ServeConfig(roots=tuple(roots), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False)
    go = gate_first_listing(monkeypatch, HANG)
    whole = [shown_name(e.key) for e in Sources(roots, None).scan()]
    try:
        async with make_client(config) as client:
            first = await client.get("/")  # the first listing waits for the gate: a glimpse
            assert first.status_code == 200 and not go.is_set()
            assert not kept_page_path(config).exists()  # a glimpse is never kept for the next run
            glimpsed = STATE.search(first.text)
            assert glimpsed is not None
            shown = KEYS.findall(first.text)
            assert shown == [key for key in whole if key in shown]  # newest first, as listed
            assert "zqglimpsenew" not in first.text
            new = write_session(roots[0] / "--work-p--" / "2026-02-01_new.jsonl", "zqglimpsenew", "/work/p")
            whole = [shown_name(e.key) for e in Sources(roots, None).scan()]
            go.set()
            rows = (await client.get("/api/index-rows")).json()
            assert rows["state"] != glimpsed.group(1)  # the page's stream makes it ask again
            assert sorted(KEYS.findall(rows["html"])) == sorted(whole) and "zqglimpsenew" in rows["html"]
            assert new.name in whole[0]
            state = client._transport.app.state.serve  # type: ignore[attr-defined]
            assert (await state.index_feed.first_event()).data["state"] == rows["state"]
    finally:
        go.set()
