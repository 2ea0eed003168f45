"""The index feed's ``sessions`` events: each names the listing's state, and a session page that
opens after a change pushed to no page still hears of the next one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sessiontree.serve.followed import topic_of
from sessiontree.serve.index_feed import INDEX_TOPIC
from sessiontree.serve.listing import listing_state
from sessiontree.serve.state import ServeState
from sessiontree.store.discovery import SessionInfo
from tests.serve.conftest import KEY, write_session

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_listing_back_in_a_state_pushed_before_is_pushed_to_a_page_opened_since(
    sessions_dir: Path, serve_state: ServeState
) -> None:
    state = serve_state
    feed, hub = state.index_feed, state.hub
    first = hub.subscribe(topic_of(KEY))
    await feed.push()
    was = first.get_nowait()
    assert was is not None and was.name == "sessions"
    hub.unsubscribe(topic_of(KEY), first)
    new = write_session(sessions_dir / "--work-new--" / "2026-01-03_s3.jsonl", "s3", "/work/new")
    state.listing.changed()
    await feed.push()  # pushed to no page
    # A page opens now: its pane's list has the new file, and its stream's first event says so.
    opened = hub.subscribe(topic_of(KEY))
    assert (await feed.pane_event()).data["state"] != was.data["state"]
    new.unlink()  # back as it was when last pushed: the open page's pane must hear of it
    state.listing.changed()
    await feed.push()
    back = opened.get_nowait()
    assert back is not None and back.name == "sessions" and back.data == was.data


async def test_a_push_while_a_new_index_stream_lists_the_folder_is_not_lost(
    sessions_dir: Path, serve_state: ServeState
) -> None:
    # The stream's first scan returned after the push's (a later one): the push found the rows None
    # and sent nothing, then the first scan's older listing became the rows and the first event's
    # state. The page, of that state too, never heard of the change.
    state = serve_state
    feed, scan = state.index_feed, state.listing.scan_async
    page_state = listing_state(await scan())  # the page's rows
    scanned, gate = asyncio.Event(), asyncio.Event()

    versioned = state.listing.versioned_scan

    async def first_scan_returns_late(*, again: bool = False) -> tuple[tuple[int, ...], list[SessionInfo]]:
        found = await versioned(again=again)
        if not scanned.is_set():
            scanned.set()
            await gate.wait()
        return found

    state.listing.versioned_scan = first_scan_returns_late  # type: ignore[method-assign]
    state.hub.subscribe(INDEX_TOPIC)
    first = asyncio.create_task(feed.first_event())
    await scanned.wait()
    write_session(sessions_dir / "--work-new--" / "2026-01-03_s3.jsonl", "s3", "/work/new")
    state.listing.changed()
    await feed.push()
    gate.set()
    assert (await first).data["state"] != page_state  # the page asks for its rows again
