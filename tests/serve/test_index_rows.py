"""The served index is paged: the page carries its first window of rows, ``/api/index-rows`` the
rest, sorted and filtered on the server; the index events carry only the rows that changed.
Real process, real files."""

from __future__ import annotations

import html
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sessiontree.pages.index_rows import FIRST_ROWS
from tests.serve.conftest import append_line, write_session
from tests.serve.process import EventReader, Served, serve_process
from tests.store.helpers import msg

COUNT = FIRST_ROWS + 30


def row_keys(text: str) -> list[str]:
    return [html.unescape(k) for k in re.findall(r'<li class="st-session[^"]*" data-key="([^"]+)"', text)]


@pytest.fixture
def many(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    root = tmp_path / "sessions"
    for n in range(COUNT):
        path = write_session(root / f"--work-p{n % 4}--" / f"s{n:03}.jsonl", f"id{n:03}", f"/work/p{n % 4}")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))  # s129 newest, s000 oldest
    with serve_process(root, tmp_path / "agent", tmp_path / "cache") as served:
        yield served, root


def _whole_index(client: httpx.Client, served: Served) -> httpx.Response:
    """GET / once every file is read: a fresh server lists the files it had no time to read from
    their stat (no folder yet) and its background pass reads them (serve.listing), so on a loaded
    machine its first answer may count a project "(no working directory)" for a moment."""
    ceiling = time.monotonic() + 120  # a bound on a loaded machine, not a timed assertion
    while True:
        page = client.get(served.url + "/")
        assert page.status_code == 200
        whole = f"{COUNT} sessions in 4 projects" in page.text and "still being read" not in page.text
        if whole or time.monotonic() > ceiling:
            return page
        time.sleep(0.2)


def test_the_index_carries_its_first_rows_and_the_rest_come_in_windows(many: tuple[Served, Path]) -> None:
    served, _ = many
    with httpx.Client(timeout=60) as client:
        page = _whole_index(client, served)
        first = row_keys(page.text)
        assert len(first) == FIRST_ROWS
        assert f"{COUNT} sessions in 4 projects" in page.text
        assert f'data-next="{FIRST_ROWS}"' in page.text
        rest = client.get(served.url + "/api/index-rows", params={"offset": FIRST_ROWS, "limit": 200})
        assert rest.status_code == 200 and rest.headers["cache-control"] == "no-store"
        data = rest.json()
        assert data["next"] is None and data["total"] == COUNT
        keys = first + row_keys(data["html"])
        assert sorted(keys) == sorted(f"--work-p{n % 4}--/s{n:03}.jsonl" for n in range(COUNT))
        # Grouped by project, the newest project first, newest row first in each.
        whole = client.get(served.url + "/api/index-rows", params={"limit": 500}).json()
        assert row_keys(whole["html"]) == keys
        assert row_keys(whole["html"])[:2] == ["--work-p1--/s129.jsonl", "--work-p1--/s125.jsonl"]

        # The oldest session is past the first window; the filter finds it on the server.
        found = client.get(served.url + "/api/index-rows", params={"q": "hello from id000"}).json()
        assert row_keys(found["html"]) == ["--work-p0--/s000.jsonl"] and found["total"] == 1
        project = client.get(
            served.url + "/api/index-rows", params={"project": "/work/p2", "limit": 500}
        ).json()
        assert project["total"] == COUNT // 4 and all(
            k.startswith("--work-p2--/") for k in row_keys(project["html"])
        )
        bad = client.get(served.url + "/api/index-rows", params={"offset": "x", "sort": "<script>"})
        assert bad.status_code == 200 and row_keys(bad.json()["html"]) == first


def test_a_change_sends_only_its_row(many: tuple[Served, Path]) -> None:
    served, root = many
    with httpx.Client(timeout=60) as client:
        _whole_index(client, served)  # the background pass sends no row of its own after the change
        events = EventReader(client, served.url + "/events")
        try:
            assert events.next_named("index").data["first"] is True
            oldest = root / "--work-p0--" / "s000.jsonl"
            append_line(oldest, msg("u2", "a1", "user", "a late prompt"))
            while True:
                data = events.next_named("index").data
                if data["html"]:
                    break
            assert row_keys(data["html"]) == ["--work-p0--/s000.jsonl"]
            assert "3 messages" in data["html"] and data["gone"] == []
        finally:
            events.close()
