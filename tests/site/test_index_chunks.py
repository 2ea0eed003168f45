"""A built site's index past its first window: ``index.html`` carries the first ``FIRST_ROWS`` rows
and files of about ``CHUNK_ROWS`` hold the rest in the same order, each row once, named after their
rows: a new session or a grown one writes the files around it and keeps the others (issue 42 item
3, issue 54 item 3)."""

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


def _chunk_rows(site: Path, names: list[str]) -> list[list[str]]:
    return [KEYS.findall(json.loads((site / name).read_text(encoding="utf-8"))["html"]) for name in names]


def test_the_index_carries_its_first_window_and_files_hold_the_rest(tmp_path: Path) -> None:
    root, site = tmp_path / "sessions", tmp_path / "site"
    site.mkdir()
    count = FIRST_ROWS + 3 * CHUNK_ROWS + 50
    _folder(root, count)
    entries = Sources([root], None).scan()
    names = browse.write_index_chunks(site, entries, _link)
    assert all(re.fullmatch(r"index-rows-[0-9a-f]{16}\.json", name) for name in names)
    page = render_index(entries, _link, IndexOptions(chunks=browse.INDEX_CHUNK, chunk_names=tuple(names)))
    assert (
        f'data-chunks="index-rows-{{}}.json" data-chunk-list="{" ".join(names)}" data-next="{names[0]}"'
        in page
    )
    first = KEYS.findall(page)
    rest = _chunk_rows(site, names)
    assert len(first) == FIRST_ROWS and all(0 < len(r) <= 2 * CHUNK_ROWS for r in rest)
    whole = select_rows(entries, RowQuery(limit=count))  # the order a page of every row shows
    assert first + [k for r in rest for k in r] == [n.entry.key for g in whole.groups for n in g.nodes]

    # A new session (the newest) and one grown (its project first now): the files around them
    # are written, every other one kept as it was, and each row is still in one file, in order.
    stamps = {name: (site / name).stat().st_mtime_ns for name in names}
    new = write_session(root / "--work-p1--" / "new.jsonl", "idnew", "/work/p1")
    os.utime(new, (1_800_000_000, 1_800_000_000))
    grown = root / "--work-p3--" / "s013.jsonl"
    os.utime(grown, (1_800_000_001, 1_800_000_001))
    entries = Sources([root], None).scan()
    again = browse.write_index_chunks(site, entries, _link)
    kept = [n for n in again if n in stamps]
    assert len(again) - len(kept) <= 4 < len(kept)
    assert all((site / n).stat().st_mtime_ns == stamps[n] for n in kept)
    whole = select_rows(entries, RowQuery(limit=count + 1))
    window = KEYS.findall(
        render_index(entries, _link, IndexOptions(chunks=browse.INDEX_CHUNK, chunk_names=tuple(again)))
    )
    rows = window + [k for r in _chunk_rows(site, again) for k in r]
    assert rows == [n.entry.key for g in whole.groups for n in g.nodes]
    browse.remove_index_chunks(site, again)
    assert sorted(p.name for p in site.glob("index-rows-*")) == sorted(again)

    # At most a window's worth of sessions: no file at all, every row in the page.
    assert browse.write_index_chunks(site, entries[:FIRST_ROWS], _link) == []
    small = render_index(entries[:FIRST_ROWS], _link, IndexOptions(chunks=browse.INDEX_CHUNK))
    assert 'data-chunks="' not in small and len(KEYS.findall(small)) == FIRST_ROWS
