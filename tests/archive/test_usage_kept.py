"""serve's usage store keeps the answers its usage page asks first (the totals per group and the
first page of top sessions) with the store's generation: a store opened again whose rows did not
change answers from them, no pass over its rows; a write that changed the rows makes them again
(issue 54: /usage of a restarted server at 100,000 sessions)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from sessiontree.archive.catalog import CACHE_VERSION
from sessiontree.archive.collection import Sources
from sessiontree.archive.usage_db import UsageDb
from sessiontree.archive.usage_early import KeptAnswers
from sessiontree.archive.usage_kept import read_kept
from sessiontree.archive.usage_query import RecordsAnswers, SessionPage, UsageAnswers, UsageFilter
from tests.archive.sessions import write_lines
from tests.archive.test_usage import build_archive

pytestmark = pytest.mark.usefixtures("utc")
FIRST = (UsageFilter(), 0, 50)


def _counted(store: UsageDb) -> bool:
    """Whether the store's connection counted its rows into the answers' TEMP tables."""
    with store._lock:
        found = store._conn.execute("SELECT count(*) FROM temp.sqlite_master WHERE name = 'usage_net'")
        return bool(found.fetchone()[0])


def _listed(page: SessionPage) -> list[tuple[str, int, int, float | None, tuple[str, ...]]]:
    return [
        (s.record.path, s.record.usage.messages, s.record.usage.output, s.record.usage.cost, s.free)
        for s in page.sessions
    ]


def _same(got: UsageAnswers, want: UsageAnswers) -> None:
    assert got.groups() == want.groups()
    mine, theirs = got.sessions(*FIRST), want.sessions(*FIRST)
    assert mine.count == theirs.count and _listed(mine) == _listed(theirs)


def _whole(roots: Path) -> RecordsAnswers:
    """The answers of the in-memory count over every file read now (a copied message once)."""
    sources = Sources([roots], None)
    sources.scan()
    return RecordsAnswers(sources.usage_records())


def test_a_reopened_store_answers_from_what_it_kept_until_its_rows_change(
    roots: Path, cache_dir: Path
) -> None:
    files = build_archive(roots)  # a fork whose copied messages count once, in its parent
    sources = Sources([roots], cache_dir, usage_store=True)
    sources.scan()
    store = sources.usage_db
    assert store is not None
    made = store.answers()
    _same(made, _whole(roots))
    assert _counted(store)  # made from the rows
    sources.catalogs[0].save(force=True)
    store.close()

    # Read as a restarted server does before it opens the store whole: no check, no rows.
    def whole() -> UsageAnswers:
        raise AssertionError("the page's own answers were kept")

    early = KeptAnswers.read(store.path, whole)
    assert early is not None
    _same(early, made)
    again = UsageDb(cache_dir, [roots], CACHE_VERSION)  # a restarted server's, opened whole
    kept = again.answers()
    _same(kept, made)
    assert kept.groups() and not _counted(again)  # from what was kept: no pass over the rows
    # A filter of its own is still a query over the rows.
    model = kept.groups()[0].usage.model
    assert kept.sessions(UsageFilter(model=model), 0, 50).count > 0 and _counted(again)
    again.close()

    # A file grown while the server was down: its listing writes its rows, the kept answers go.
    lines = [json.loads(raw) for raw in files[1].read_text().splitlines()]
    reply = next(x for x in reversed(lines) if x.get("message", {}).get("role") == "assistant")
    write_lines(files[1], [*lines, {**reply, "id": "late-reply", "parentId": lines[-1]["id"]}])
    third = Sources([roots], cache_dir, usage_store=True)
    third.scan()
    assert third.usage_db is not None
    fresh = third.usage_db.answers()
    _same(fresh, _whole(roots))
    assert fresh.groups() != made.groups()
    third.usage_db.close()


def _kept_names(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return set(read_kept(conn, None))
    finally:
        conn.close()


def test_a_store_whose_rows_changed_since_it_kept_answers_is_answered_from_its_rows_and_keeps_them(
    roots: Path, cache_dir: Path
) -> None:
    files = build_archive(roots)
    sources = Sources([roots], cache_dir, usage_store=True)
    sources.scan()
    store = sources.usage_db
    assert store is not None
    made = store.answers()
    made.groups()
    made.sessions(*FIRST)
    # A file grown and listed, then the server killed before its page was made again.
    lines = [json.loads(raw) for raw in files[1].read_text().splitlines()]
    reply = next(x for x in reversed(lines) if x.get("message", {}).get("role") == "assistant")
    write_lines(files[1], [*lines, {**reply, "id": "late-reply", "parentId": lines[-1]["id"]}])
    sources.scan()
    store.close()
    assert _kept_names(store.path) == set()  # its rows changed: nothing kept of them

    def whole() -> UsageAnswers:
        raise AssertionError("the page's first answers were made from the rows")

    early = KeptAnswers.read(store.path, whole)
    assert early is not None
    counted = _whole(roots)
    _same(early, counted)
    assert early.groups() != made.groups()
    assert _kept_names(store.path) == {"groups", "sessions 0 50"}  # kept for the next run
    again = UsageDb(cache_dir, [roots], CACHE_VERSION)  # the whole open finds them, no pass
    _same(again.answers(), counted)
    assert not _counted(again)
    again.close()


def test_a_damaged_store_is_not_answered_from_and_is_made_again_by_the_whole_open(
    roots: Path, cache_dir: Path
) -> None:
    build_archive(roots)
    sources = Sources([roots], cache_dir, usage_store=True)
    sources.scan()
    store = sources.usage_db
    assert store is not None
    store.close()
    with sqlite3.connect(store.path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    data = bytearray(store.path.read_bytes())
    page = 4096
    assert len(data) > 3 * page
    for at in range(page, len(data), page):  # every page after the schema's: not SQLite's b-trees
        data[at : at + 16] = b"\xff" * 16
    store.path.write_bytes(bytes(data))

    def whole() -> UsageAnswers:
        raise AssertionError("asked of the store opened whole")

    assert KeptAnswers.read(store.path, whole) is None
    reopened = UsageDb(cache_dir, [roots], CACHE_VERSION)  # refused and made again, empty
    assert not reopened.stored()
    reopened.close()
    assert KeptAnswers.read(store.path, whole) is None  # nothing stored: nothing to say yet
