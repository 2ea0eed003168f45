"""The whole-page cache of export: the same bytes as a fresh render; a changed file or option misses."""

from __future__ import annotations

import gc
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter import ExportOptions
from sessiontree.exporter import api as api_module
from sessiontree.exporter.fragment_cache import FILE_NAME, FragmentCache
from sessiontree.exporter.recipe import make_page
from sessiontree.exporter.render import render_entry
from sessiontree.pages import export as export_module
from sessiontree.pages.export import export_to_file
from tests.conftest import REAL, GenSession

REAL_FILES = sorted(REAL.rglob("*.jsonl"))[:4]


def export(path: Path, out: Path, cache: FragmentCache | None, **options: str) -> tuple[bytes, list[str]]:
    warnings: list[str] = []
    export_to_file(path, out, ExportOptions(**options), cache, warn=warnings.append)  # type: ignore[arg-type]
    return out.read_bytes(), warnings


def no_load(*_: object, **__: object) -> None:
    raise AssertionError("the session was loaded: the page cache was not used")


def check_cached(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **options: str) -> None:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    fresh = export(path, out / "fresh.html", None, **options)
    cache = FragmentCache(tmp_path / "cache")
    assert export(path, out / "cold.html", cache, **options) == fresh
    with monkeypatch.context() as patch:
        patch.setattr(export_module, "load_for_export", no_load)
        assert export(path, out / "warm.html", cache, **options) == fresh
    cache.close()


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[:50])
def test_a_page_from_the_page_cache_is_byte_identical_real(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_cached(path, tmp_path, monkeypatch)


def test_a_page_from_the_page_cache_is_byte_identical_generated(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check_cached(gen_session(80, blobs=True), tmp_path, monkeypatch)
    check_cached(gen_session(40, version=1, seed=3), tmp_path, monkeypatch, theme="dark")


def test_load_warnings_are_given_again_from_the_page_cache(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = gen_session(10)
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"type": "message", "id": \n')  # a damaged line: the load warns
    out = tmp_path / "w.html"
    assert export(path, out, None)[1]
    check_cached(path, tmp_path, monkeypatch)


def test_a_changed_file_or_option_misses(gen_session: GenSession, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"  # a copy: the generated file is shared by other tests
    shutil.copyfile(gen_session(20), path)
    cache = FragmentCache(tmp_path / "cache")
    first, _ = export(path, tmp_path / "a.html", cache)
    dark, _ = export(path, tmp_path / "b.html", cache, theme="dark")
    assert dark != first and dark == export(path, tmp_path / "c.html", None, theme="dark")[0]
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-2]))  # the session changed: its page must too
    changed, _ = export(path, tmp_path / "d.html", cache)
    assert changed != first and changed == export(path, tmp_path / "e.html", None)[0]
    cache.close()


def test_a_damaged_page_record_is_a_miss(gen_session: GenSession, tmp_path: Path) -> None:
    path = gen_session(20)
    fresh, _ = export(path, tmp_path / "a.html", None)
    cache = FragmentCache(tmp_path / "cache")
    export(path, tmp_path / "b.html", cache)
    cache.close()
    with sqlite3.connect(tmp_path / "cache" / FILE_NAME) as db:
        changed = db.execute(
            "update frags set value = substr(value, 1, 20) || x'00' || substr(value, 22) where size > 100000"
        ).rowcount
    assert changed >= 1  # the page record (fragments are far smaller)
    cache = FragmentCache(tmp_path / "cache")
    assert export(path, tmp_path / "c.html", cache)[0] == fresh
    cache.close()


def test_a_damaged_cache_file_is_deleted_and_the_next_use_starts_afresh(
    gen_session: GenSession, tmp_path: Path
) -> None:
    path = gen_session(10)
    fresh, _ = export(path, tmp_path / "a.html", None)
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b"not a database " * 512)  # as a machine crash might leave it
    cache = FragmentCache(folder)
    assert export(path, tmp_path / "b.html", cache)[0] == fresh  # the cache steps aside
    cache.close()
    assert not (folder / FILE_NAME).exists()
    cache = FragmentCache(folder)
    assert export(path, tmp_path / "c.html", cache)[0] == fresh
    cache.close()
    with sqlite3.connect(folder / FILE_NAME) as db:
        assert db.execute("select count(*) from frags").fetchone()[0] > 0


def _records(folder: Path) -> int:
    with sqlite3.connect(folder / FILE_NAME) as db:
        count: int = db.execute("select count(*) from frags").fetchone()[0]
    return count


def test_a_file_never_seen_keeps_its_page_and_a_changed_one_its_fragments_too(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "session.jsonl"  # a copy: the generated file is shared by other tests
    shutil.copyfile(gen_session(20), path)
    cache = FragmentCache(tmp_path / "cache")
    export(path, tmp_path / "a.html", cache)
    cache.flush()
    assert _records(tmp_path / "cache") == 2  # the page and the mark that the file was seen: no fragment
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-2]))  # the session changed: rendered again, its fragments kept
    changed, _ = export(path, tmp_path / "b.html", cache)
    cache.flush()
    kept = _records(tmp_path / "cache")
    assert kept > 20
    assert changed == export(path, tmp_path / "c.html", None)[0]
    path.write_bytes(b"".join(lines[:-4]))  # changed again: the fragments of the entries left are hits
    rendered: list[object] = []
    real = render_entry

    def counted(*args: Any, **kwargs: Any) -> Any:
        rendered.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(api_module, "render_entry", counted)
    again, _ = export(path, tmp_path / "d.html", cache)
    cache.close()
    assert rendered == []
    monkeypatch.undo()
    assert again == export(path, tmp_path / "e.html", None)[0]


def test_the_loaded_session_is_out_of_the_collectors_walks_while_rendered_and_back_after(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = gen_session(10)
    frozen: list[int] = []
    real = make_page

    def watched(*args: Any, **kwargs: Any) -> Any:
        frozen.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(export_module, "make_page", watched)
    before = gc.get_freeze_count()
    page, _ = export(path, tmp_path / "a.html", None)
    assert frozen and frozen[0] > before  # the session (and what else lived) frozen for the render
    assert gc.get_freeze_count() == before
    monkeypatch.undo()
    assert page == export(path, tmp_path / "b.html", None)[0]


def test_a_first_export_stores_its_page_without_copying_it(
    gen_session: GenSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page goes to the cache as the one record it was written into: no join, no second copy
    in Python while it is stored (kept as chunks and joined, a 10.7 MB page was held twice)."""
    import tracemalloc

    path = gen_session(150, seed=5)
    grown: list[int] = []
    put_page = FragmentCache.put_page

    def watched(self: FragmentCache, *args: Any) -> None:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        put_page(self, *args)
        grown.append(tracemalloc.get_traced_memory()[1] - before)

    monkeypatch.setattr(FragmentCache, "put_page", watched)
    cache = FragmentCache(tmp_path / "cache")
    tracemalloc.start()
    try:
        export_to_file(path, tmp_path / "cached.html", ExportOptions(), cache)
    finally:
        tracemalloc.stop()
    cache.close()
    page = (tmp_path / "cached.html").stat().st_size
    assert len(grown) == 1 and page > 500_000
    assert grown[0] < page // 10, (grown, page)
