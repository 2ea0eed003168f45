"""Files whose names are not UTF-8 are indexed, found, counted and followed like any other."""

from __future__ import annotations

import os
from pathlib import Path

from sessiontree.archive.collection import path_key, path_of_key
from sessiontree.archive.search import SearchFilters, SearchIndex
from tests.archive.sessions import make_session, write_lines


def odd(folder: Path, name: bytes) -> Path:
    return Path(os.fsdecode(os.fsencode(folder) + b"/" + name))


def test_path_keys_are_utf8_and_give_the_path_back(tmp_path: Path) -> None:
    for name in (
        b"plain.jsonl",
        "caf\u00e9.jsonl".encode(),
        b"bad-\xff.jsonl",
        b"%ff.jsonl",
        b"bytes:x.jsonl",
    ):
        path = odd(tmp_path, name)
        key = path_key(path)
        key.encode("utf-8")  # strict: SQLite stores it
        assert path_of_key(key) == path
    assert path_key(odd(tmp_path, b"bad-\xff.jsonl")) != path_key(odd(tmp_path, b"bad-\xfe.jsonl"))


def test_sessions_under_names_that_are_not_utf8_are_searched(
    roots: Path, cache_dir: Path, tmp_path: Path
) -> None:
    make_session(roots / "p", "plain", seed=3, turns=4, title="Plain")
    odd_root = odd(tmp_path, b"root-\xfd")
    for seed, path in enumerate(
        (
            odd(roots / "p", b"bad-\xff.jsonl"),
            odd(roots, b"proj-\xfe") / "inside.jsonl",
            odd_root / "s.jsonl",
        ),
        4,
    ):
        _, lines = make_session(tmp_path / "scratch", "s", seed=seed, turns=4)  # other entries: counted apart
        write_lines(path, lines)
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        found = {hit.path for hit in index.search("fsync", SearchFilters(limit=50))}
        assert found == {
            roots / "p" / "plain.jsonl",
            odd(roots / "p", b"bad-\xff.jsonl"),
            odd(roots, b"proj-\xfe") / "inside.jsonl",
        }
        assert {record.path for record in index.usage()} == {str(p) for p in found}
    with SearchIndex([odd_root], cache_dir) as index:  # a root whose own name is not UTF-8
        index.update()
        assert {hit.path for hit in index.search("fsync")} == {odd_root / "s.jsonl"}
    # Appends are followed under such a name too.
    with open(odd(roots / "p", b"bad-\xff.jsonl"), "a", encoding="utf-8") as fh:
        fh.write(
            '{"type":"message","id":"zz1","parentId":null,"message":{"role":"user","content":"zqappended"}}\n'
        )
    with SearchIndex([roots], cache_dir) as index:
        index.update()
        assert [hit.path for hit in index.search("zqappended")] == [odd(roots / "p", b"bad-\xff.jsonl")]
