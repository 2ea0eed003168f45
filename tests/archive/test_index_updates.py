"""The index follows its files: appends (and half-written lines), in-place rewrites, replacement, deletion."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive.index import RACY_SECONDS
from sessiontree.archive.search import SearchFilters, SearchIndex
from tests.archive.sessions import make_session, write_lines


def user_line(entry_id: str, parent: str | None, text: str) -> str:
    entry: dict[str, Any] = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-03-01T10:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1772359200000},
    }
    return json.dumps(entry) + "\n"


def ids(index: SearchIndex, query: str) -> list[str | None]:
    return [h.entry_id for h in index.search(query, SearchFilters(limit=1000))]


def test_appended_lines_are_indexed_alone(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "grow", seed=1, turns=10)
    with SearchIndex([roots], cache_dir) as index:
        first = index.update()
        assert (first.whole, first.appended) == (1, 0)
        rows_before = first.rows
        assert ids(index, "zqappended") == []
        with path.open("a", encoding="utf-8") as fh:
            fh.write(user_line("app1", lines[-1]["id"], "zqappended once"))
        report = index.update()
        assert (report.whole, report.appended, report.rows) == (0, 1, 1)
        assert ids(index, "zqappended") == ["app1"]
        assert len(ids(index, "fsync")) == len(ids(index, "fsync"))  # stable
        assert index.update().rows == 0  # nothing new: nothing read
        assert rows_before > 1


def test_a_line_appended_while_the_file_is_indexed_is_indexed_next_time(
    roots: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file's size and time were recorded from a stat after its read and indexing: a line appended
    # in between (more than RACY_SECONDS before that stat) left the file as recorded, and every later
    # stat pass skipped it: the line was never indexed.
    from sessiontree.archive import index_file

    path, lines = make_session(roots / "p", "during", seed=5, turns=6)
    index_values = index_file._index_values
    appended: list[str] = []

    def index_then_append(*args: Any) -> int:
        rows: int = index_values(*args)
        if not appended:
            appended.append("during1")
            with path.open("a", encoding="utf-8") as fh:
                fh.write(user_line("during1", "first1", "zqduring the indexing"))
            old = time.time() - 10 * RACY_SECONDS  # long before the stat that follows
            os.utime(path, (old, old))
        return rows

    with SearchIndex([roots], cache_dir) as index:
        index.update()
        with path.open("a", encoding="utf-8") as fh:
            fh.write(user_line("first1", lines[-1]["id"], "zqfirst append"))
        monkeypatch.setattr(index_file, "_index_values", index_then_append)
        assert index.update().appended == 1 and appended == ["during1"]
        assert ids(index, "zqfirst") == ["first1"] and ids(index, "zqduring") == []
        assert index.update().appended == 1
        assert ids(index, "zqduring") == ["during1"]


def test_a_half_written_line_waits_for_its_newline(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "half", seed=2, turns=6)
    whole = user_line("half1", lines[-1]["id"], "zqhalfline arrives")
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        with path.open("a", encoding="utf-8") as fh:
            fh.write(whole[:40])
        assert index.update().rows == 0
        assert ids(index, "zqhalfline") == []
        with path.open("a", encoding="utf-8") as fh:
            fh.write(whole[40:])
        assert index.update().rows == 1
        assert ids(index, "zqhalfline") == ["half1"]


def test_in_place_rewrite_of_the_head_reindexes_the_file(roots: Path, cache_dir: Path) -> None:
    path, _lines = make_session(roots / "p", "retitle", seed=3, turns=10, title="zqoldtitle padded")
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert ids(index, "zqoldtitle") == [None]
        inode = path.stat().st_ino
        # The way oh-my-pi retitles: the same bytes count, written over the first line.
        data = path.read_bytes()
        fd = os.open(path, os.O_WRONLY)
        try:
            os.pwrite(fd, data[: data.index(b"\n")].replace(b"zqoldtitle", b"zqnewtitle"), 0)
        finally:
            os.close(fd)
        assert path.stat().st_ino == inode and path.stat().st_size == len(data)
        report = index.update()
        assert report.whole == 1
        assert ids(index, "zqoldtitle") == []
        assert ids(index, "zqnewtitle") == [None]
        assert len(ids(index, "fsync")) == len(set(ids(index, "fsync")))  # no row twice


def test_rewrite_near_the_end_is_seen(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "tail", seed=4, turns=10)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(user_line("last1", lines[-1]["id"], "zqlastwordA"))
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert ids(index, "zqlastwordA") == ["last1"]
        data = path.read_bytes()
        path.write_bytes(data.replace(b"zqlastwordA", b"zqlastwordB"))  # truncate and write: same size
        assert index.update().whole == 1
        assert ids(index, "zqlastwordA") == []
        assert ids(index, "zqlastwordB") == ["last1"]


def test_replacement_by_rename_reindexes_whole(roots: Path, cache_dir: Path) -> None:
    path, _lines = make_session(roots / "p", "swap", seed=5, turns=8, title="zqbeforeswap")
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert ids(index, "zqbeforeswap") == [None]
        other, _ = make_session(roots.parent / "elsewhere", "swap", seed=6, turns=8, title="zqafterswap")
        os.replace(other, path)  # an atomic rewrite: a new inode under the same name
        report = index.update()
        assert (report.whole, report.appended) == (1, 0)
        assert ids(index, "zqbeforeswap") == []
        assert ids(index, "zqafterswap") == [None]


def test_deleted_files_lose_their_rows(roots: Path, cache_dir: Path) -> None:
    gone, _ = make_session(roots / "p", "gone", seed=7, turns=6, title="zqdeleted session")
    kept, _ = make_session(roots / "p", "kept", seed=8, turns=6, title="zqkept session")
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert ids(index, "zqdeleted OR zqkept") == [None, None]
        gone.unlink()
        assert index.update().removed == 1
        assert ids(index, "zqdeleted") == []
        assert [h.path for h in index.search("zqdeleted OR zqkept")] == [kept]
        assert index.usage() and {r.path for r in index.usage()} == {str(kept)}


def test_a_new_label_replaces_the_old_one(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "labels", seed=9, turns=4)
    target = lines[-1]["id"]
    label = {"type": "label", "id": "lab1", "parentId": target, "timestamp": "2026-03-01T10:00:00.000Z"}
    with SearchIndex([roots], cache_dir) as index:
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({**label, "targetId": target, "label": "zqfirstlabel"}) + "\n")
        index.update()
        assert ids(index, "zqfirstlabel") == [target]
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps({**label, "id": "lab2", "targetId": target, "label": "zqsecondlabel"}) + "\n")
        index.update()
        assert ids(index, "zqfirstlabel") == []
        assert ids(index, "zqsecondlabel") == [target]


def test_a_file_that_is_not_a_session_is_skipped_until_it_becomes_one(roots: Path, cache_dir: Path) -> None:
    path = roots / "p" / "notes.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"hello": "zqnotasession"}\n')
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert ids(index, "zqnotasession") == []
        _, lines = make_session(roots.parent / "tmp", "s", seed=1, turns=3, title="zqnowasession")
        write_lines(path, lines)
        index.update()
        assert ids(index, "zqnowasession") == [None]


def test_a_second_index_object_resumes_from_the_saved_state(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "resume", seed=2, turns=6)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
    with path.open("a", encoding="utf-8") as fh:
        fh.write(user_line("later", lines[-1]["id"], "zqafterrestart"))
    with SearchIndex([roots], cache_dir) as index:
        report = index.update()
        assert (report.whole, report.appended, report.rows) == (0, 1, 1)
        assert ids(index, "zqafterrestart") == ["later"]
