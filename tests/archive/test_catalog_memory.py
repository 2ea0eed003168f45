"""What a listing holds per session (issue 54: serve's peak RSS at 100,000 sessions ≤ 400 MiB).

A server's listing (``Sources`` with its usage store, as ``serve`` makes it) over a thousand small
real session files, measured with ``tracemalloc`` (what Python allocates, not timing): the records
a restarted server loads from its kept cache, and the most its load and first scan held at once.
Before the kept cache was a SQLite file read a row at a time, a restarted catalog kept every
record's parsed JSON beside the record (~5.6 KB per session in all at 10,000 generated sessions with
the server's views, now ~2.9 KB) and its load parsed the whole cache text at once.
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.archive.collection import Sources
from tests.archive.test_catalog import session

SESSIONS = 1_000

HELD_PER_SESSION = 2_500
"""Bytes a loaded listing may hold per session. Measured (Python 3.11): 1,759 (the record, its
path, line pass and usage signature, the catalog's and the listing's entries); 3,691 on d82d76f,
when every record's parsed JSON was kept beside it for the next save."""

PEAK_PER_SESSION = 3_000
"""Bytes the load and first scan may hold at once per session. Measured: 1,863; 3,852 on d82d76f,
when the whole cache text was parsed at once and its values kept."""


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """An agent folder's sessions (ten projects) and a cache dir a first listing saved."""
    base = tmp_path_factory.mktemp("memory")
    root, cache = base / "sessions", base / "cache"
    for n in range(SESSIONS):
        project = f"--work-project-{n % 10}--"
        session(
            root / project / f"2026-11-{n % 28 + 1:02d}T00-00-00-000Z_s{n:05d}.jsonl",
            f"s{n:05d}",
            f"/work/project-{n % 10}",
        )
    first = Sources([root], cache, usage_store=True)
    assert len(first.scan()) == SESSIONS
    for catalog in first.catalogs:
        catalog.save(force=True)
    assert first.usage_db is not None
    first.usage_db.close()
    yield root, cache


def test_a_restarted_listing_holds_its_records_and_little_else(kept: tuple[Path, Path]) -> None:
    root, cache = kept
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        again = Sources([root], cache, usage_store=True)
        entries = again.scan()
        gc.collect()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(entries) == SESSIONS
    assert again.catalogs[0].changes == 0  # every record from the kept cache, no file read again
    assert (held - before) / SESSIONS < HELD_PER_SESSION
    assert (peak - before) / SESSIONS < PEAK_PER_SESSION
    assert again.usage_db is not None
    again.usage_db.close()
