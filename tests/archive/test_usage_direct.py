"""serve's usage answers over a store that holds no copied message (no copy key twice: the common
archive, forks aside) are queries over its rows as they are, no TEMP table made (``DIRECT``: the
totals and first page at 100,000 sessions 0.95 -> 0.55 s CPU); once a copy is stored they are made
as before. Both exact against the in-memory count over the files (issue 54: usage cold)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sessiontree.archive.collection import Sources
from sessiontree.archive.usage_db import UsageDb
from sessiontree.archive.usage_query import RecordsAnswers, SessionPage, UsageAnswers, UsageFilter
from tests.archive.test_usage import build_archive

pytestmark = pytest.mark.usefixtures("utc")


def _made(store: UsageDb) -> bool:
    """Whether the store's connection made the answers' TEMP tables."""
    with store._lock:
        found = store._conn.execute("SELECT count(*) FROM temp.sqlite_master WHERE name = 'usage_net'")
        return bool(found.fetchone()[0])


def _listed(
    page: SessionPage, digits: int = 17
) -> list[tuple[str, str | None, int, int, int, float | None, tuple[str, ...]]]:
    return [
        (
            s.record.path,
            s.record.cwd,
            s.record.usage.messages,
            s.record.usage.input,
            s.record.usage.output,
            None if s.record.usage.cost is None else round(s.record.usage.cost, digits),
            s.unpriced + s.free,
        )
        for s in page.sessions
    ]


def _filters(counted: RecordsAnswers) -> list[UsageFilter]:
    groups = counted.groups()
    dated = sorted(g.usage.ts for g in groups if g.usage.ts > 0)
    return [
        UsageFilter(),
        UsageFilter(project="/work/beta"),
        UsageFilter(agent=groups[0].agent),
        UsageFilter(model=groups[-1].usage.model),
        UsageFilter(since_ms=dated[len(dated) // 2]),
        UsageFilter(until_ms=dated[len(dated) // 2], project="/work"),
    ]


def _same(got: UsageAnswers, want: RecordsAnswers, digits: int = 17) -> None:
    assert got.groups() == want.groups()
    for where in _filters(want):
        for offset, limit in ((0, 50), (1, 2)):
            mine, theirs = got.sessions(where, offset, limit), want.sessions(where, offset, limit)
            assert (mine.count, _listed(mine, digits)) == (theirs.count, _listed(theirs, digits)), where


def test_a_store_with_no_copy_is_answered_from_its_rows_and_one_with_a_copy_from_its_tables(
    roots: Path, cache_dir: Path
) -> None:
    files = build_archive(roots)
    fork = files[3]
    moved = fork.read_bytes()
    fork.unlink()  # no copy: every copy key once
    sources = Sources([roots], cache_dir, usage_store=True)
    sources.scan()
    store = sources.usage_db
    assert store is not None
    counted = RecordsAnswers(sources.usage_records())
    assert len(counted.groups()) > 3 and counted.sessions(UsageFilter(), 0, 50).count == 3
    _same(store.answers(), counted)
    assert not _made(store)  # the rows themselves
    store.close()

    fork.write_bytes(moved)  # the fork back: its copied messages count once, in its parent
    again = Sources([roots], cache_dir, usage_store=True)
    again.scan()
    store = again.usage_db
    assert store is not None
    whole = Sources([roots], None)
    whole.scan()
    with_copy = RecordsAnswers(whole.usage_records())
    assert with_copy.groups() == counted.groups()  # the fork spent nothing new
    assert with_copy.sessions(UsageFilter(), 0, 50).count == 3
    # The TEMP tables sum a filtered session's rows in another order than the records: its cost may
    # differ in the last bit (4.688162999999999 for 4.688163 here), as before ``DIRECT``.
    _same(store.answers(), with_copy, digits=9)
    assert _made(store)
    store.close()
