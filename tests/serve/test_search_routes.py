"""Serve's search API and usage page through the app (httpx ASGI): hits link to entries, follow appends."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from httpx import AsyncClient

from sessiontree.archive.collection import Sources
from sessiontree.archive.search import SearchIndex
from sessiontree.pages.sessions_data import PART_ROWS, in_parts, models_by_path, sessions_data
from sessiontree.pages.usage_data import ROW_WIDTH
from sessiontree.serve import listing as listing_module
from tests.pages.usage_records import data_totals, page_data
from tests.serve.conftest import KEY, append_line, write_session
from tests.serve.process import serve_process
from tests.store.helpers import assistant, msg


@pytest.mark.anyio
async def test_search_api_links_each_hit_to_its_entry(client: AsyncClient) -> None:
    r = await client.get("/api/search", params={"q": "hello"})
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    hits = r.json()["hits"]
    assert {h["href"] for h in hits} >= {f"/s/{quote(KEY)}?targetId=u1"}
    assert all(h["href"].startswith("/s/") for h in hits)
    first = next(h for h in hits if h["href"].endswith("targetId=u1"))
    assert first["role"] == "user" and first["snippet"][slice(*first["marks"][0])].lower() == "hello"


@pytest.mark.anyio
async def test_search_follows_an_append(client: AsyncClient, sessions_dir: Path) -> None:
    assert (await client.get("/api/search", params={"q": "zqservedappend"})).json()["hits"] == []
    append_line(sessions_dir / KEY, msg("u9", "a1", "user", "now zqservedappend arrives"))
    hits = (await client.get("/api/search", params={"q": "zqservedappend"})).json()["hits"]
    assert [h["href"] for h in hits] == [f"/s/{quote(KEY)}?targetId=u9"]


@pytest.mark.anyio
async def test_search_api_errors_are_json(client: AsyncClient) -> None:
    r = await client.get("/api/search", params={"q": "x", "role": "system"})
    assert r.status_code == 400 and "role" in r.json()["error"]
    r = await client.get("/api/search", params={"q": ""})
    assert r.status_code == 200 and r.json()["hits"] == []
    r = await client.get("/api/search", params={"q": 'c++ "unbalanced'})
    assert r.status_code == 200  # not FTS5 syntax: plain text, no error
    assert (await client.post("/api/search")).status_code == 405


@pytest.mark.anyio
async def test_usage_page_carries_its_data_and_one_hashed_script(
    client: AsyncClient, sessions_dir: Path
) -> None:
    assert (await client.get("/api/sessions")).status_code == 200  # listed: /usage waits not
    empty = await client.get("/usage")
    assert empty.status_code == 200 and page_data(empty.text)["rows"] == []
    reply = assistant("a9", "a1")
    reply["message"]["usage"] = {
        "input": 10,
        "output": 5,
        "cacheRead": 0,
        "cacheWrite": 0,
        "cost": {"total": 0.25},
    }
    append_line(sessions_dir / KEY, reply)
    r = await client.get("/usage")  # the page made again: the index changed
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', r.text)
    assert csp is not None and "default-src 'none'" in csp.group(1)
    assert re.search(r"script-src '(sha256-[^']+)'(;|$)", csp.group(1).replace("&#39;", "'")) is not None
    assert r.text.count("<script>") == 1 and "unsafe-inline" not in csp.group(1)
    data = page_data(r.text)
    assert data["api"] == "/api/usage-sessions" and data["listed"]["count"] == 1
    assert [s[3] for s in data["listed"]["top"]] == [f"/s/{quote(KEY)}"]
    assert data["rows"][8::ROW_WIDTH] == [0.25] and data_totals(data)["input"] == 10


@pytest.mark.anyio
async def test_index_page_carries_the_search_box_script(client: AsyncClient) -> None:
    r = await client.get("/")
    assert "searchHits" in r.text and "/api/search" in r.text and 'href="/usage"' in r.text


def test_a_running_server_indexes_appends_by_itself(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    path = write_session(agent / "sessions" / KEY, "s1")
    cache = tmp_path / "cache"
    with serve_process(agent / "sessions", agent, cache) as served:
        assert httpx.get(served.url + "/api/search", params={"q": "hello"}).json()["hits"]  # opens the index
        append_line(path, msg("u7", "a1", "user", "zqwatcherword appended"))
        # Read the index without updating it: only the server's watcher can have added the line.
        with SearchIndex([(agent / "sessions").resolve()], cache) as index:
            deadline = time.monotonic() + 120  # a bound for a hung server, not a timing assertion
            while not index.search("zqwatcherword"):
                assert time.monotonic() < deadline, "the server never indexed the appended line"
                time.sleep(0.05)
            assert [h.entry_id for h in index.search("zqwatcherword")] == ["u7"]


@pytest.mark.anyio
async def test_search_api_pages_to_the_last_hit_with_the_exact_total(
    client: AsyncClient, sessions_dir: Path
) -> None:
    for n in range(45):
        append_line(sessions_dir / KEY, msg(f"z{n}", "a1", "user", f"zqpaged word number {n}"))
    first = (await client.get("/api/search", params={"q": "zqpaged", "limit": "20"})).json()
    assert first["total"] == 45 and first["sessions"] == 1 and len(first["hits"]) == 20
    seen = [h["href"] for h in first["hits"]]
    while len(seen) < first["total"]:
        page = (
            await client.get("/api/search", params={"q": "zqpaged", "limit": "20", "offset": len(seen)})
        ).json()
        assert "total" not in page and page["hits"]
        seen += [h["href"] for h in page["hits"]]
    assert len(set(seen)) == 45 and all(h["session"] == f"/s/{quote(KEY)}" for h in first["hits"])


@pytest.mark.anyio
async def test_sessions_api_lists_the_pane_newest_first(client: AsyncClient, sessions_dir: Path) -> None:
    data = (await client.get("/api/sessions")).json()
    assert data["v"] == 1 and data["sessions"]
    rows = data["sessions"]
    assert [r["u"] for r in rows] == sorted((r["u"] for r in rows), reverse=True)
    mine = next(r for r in rows if r["k"] == KEY)
    assert mine["h"] == f"/s/{quote(KEY)}" and isinstance(mine["n"], int) and mine["t"]
    models = (await client.get("/api/session-models")).json()["models"]
    assert isinstance(models, dict)


@pytest.mark.anyio
async def test_sessions_api_comes_in_parts_newest_first(
    client: AsyncClient, sessions_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every file read by the first scan (a loaded machine's left some pending, their rows bare).
    monkeypatch.setattr(listing_module, "FIRST_READ_SECONDS", 3600.0)
    for n in range(PART_ROWS + 20):
        write_session(sessions_dir / "--work-many--" / f"m{n:03}.jsonl", f"m{n:03}", "/work/many")
    first = (await client.get("/api/sessions")).json()
    assert len(first["sessions"]) == PART_ROWS and first["more"] == ["/api/sessions?part=2"]
    rest = (await client.get(first["more"][0])).json()
    rows = first["sessions"] + rest["sessions"]
    assert rest["v"] == 1 and len(rows) == PART_ROWS + 22  # with the two sessions of the folder
    assert len({r["k"] for r in rows}) == len(rows)
    assert [(-r["u"], r["k"]) for r in rows] == sorted((-r["u"], r["k"]) for r in rows)
    # Each part made alone is the part ``in_parts`` cuts from ``sessions_data`` of the whole listing,
    # with each session's models as the in-memory computation over every file finds them.
    sources = Sources([sessions_dir], None)
    entries = sources.scan()
    models = models_by_path(sources.usage_records())
    whole = sessions_data(entries, lambda e: f"/s/{quote(e.key)}", models)
    made_first, made_parts = in_parts(whole, lambda n: f"/api/sessions?part={n}")
    assert {k: v for k, v in first.items() if k != "state"} == made_first
    assert [rest] == [part for _, part in made_parts]
    # A part past the last is the last one; a bad number the first.
    assert (await client.get("/api/sessions", params={"part": "9"})).json() == rest
    assert (await client.get("/api/sessions", params={"part": "x"})).json() == first


@pytest.mark.anyio
async def test_a_fresh_servers_search_answers_what_is_indexed_so_far_then_every_hit(
    sessions_dir: Path, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54: the first search of a fresh server answers within its budget, newest files first,
    says how many files are left, and each later answer indexes more until it is exact."""
    from sessiontree.serve import archive_routes
    from sessiontree.serve.config import ServeConfig
    from tests.serve.conftest import make_client

    for older in sessions_dir.rglob("*.jsonl"):  # the fixture's two sessions: older than ours
        os.utime(older, (1_700_000_000, 1_700_000_000))
    files = 2 + (count := 6)
    for n in range(count):
        path = write_session(sessions_dir / f"s{n}.jsonl", f"sid-{n}", "/work/demo")
        append_line(path, msg(f"z{n}", "a1", "user", f"zqfreshword number {n}"))
        os.utime(path, (1_767_000_000 + n, 1_767_000_000 + n))  # s5 the newest
    monkeypatch.setattr(archive_routes, "FIRST_ANSWER_SECONDS", 0.0)  # one file an answer
    config = ServeConfig(
        roots=(sessions_dir,), cache_dir=tmp_path / "cache", agent_dir=agent_dir, watch=False
    )
    async with make_client(config) as client:
        answers = []
        while True:
            found = (await client.get("/api/search", params={"q": "zqfreshword"})).json()
            answers.append(found)
            if found["pending"] == 0:
                break
            assert len(answers) <= files, answers
    first = answers[0]
    assert first["pending"] == files - 1 and first["total"] == 1
    assert [h["snippet"] for h in first["hits"]] == ["zqfreshword number 5"]  # the newest file first
    assert [a["total"] for a in answers] == [*range(1, count + 1), count, count]  # then the two older files
    assert sorted(h["snippet"] for h in answers[-1]["hits"]) == [
        f"zqfreshword number {n}" for n in range(count)
    ]
