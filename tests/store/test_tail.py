"""TailReader on real files: growth, half lines, shrink, rename-replace, in-place rewrites."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.store.tail import WINDOW, TailReader, TailState


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def line(n: int, pad: int = 0) -> bytes:
    return json.dumps({"type": "message", "id": f"e{n}", "pad": "x" * pad}).encode() + b"\n"


def started(path: Path) -> tuple[TailReader, list[bytes]]:
    reader = TailReader(path)
    first = reader.poll()
    assert first.kind == "reload" and first.reason == "new"
    return reader, list(reader.read_all())


def test_grow_returns_only_the_appended_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2))
    reader, lines = started(path)
    assert lines == [line(1), line(2)]
    append(path, line(3))
    result = reader.poll()
    assert result.kind == "append"
    assert result.lines == [line(3)]
    assert result.first_lineno == 3
    append(path, line(4) + line(5))
    result = reader.poll()
    assert result.lines == [line(4), line(5)] and result.first_lineno == 4
    assert reader.state is not None and reader.state.offset == path.stat().st_size


def test_unchanged_file_gives_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1))
    reader, _ = started(path)
    result = reader.poll()
    assert result.kind == "append" and result.lines == []


def test_half_written_line_waits_for_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    full = line(2, pad=50)
    path.write_bytes(line(1) + full[:10])
    reader, lines = started(path)
    assert lines == [line(1)]
    append(path, full[10:30])
    assert reader.poll().lines == []
    append(path, full[30:])
    result = reader.poll()
    assert result.lines == [full]  # one whole line, not the tail read as a separate line
    assert result.first_lineno == 2


def test_half_line_survives_a_saved_state(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    full = line(2)
    path.write_bytes(line(1) + full[:7])
    reader, _ = started(path)
    assert reader.state is not None
    saved = json.loads(json.dumps(reader.state.to_json()))
    resumed = TailReader(path, TailState.from_json(saved))
    append(path, full[7:])
    assert resumed.poll().lines == [full]


def test_shrink_asks_for_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2) + line(3))
    reader, _ = started(path)
    with open(path, "r+b") as fh:
        fh.truncate(len(line(1)))
    result = reader.poll()
    assert result.kind == "reload" and result.reason == "shrunk"
    assert list(reader.read_all()) == [line(1)]
    append(path, line(9))
    assert reader.poll().lines == [line(9)]


def test_truncated_half_line_asks_for_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2)[:8])
    reader, _ = started(path)
    with open(path, "r+b") as fh:
        fh.truncate(len(line(1)) + 3)
    assert reader.poll().reason == "shrunk"


def test_replace_by_rename_asks_for_a_reload(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2))
    reader, _ = started(path)
    temp = tmp_path / "s.jsonl.tmp"
    temp.write_bytes(line(1) + line(2) + line(3))  # bigger, same prefix: only the inode tells
    os.replace(temp, path)
    result = reader.poll()
    assert result.kind == "reload" and result.reason == "replaced"
    assert list(reader.read_all()) == [line(1), line(2), line(3)]
    assert reader.poll().lines == []


def test_same_length_first_line_rewrite_asks_for_a_reload(tmp_path: Path) -> None:
    # oh-my-pi keeps its title in a fixed 256-byte first line and rewrites it in place.
    def title_line(title: str) -> bytes:
        body = json.dumps({"type": "session", "id": "s1", "title": title}).encode()
        return body + b" " * (255 - len(body)) + b"\n"

    path = tmp_path / "s.jsonl"
    first = title_line("old title")
    path.write_bytes(first + line(1) + line(2))
    reader, _ = started(path)
    size = path.stat().st_size
    with open(path, "r+b") as fh:
        fh.write(title_line("new title"))
        fh.flush()
        os.fsync(fh.fileno())
    assert path.stat().st_size == size
    result = reader.poll()
    assert result.kind == "reload" and result.reason == "rewritten"
    assert next(iter(reader.read_all())) == title_line("new title")


def test_rewrite_just_before_the_offset_asks_for_a_reload(tmp_path: Path) -> None:
    # Far from the head (outside the first 4 KB) but inside the last consumed bytes.
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(line(n, pad=500) for n in range(30)))
    reader, _ = started(path)
    size = path.stat().st_size
    assert size > 3 * WINDOW
    with open(path, "r+b") as fh:
        fh.seek(size - 20)
        fh.write(b"y")
    append(path, line(99))
    assert reader.poll().reason == "rewritten"


def test_rewrite_then_growth_is_still_caught(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2))
    reader, _ = started(path)
    with open(path, "r+b") as fh:
        fh.write(b'{"type":"message","id":"eX"')
    append(path, line(3))
    assert reader.poll().reason == "rewritten"


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1))
    reader, _ = started(path)
    path.unlink()
    assert reader.poll().kind == "missing"
    path.write_bytes(line(5))  # re-created: a new inode, read whole again
    assert reader.poll().kind == "reload"
    assert list(reader.read_all()) == [line(5)]


def test_abandoned_reload_is_asked_again(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(1) + line(2))
    reader = TailReader(path)
    lines = reader.read_all()
    next(lines)
    assert reader.poll().kind == "reload"


def test_large_file_read_whole_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    expected = [line(n, pad=3000) for n in range(800)]  # ~2.4 MB: several read chunks
    path.write_bytes(b"".join(expected))
    reader, lines = started(path)
    assert lines == expected
    assert reader.state is not None and reader.state.lines == 800
    append(path, line(1000))
    assert reader.poll().lines == [line(1000)]


@settings(max_examples=60, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=400), min_size=1, max_size=12))
def test_any_write_split_gives_each_line_once(
    tmp_path_factory: pytest.TempPathFactory, cuts: list[int]
) -> None:
    path = tmp_path_factory.mktemp("tail") / "s.jsonl"
    data = b"".join(line(n, pad=n * 7) for n in range(12))
    path.write_bytes(b"")
    reader = TailReader(path)
    assert list(reader.read_all()) == []
    seen: list[bytes] = []
    position = 0
    for cut in [*sorted(cuts), len(data)]:
        end = min(max(cut * len(data) // 400, position), len(data))
        append(path, data[position:end])
        position = end
        result = reader.poll()
        assert result.kind == "append"
        assert result.first_lineno == len(seen) + 1
        seen.extend(result.lines)
    assert b"".join(seen) == data
