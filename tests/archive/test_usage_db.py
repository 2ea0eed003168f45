"""Serve's usage rows in SQLite (``archive.usage_db``): the same totals as a whole computation from
the files, no rows held by the listing, a restart reading nothing again, a damaged database made
again from the files, a grown file continued."""

from __future__ import annotations

import json
import math
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive.catalog_cache import saved_files
from sessiontree.archive.collection import Sources
from sessiontree.archive.usage import UsageRecord, summarize
from sessiontree.pages.sessions_data import models_by_path
from tests.archive.sessions import write_lines
from tests.archive.test_usage import KINDS, build_archive, independent_totals

pytestmark = pytest.mark.usefixtures("utc")  # the independent sums are UTC days
FIELDS = {"input": "input", "output": "output", "cacheRead": "cache_read", "cacheWrite": "cache_write"}
BY = ("day", "model", "project", "session")


def _stored(roots: Path, cache: Path) -> tuple[Sources, list[UsageRecord]]:
    sources = Sources([roots], cache, usage_store=True)
    sources.scan()
    assert sources.usage_db is not None
    return sources, sources.usage_records()


def _totals(records: list[UsageRecord], by: str) -> dict[str, dict[str, Any]]:
    return {
        g.key: {"messages": g.messages, "cost": g.cost, **{k: getattr(g, f) for k, f in FIELDS.items()}}
        for g in summarize(records, by).groups  # type: ignore[arg-type]
    }


def _assert_same(got: dict[str, dict[str, Any]], want: dict[str, dict[str, Any]]) -> None:
    assert set(got) == set(want)
    for key, expected in want.items():
        assert got[key]["messages"] == expected["messages"], key
        assert [got[key][k] for k in KINDS] == [expected[k] for k in KINDS], key
        assert math.isclose(got[key]["cost"], expected["cost"], rel_tol=1e-9, abs_tol=1e-6), key


def _whole(roots: Path) -> list[UsageRecord]:
    """The in-memory computation over every file read now (no cache, no store)."""
    sources = Sources([roots], None)
    sources.scan()
    return sources.usage_records()


def _rows_held(sources: Sources) -> int:
    return sum(
        len(p.scan.usage)
        for catalog in sources.catalogs
        for cached in catalog._cached.values()
        for p in cached.listed()
        if p.scan is not None
    )


