"""The catalog's store on disk (``archive.catalog_cache``): passes kept apart and parsed when asked
for, an older cache's table read and written again, and a save killed midway by a real SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import sessiontree.archive.catalog as catalog_module
from sessiontree.archive import catalog_cache
from sessiontree.archive.catalog import CACHE_VERSION, Catalog
from sessiontree.archive.catalog_cache import saved_files
from tests.archive.test_catalog import session, set_mtime

WAIT = 60.0
"""Seconds a test waits for its child to reach a state (a generous ceiling for a loaded machine)."""


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    for n in range(6):
        path = session(
            root / f"--work-p{n % 2}--" / f"2026-01-0{n + 1}_s{n}.jsonl", f"s{n}", f"/work/p{n % 2}"
        )
        set_mtime(path, 1_000_000 + n)
    return root


def _tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()


def _no_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a scan over a kept cache read a file")

    monkeypatch.setattr(catalog_module, "read_entry", fail)


def test_a_loaded_record_parses_its_pass_only_when_asked(
    sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    cold = Catalog(sessions_dir, cache)
    listed = cold.scan()
    passes = {e.key: c.scan for e in listed if (c := cold._cached[e.key]).scan is not None}
    assert len(passes) == 6
    _no_reads(monkeypatch)
    warm = Catalog(sessions_dir, cache)
    assert warm.scan() == listed
    # Listed without a pass parsed: each is the cache's text still.
    assert all(c.scan_text is not None for c in warm._cached.values())
    assert {key: c.scan for key, c in warm._cached.items()} == passes  # parsed now, equal
    assert all(c.scan_text is None for c in warm._cached.values())


def test_a_save_keeps_each_unchanged_pass_as_it_was_stored(sessions_dir: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    Catalog(sessions_dir, cache).scan()
    (cache_file,) = cache.iterdir()
    before = {key: (value, scan) for key, value, scan in catalog_cache.load_any(cache_file)}
    changed = sessions_dir / "--work-p0--" / "2026-01-01_s0.jsonl"
    session(changed, "s0", "/work/p0", title="Renamed")
    Catalog(sessions_dir, cache).scan()
    after = {key: (value, scan) for key, value, scan in catalog_cache.load_any(cache_file)}
    key = "--work-p0--/2026-01-01_s0.jsonl"
    assert after[key][0]["entry"]["title"] == "Renamed"
    assert {k: v for k, v in after.items() if k != key} == {k: v for k, v in before.items() if k != key}
    # The same file a catalog that never saved before writes.
    Catalog(sessions_dir, tmp_path / "fresh").scan()
    (made,) = (tmp_path / "fresh").iterdir()
    assert saved_files(cache_file) == saved_files(made)


def write_old_table(path: Path, values: dict[str, object], root: str) -> None:
    """A cache as sessiontree wrote it before the ``records`` table: each record's JSON whole."""
    path.unlink()
    conn = sqlite3.connect(path)
    try:
        conn.executescript(
            "CREATE TABLE meta (version INTEGER NOT NULL, root TEXT NOT NULL);"
            "CREATE TABLE files (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        )
        conn.execute("INSERT INTO meta VALUES (?, ?)", (CACHE_VERSION, root))
        conn.executemany(
            "INSERT INTO files VALUES (?, ?)", [(json.dumps(k), json.dumps(v)) for k, v in values.items()]
        )
        conn.commit()
    finally:
        conn.close()


def test_an_older_caches_table_is_read_and_written_again_in_the_new_one(
    sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    listed = Catalog(sessions_dir, cache).scan()
    (cache_file,) = cache.iterdir()
    values = saved_files(cache_file)
    write_old_table(cache_file, values, str(sessions_dir.resolve()))
    assert _tables(cache_file) == {"meta", "files"}
    _no_reads(monkeypatch)  # migrated from the rows: no file read again
    assert Catalog(sessions_dir, cache).scan() == listed
    assert _tables(cache_file) == {"meta", "records"}
    assert saved_files(cache_file) == values
    again = Catalog(sessions_dir, cache)
    assert again.scan() == listed
    assert all(c.scan_text is not None for c in again._cached.values())


_CHILD = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path

    from sessiontree.archive import catalog_cache

    path, how, ready = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    version, root = int(sys.argv[4]), sys.argv[5]

    def rows():
        for n in range(1000):
            yield f"new-{n}.jsonl", '{"entry": {}}', None
            if n == 500:
                ready.write_text("midway")
                time.sleep(600)  # killed here, inside the save

    if how == "whole":
        catalog_cache.write_whole(path, version, root, rows())
    else:
        catalog_cache.write(path, version, root, rows(), ["--work-p0--/2026-01-01_s0.jsonl"])
    """
)


@pytest.mark.parametrize("how", ["whole", "rows"])
def test_a_save_killed_midway_leaves_the_last_complete_store(
    sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    cache = tmp_path / "cache"
    listed = Catalog(sessions_dir, cache).scan()
    (cache_file,) = cache.iterdir()
    before = saved_files(cache_file)
    ready = tmp_path / "ready"
    root = str(sessions_dir.resolve())
    args = [str(cache_file), how, str(ready), str(CACHE_VERSION), root]
    child = subprocess.Popen([sys.executable, "-c", _CHILD, *args])
    try:
        deadline = time.monotonic() + WAIT
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists(), "the child never reached the middle of its save"
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=WAIT) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert saved_files(cache_file) == before  # the last complete store, nothing of the killed save
    _no_reads(monkeypatch)
    assert Catalog(sessions_dir, cache).scan() == listed
    # The killed save's temp file (a whole write's) is left for the next whole save to replace.
    assert [p.name for p in cache.iterdir() if p.suffix == ".sqlite"] == [cache_file.name]


def test_a_record_shown_under_a_prefix_and_a_kept_root_is_the_record_with_those_four_values(
    sessions_dir: Path, tmp_path: Path
) -> None:
    from dataclasses import replace

    from sessiontree.archive.catalog_read import shown_as
    from sessiontree.archive.keep.roots import KeptRoot

    (entry, *_) = [e for e in Catalog(sessions_dir, tmp_path / "cache").scan() if e.error is None]
    child = replace(entry, parent_key="--work-p0--/parent.jsonl", title="a child")
    kept = KeptRoot(tmp_path / "kept", "laptop", "/home/laptop/sessions", "pi", {entry.key: "2026-02-01"})
    for record in (entry, child):
        parent = None if record.parent_key is None else "pi/" + record.parent_key
        assert shown_as(record, "pi/", None) == replace(record, key="pi/" + record.key, parent_key=parent)
    assert shown_as(entry, "laptop-pi/", kept) == replace(
        entry, key="laptop-pi/" + entry.key, machine="laptop", kept="2026-02-01"
    )
    assert shown_as(entry, "", None) is entry


def test_the_walk_as_text_is_the_walk_of_paths(tmp_path: Path) -> None:
    from sessiontree.archive.session_files import iter_session_files, iter_session_texts

    root = tmp_path / "sessions"
    session(root / "--work-a--" / "2026-01-01_s1.jsonl", "s1", "/work/a")
    session(root / "--work-a--" / "2026-01-01_s1" / "0-Explorer.jsonl", "s1a", "/work/a")
    session(root / "2026-01-02_flat.jsonl", "s2", "/work")
    (root / "--work-b--" / "not-a-file.jsonl").mkdir(parents=True)  # listed as unreadable
    outside = session(tmp_path / "elsewhere" / "x.jsonl", "x", "/x")
    (root / "--work-b--" / "leaves.jsonl").symlink_to(outside)  # never listed
    for unreadable in (False, True):
        paths = [(str(p), parent) for p, parent in iter_session_files(root, unreadable=unreadable)]
        assert list(iter_session_texts(root, unreadable=unreadable)) == paths
    listed = {
        Path(p).relative_to(root).as_posix(): parent
        for p, parent in iter_session_texts(root, unreadable=True)
    }
    assert listed == {
        "--work-a--/2026-01-01_s1.jsonl": None,
        "--work-a--/2026-01-01_s1/0-Explorer.jsonl": "--work-a--/2026-01-01_s1.jsonl",
        "--work-b--/not-a-file.jsonl": None,
        "2026-01-02_flat.jsonl": None,
    }
