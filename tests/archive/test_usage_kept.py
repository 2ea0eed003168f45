"""serve's usage store keeps the answers its usage page asks first (the totals per group and the
first page of top sessions) with the store's generation: a store opened again whose rows did not
change answers from them, no pass over its rows; a write that changed the rows makes them again
(issue 54: /usage of a restarted server at 100,000 sessions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.archive.catalog import CACHE_VERSION
from sessiontree.archive.collection import Sources
from sessiontree.archive.usage_db import KeptAnswers, UsageDb
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
    assert KeptAnswers.read(store.path, whole) is None  # its rows changed: nothing kept of them
    fresh = third.usage_db.answers()
    _same(fresh, _whole(roots))
    assert fresh.groups() != made.groups()
    third.usage_db.close()