def test_stored_totals_equal_a_whole_computation_and_survive_a_restart(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    sources, records = _stored(roots, cache_dir)
    assert records, "the archive has usage"
    for by in BY:
        _assert_same(_totals(records, by), independent_totals(files[:3], by))  # the fork's copies once
        _assert_same(_totals(records, by), _totals(_whole(roots), by))
    assert _rows_held(sources) == 0  # the listing keeps none of them
    # Each session's models (the pane's filter), for a few keys and for every one: as the whole
    # computation's records name them (the fork's copies of its parent's messages counted once).
    by_path = models_by_path(_whole(roots))
    want = {key: by_path[str(e.path)] for e in sources.scan() if str(e.path) in by_path for key in [e.key]}
    assert len(want) >= 3
    assert sources.session_models() == want
    assert sources.session_models(list(want)[:2]) == dict(list(want.items())[:2])
    # Each model's sessions and every model from the store's index of rows by model: the fork,
    # listed and stored, holds only copies of its parent's messages, so it is under no model.
    stored_db = sources.usage_db
    assert stored_db is not None
    fork = next(e.key for e in sources.scan() if e.path.name == "alpha-fork.jsonl")
    assert stored_db.stored(0, fork) and fork not in want
    every = {model for found in want.values() for model in found}
    assert len(every) >= 2 and stored_db.model_names() == sorted(every)
    for model in every:
        assert sorted(sources.model_keys(model)) == sorted(k for k, found in want.items() if model in found)
    assert sources.model_keys("no/such-model") == []
    # Every session's models as ``/api/session-models`` writes them, session by session: the same.
    assert json.loads(stored_db.models_json(sources.labels)) == {"models": want}
    cache_file = sources.catalogs[0].cache_file
    assert cache_file is not None
    sources.catalogs[0].save(force=True)
    saved = saved_files(cache_file)
    assert saved and all(v["scan"]["usage"] == [] for v in saved.values())
    stored = sources.usage_db
    assert stored is not None
    assert sqlite3.connect(stored.path).execute("SELECT count(*) FROM messages").fetchone()[0] > 0
    assert stat.S_IMODE(stored.path.stat().st_mode) == 0o600  # the user's alone, as the catalog's cache
    assert {p.suffix for p in roots.rglob("*") if p.is_file()} == {".jsonl"}  # nothing in the listed folder
    stored.close()
    # A restarted server: the records from the cache, the rows from the store, no file read again.
    again = Sources([roots], cache_dir, usage_store=True)
    again.scan()
    assert again.catalogs[0].changes == 0
    assert _totals(again.usage_records(), "session") == _totals(records, "session")
    assert again.usage_db is not None
    again.usage_db.close()


def test_a_damaged_store_is_made_again_from_the_files(roots: Path, cache_dir: Path) -> None:
    build_archive(roots)
    sources, records = _stored(roots, cache_dir)
    assert sources.usage_db is not None
    path = sources.usage_db.path
    sources.catalogs[0].save(force=True)
    sources.usage_db.close()
    path.write_bytes(b"not a database" * 100)
    again, found = _stored(roots, cache_dir)
    assert _totals(found, "session") == _totals(records, "session")
    assert again.catalogs[0].changes > 0  # read again from the files, not trusted from the cache
    assert again.usage_db is not None
    again.usage_db.close()


def test_a_grown_file_is_continued_and_a_gone_parent_hands_its_messages_on(
    roots: Path, cache_dir: Path
) -> None:
    files = build_archive(roots)
    sources, before = _stored(roots, cache_dir)
    lines = [json.loads(raw) for raw in files[1].read_text().splitlines()]
    reply = next(x for x in reversed(lines) if x.get("message", {}).get("role") == "assistant")
    write_lines(files[1], [*lines, {**reply, "id": "late-reply", "parentId": lines[-1]["id"]}])
    sources.scan()
    after = sources.usage_records()
    grew = _totals(after, "session")[str(files[1])]
    assert grew["messages"] == _totals(before, "session")[str(files[1])]["messages"] + 1
    for by in BY:
        _assert_same(_totals(after, by), _totals(_whole(roots), by))
    files[0].unlink()  # the fork's copies of its parent's messages now count in the fork
    sources.scan()
    for by in BY:
        _assert_same(_totals(sources.usage_records(), by), _totals(_whole(roots), by))
    assert _rows_held(sources) == 0
    assert sources.usage_db is not None
    sources.usage_db.close()


def test_a_cache_dir_that_cannot_be_written_keeps_the_rows_in_memory(roots: Path, tmp_path: Path) -> None:
    # A cache dir under a regular file (no folder can be made there): serve goes on, its rows in
    # memory, the same totals (it raised out of the first listing before: every page a 500).
    build_archive(roots)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file")
    sources, records = _stored(roots, blocker / "cache")
    assert sources.usage_db is not None and sources.usage_db.in_memory
    for by in BY:
        _assert_same(_totals(records, by), _totals(_whole(roots), by))
    assert _rows_held(sources) == 0
    sources.usage_db.close()


def test_a_disk_full_while_storing_goes_on_in_memory_with_what_the_file_held(
    roots: Path, cache_dir: Path
) -> None:
    files = build_archive(roots)
    sources = Sources([roots], cache_dir, usage_store=True)
    stored = sources.usage_db
    assert stored is not None and not stored.in_memory
    # SQLite's own limit on the file's pages: its next write fails as a full disk does (SQLITE_FULL).
    pages = stored._conn.execute("PRAGMA page_count").fetchone()[0]
    stored._conn.execute(f"PRAGMA max_page_count = {pages}")
    sources.scan()
    assert stored.in_memory  # the write that failed went to memory, with what the file held
    for by in BY:
        _assert_same(_totals(sources.usage_records(), by), _totals(_whole(roots), by))
    assert _rows_held(sources) == 0
    lines = [json.loads(raw) for raw in files[1].read_text().splitlines()]
    reply = next(x for x in reversed(lines) if x.get("message", {}).get("role") == "assistant")
    write_lines(files[1], [*lines, {**reply, "id": "late-reply", "parentId": lines[-1]["id"]}])
    sources.scan()  # a grown file continued from the rows in memory
    for by in BY:
        _assert_same(_totals(sources.usage_records(), by), _totals(_whole(roots), by))
    stored.close()
