"""Serve's many-session answers are made once per version of the listing (``Listing.view``): asked
again with nothing changed, each is the same bytes a fresh server gives, from what was made
already; a change to a file makes them again. Real files, the ASGI app in process."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from sessiontree.serve.config import ServeConfig
from sessiontree.serve.state import ServeState
from tests.serve.conftest import append_line, make_client, write_session
from tests.store.helpers import msg

pytestmark = pytest.mark.anyio

ASKED = (
    "/",
    "/api/index-rows?offset=0&limit=2",
    "/api/index-rows?q=p1&sort=size",
    "/api/sessions",
    "/api/session-models",
    "/usage",
)
USAGE = {"input": 7, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
OLD = 1_700_000_000  # long before now: no row is shown live (a dot that goes out by itself)


def reply(entry_id: str, parent: str, model: str) -> dict[str, object]:
    """An assistant message with its model and tokens (a usage row the pane's model filter names)."""
    return msg(entry_id, parent, "assistant", "ok", provider="p", model=model, usage=USAGE)


def make_folder(root: Path) -> Path:
    for n in range(5):
        path = write_session(
            root / f"--work-p{n % 2}--" / f"s{n}.jsonl",
            f"id{n}",
            f"/work/p{n % 2}",
            reply("a2", "a1", f"m{n}"),
        )
        os.utime(path, (OLD + n, OLD + n))
    sub = write_session(root / "--work-p0--" / "s0" / "sub.jsonl", "sub0", "/work/p0")  # s0's subagent
    os.utime(sub, (OLD, OLD))
    return root


async def answers(client: httpx.AsyncClient) -> list[bytes]:
    found = []
    for path in ASKED:
        reply = await client.get(path)
        assert reply.status_code == 200, path
        found.append(reply.content)
    return found


async def fresh_answers(root: Path, cache: Path) -> list[bytes]:
    """What a server that never answered before says of the folder now."""
    async with make_client(ServeConfig(roots=(root,), cache_dir=cache, watch=False)) as client:
        return await answers(client)


async def test_answers_are_made_once_per_listing_version_and_again_after_a_change(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "sessions")
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        state: ServeState = client._transport.app.state.serve  # type: ignore[attr-defined]
        first = await answers(client)
        view = await state.listing.view()
        assert {"state", "pane order", "pane part 1", "summary", "choices"} <= set(view.rows._made)
        assert len(view.rows._orders) == 2  # the default order and the filtered one, made once
        again = await answers(client)
        assert again == first
        assert await state.listing.view() is view  # nothing made again: the same view
        assert first == await fresh_answers(root, tmp_path / "cache-fresh")
        # A session page's related pages: from the view's index, the same as the catalogs say.
        parent, child = "--work-p0--/s0.jsonl", "--work-p0--/s0/sub.jsonl"
        for key in (parent, child, "--work-p1--/s1.jsonl", "no/such.jsonl"):
            assert state.listing.family(key) == state.listing.sources.family(key)
        assert "family" in view.rows._made
        assert [e.key for e in state.listing.family(parent)[1]] == [child]
        found = state.listing.family(child)[0]
        assert found is not None and found.key == parent

        path = root / "--work-p1--" / "s1.jsonl"
        append_line(path, msg("u9", "a2", "user", "one more prompt"))
        append_line(path, reply("a9", "u9", "m-new"))
        os.utime(path, (OLD + 10, OLD + 10))  # now the newest session
        changed = await answers(client)
        assert await state.listing.view() is not view
        assert changed == await fresh_answers(root, tmp_path / "cache-fresh-2")
        for before, after, path_asked in zip(first, changed, ASKED, strict=True):
            assert before != after, path_asked  # every answer shows the change
        assert b"m-new" in changed[ASKED.index("/api/session-models")]
