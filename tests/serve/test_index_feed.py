"""The index feed's ``sessions`` events: each names the listing's state, and a session page that
opens after a change pushed to no page still hears of the next one."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessiontree.serve.app import create_app
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.followed import topic_of
from sessiontree.serve.state import ServeState
from tests.serve.conftest import KEY, write_session

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_a_listing_back_in_a_state_pushed_before_is_pushed_to_a_page_opened_since(
    sessions_dir: Path, agent_dir: Path, tmp_path: Path
) -> None:
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    state: ServeState = create_app(config).state.serve
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
