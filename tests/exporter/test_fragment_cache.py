"""The fragment cache: a cached page is byte-identical to a fresh one; hits, misses, eviction, damage."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sessiontree.exporter import RenderOptions, iter_page, render_session
from sessiontree.exporter.fragment_cache import FILE_NAME, FragmentCache, Record, fragment_key
from sessiontree.readers import load_for_export
from tests.conftest import REAL, GenSession

REAL_FILES = sorted(REAL.rglob("*.jsonl"))


def page(path: Path, cache: FragmentCache | None) -> str:
    session = load_for_export(path)
    return "".join(iter_page(render_session(session, RenderOptions(cache=cache, parallel=False))))


def rows(folder: Path) -> int:
    with sqlite3.connect(folder / FILE_NAME) as db:
        (count,) = db.execute("select count(*) from frags").fetchone()
    return int(count)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:50])
def test_a_cached_page_of_a_real_session_is_byte_identical(path: Path, tmp_path: Path) -> None:
    fresh = page(path, None)
    cache = FragmentCache(tmp_path)
    cold = page(path, cache)
    warm = page(path, cache)
    cache.close()
    assert cold == fresh
    assert warm == fresh


def test_a_cached_page_of_generated_sessions_is_byte_identical(
    gen_session: GenSession, tmp_path: Path
) -> None:
    for path in (gen_session(120, blobs=True), gen_session(60, version=1, seed=3)):
        fresh = page(path, None)
        cache = FragmentCache(tmp_path)
        assert page(path, cache) == fresh
        assert rows(tmp_path) > 0
        assert page(path, cache) == fresh
        cache.close()


def test_a_changed_entry_misses_and_the_rest_hit(gen_session: GenSession, tmp_path: Path) -> None:
    path = gen_session(30)
    cache = FragmentCache(tmp_path)
    page(path, cache)
    before = rows(tmp_path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    user = next(e for e in lines if e.get("message", {}).get("role") == "user")
    user["message"]["content"] = "a prompt nobody wrote before"
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(json.dumps(e) + "\n" for e in lines))
    fresh = page(changed, None)
    assert page(changed, cache) == fresh
    assert rows(tmp_path) == before + 1  # one new fragment; every other one was a hit
    cache.close()


def record(i: int, size: int = 100) -> Record:
    return {"id": f"e{i}", "cat": "user"}, f"<article>{'x' * size}{i}</article>", {}


def test_hit_and_miss(tmp_path: Path) -> None:
    cache = FragmentCache(tmp_path)
    a, b = fragment_key(["a"]), fragment_key(["b"])
    assert cache.get_many([a, b]) == {}
    cache.put_many([(a, record(1))])
    assert cache.present([a, b]) == {a}
    assert cache.get_many([a, b]) == {a: record(1)}
    cache.close()
    assert FragmentCache(tmp_path).get_many([a]) == {a: record(1)}  # kept on disk


def test_least_recently_used_records_are_evicted_past_the_bound(tmp_path: Path) -> None:
    cache = FragmentCache(tmp_path, max_bytes=60_000)
    keys = [fragment_key([i]) for i in range(40)]
    for i, key in enumerate(keys):
        # random text does not compress: each record is about 4 KB on disk
        cache.put_many([(key, ({"id": f"e{i}"}, os.urandom(2000).hex(), {}))])
        time.sleep(0.002)  # distinct use times
    left = cache.present(keys)
    assert 0 < len(left) < 40
    assert keys[-1] in left and keys[0] not in left  # the oldest went first
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        (total,) = db.execute("select sum(size) from frags").fetchone()
    assert total <= 60_000
    cache.close()


def test_a_truncated_or_altered_record_is_a_miss_and_is_dropped(
    gen_session: GenSession, tmp_path: Path
) -> None:
    path = gen_session(20)
    fresh = page(path, None)
    cache = FragmentCache(tmp_path)
    page(path, cache)
    cache.close()
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        damaged = "substr(hex(key), 1, 1) in ('0', '1', '2', '3', '4', '5')"
        db.execute(f"update frags set value = substr(value, 1, length(value) / 2) where {damaged}")
        flipped = "substr(hex(key), 1, 1) in ('6', '7', '8', '9', 'A')"
        db.execute(f"update frags set value = x'00' || substr(value, 2) where {flipped}")
        assert db.total_changes > 0
    cache = FragmentCache(tmp_path)
    assert page(path, cache) == fresh  # damaged records were rendered again
    cache.close()
    cache = FragmentCache(tmp_path)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        keys = [k for (k,) in db.execute("select key from frags")]
    assert len(cache.get_many(keys)) == len(keys)
    cache.close()


WRITER = """
import sys, time
from pathlib import Path
from sessiontree.exporter.fragment_cache import FragmentCache, fragment_key
cache = FragmentCache(Path(sys.argv[1]))
key = fragment_key(["one key"])
value = ({"id": "e"}, "<article>" + "y" * 200_000 + sys.argv[2] + "</article>", {})
Path(sys.argv[3]).write_text("ready")
for _ in range(int(sys.argv[4])):
    cache.put_many([(key, value)] + [(fragment_key([sys.argv[2], i]), value) for i in range(20)])
cache.close()
"""


def writer(folder: Path, tag: str, marker: Path, rounds: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(folder), tag, str(marker), str(rounds)])


def test_two_processes_writing_one_key(tmp_path: Path) -> None:
    procs = [writer(tmp_path, tag, tmp_path / f"{tag}.ready", 15) for tag in ("A", "B")]
    assert [p.wait(timeout=600) for p in procs] == [0, 0]
    got = FragmentCache(tmp_path).get_many([fragment_key(["one key"])])
    ((_, html, _),) = got.values()
    assert html.endswith(("A</article>", "B</article>")) and len(html) == 200_020


def test_sigkill_during_a_write_leaves_only_whole_records(tmp_path: Path) -> None:
    marker = tmp_path / "K.ready"
    proc = writer(tmp_path, "K", marker, 10_000)
    deadline = time.monotonic() + 300
    while not marker.exists() or rows_or_zero(tmp_path) < 5:  # killed while it writes, not before
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        assert db.execute("pragma integrity_check").fetchone() == ("ok",)
        keys = [k for (k,) in db.execute("select key from frags")]
    cache = FragmentCache(tmp_path)
    got = cache.get_many(keys)
    assert len(got) == len(keys) > 0  # every record there reads back whole
    assert all(html.endswith("K</article>") for _, html, _ in got.values())
    cache.close()


def rows_or_zero(folder: Path) -> int:
    try:
        return rows(folder)
    except sqlite3.Error:
        return 0
