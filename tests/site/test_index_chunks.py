"""A built site's index past its first window: ``index.html`` carries the first ``FIRST_ROWS`` rows
and files of ``CHUNK_ROWS`` hold the rest in the same order, each row once; a smaller site later
removes the files it no longer needs (issue 42 item 3)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from sessiontree.archive.collection import Sources
from sessiontree.pages.index_page import IndexOptions, render_index
from sessiontree.pages.index_rows import CHUNK_ROWS, FIRST_ROWS, RowQuery, select_rows
from sessiontree.site import browse
from sessiontree.store.discovery import SessionInfo
from tests.serve.conftest import write_session

KEYS = re.compile(r'<li class="st-session[^"]*" data-key="([^"]+)"')


def _folder(root: Path, count: int) -> None:
    for n in range(count):
        path = write_session(root / f"--work-p{n % 5}--" / f"s{n:03}.jsonl", f"id{n:03}", f"/work/p{n % 5}")
        os.utime(path, (1_700_000_000 + n, 1_700_000_000 + n))


def _link(entry: SessionInfo) -> str:
    return f"sessions/{entry.key}.html"


def test_the_index_carries_its_first_window_and_files_hold_the_rest(tmp_path: Path) -> None:
    root, site = tmp_path / "sessions", tmp_path / "site"
    site.mkdir()
    count = FIRST_ROWS + CHUNK_ROWS + 50
    _folder(root, count)
    entries = Sources([root], None).scan()
    names = browse.write_index_chunks(site, entries, _link)
    assert names == ["index-rows-1.json", "index-rows-2.json"]
    page = render_index(entries, _link, IndexOptions(chunks=browse.INDEX_CHUNK))
    assert 'data-chunks="index-rows-{}.json" data-next="1"' in page
    first = KEYS.findall(page)
    chunks = [json.loads((site / name).read_text(encoding="utf-8")) for name in names]
    assert [c["next"] for c in chunks] == [2, None]
    rest = [KEYS.findall(c["html"]) for c in chunks]
    assert [len(first), *map(len, rest)] == [FIRST_ROWS, CHUNK_ROWS, 50]
    whole = select_rows(entries, RowQuery(limit=count))  # the order a page of every row shows
    assert first + rest[0] + rest[1] == [n.entry.key for g in whole.groups for n in g.nodes]
    # Fewer sessions: fewer files, and at most a window's worth none at all, every row in the page.
    assert browse.write_index_chunks(site, entries[: FIRST_ROWS + 1], _link) == ["index-rows-1.json"]
    assert sorted(p.name for p in site.glob("index-rows-*")) == ["index-rows-1.json"]
    assert browse.write_index_chunks(site, entries[:FIRST_ROWS], _link) == []
    assert list(site.glob("index-rows-*")) == []
    small = render_index(entries[:FIRST_ROWS], _link, IndexOptions(chunks=browse.INDEX_CHUNK))
    assert 'data-chunks="' not in small and len(KEYS.findall(small)) == FIRST_ROWS
