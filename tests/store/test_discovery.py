"""Discovery: session folders, prefix metadata, listings, recency and terminal breadcrumbs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sessiontree.store.discovery import (
    CHEAP_COUNT_BYTES,
    PREFIX_BYTES,
    find_continue_target,
    find_most_recent_session,
    get_recent_sessions,
    list_all_sessions,
    list_sessions,
    read_session_info,
    read_terminal_breadcrumb,
    session_dir_for,
    terminal_id,
    write_terminal_breadcrumb,
)
from sessiontree.store.storage import FileSessionStorage, MemorySessionStorage
from tests.store.helpers import assistant, header, msg, write_jsonl


class CountingStorage(FileSessionStorage):
    """The real filesystem, counting the bytes handed back by reads."""

    def __init__(self) -> None:
        self.bytes_read = 0

    def read_bytes_sync(self, path: Path) -> bytes:
        data = super().read_bytes_sync(path)
        self.bytes_read += len(data)
        return data

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        text = super().read_text_prefix_sync(path, max_bytes)
        self.bytes_read += len(text.encode())
        return text


def make_session(
    folder: Path,
    session_id: str,
    *,
    cwd: str,
    prompt: str = "hello",
    mtime: float | None = None,
    **extra: Any,
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    lines = [header(session_id, cwd=cwd, **extra), msg("a1", None, "user", prompt), assistant("a2", "a1")]
    path = write_jsonl(folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl", lines)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_session_dir_encodes_the_cwd(tmp_path: Path) -> None:
    assert session_dir_for("/work/pi", tmp_path) == tmp_path / "sessions" / "--work-pi--"
    assert session_dir_for("/a/b:c", tmp_path).name == "--a-b-c--"


def test_info_from_a_small_file(tmp_path: Path) -> None:
    path = make_session(tmp_path, "1111222233334444", cwd="/w", prompt="  fix   the\nparser ", title=None)
    info = read_session_info(path)
    assert info is not None
    assert (info.id, info.cwd, info.title, info.first_message) == (
        "1111222233334444",
        "/w",
        None,
        "fix the parser",
    )
    assert info.display_title == "fix the parser" and info.message_count == 2
    assert info.created == "2026-02-16T10:20:30.000Z" and info.modified == path.stat().st_mtime
    assert info.size == path.stat().st_size


def test_title_wins_over_the_first_prompt(tmp_path: Path) -> None:
    info = read_session_info(make_session(tmp_path, "a" * 16, cwd="/w", title="Named"))
    assert info is not None and info.display_title == "Named" and info.first_message == "hello"


def test_big_file_is_read_by_prefix_only(tmp_path: Path) -> None:
    filler = [msg(f"f{i:07d}", None, "toolResult", "x" * 500) for i in range(400)]
    path = write_jsonl(
        tmp_path / "big.jsonl", [header("b" * 16, cwd="/w"), msg("u1", None, "user", "first ask"), *filler]
    )
    assert path.stat().st_size > CHEAP_COUNT_BYTES
    storage = CountingStorage()
    info = read_session_info(path, storage)
    assert info is not None and info.first_message == "first ask" and info.id == "b" * 16
    assert info.message_count is None  # counting would mean reading the whole file
    assert storage.bytes_read <= PREFIX_BYTES


def test_header_longer_than_the_prefix_still_reads(tmp_path: Path) -> None:
    long_title = "T" * (CHEAP_COUNT_BYTES + 10)
    filler = [msg(f"f{i}", None, "user", "y" * 100) for i in range(10)]
    path = write_jsonl(tmp_path / "s.jsonl", [header("c" * 16, cwd="/w", title=long_title), *filler])
    info = read_session_info(path)
    assert (
        info is not None and info.id == "c" * 16 and info.title is not None and info.title.startswith("TTT")
    )


@pytest.mark.parametrize("content", ["", "garbage\n", json.dumps({"type": "message"}) + "\n"])
def test_non_sessions_are_skipped(tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content)
    assert read_session_info(path) is None
    assert read_session_info(tmp_path / "missing.jsonl") is None


def test_list_is_per_cwd_and_newest_first(tmp_path: Path) -> None:
    here = session_dir_for("/proj", tmp_path)
    old = make_session(here, "0" * 16, cwd="/proj", mtime=1_000)
    new = make_session(here, "1" * 16, cwd="/proj", mtime=2_000)
    make_session(session_dir_for("/other", tmp_path), "2" * 16, cwd="/other", mtime=3_000)
    (here / "notes.txt").write_text("ignored")
    (here / "broken.jsonl").write_text("nope\n")
    assert [i.path for i in list_sessions("/proj", tmp_path)] == [new, old]
    assert [i.id for i in list_all_sessions(tmp_path)] == ["2" * 16, "1" * 16, "0" * 16]


def test_list_with_an_explicit_session_dir(tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    make_session(custom, "3" * 16, cwd="/anything")
    assert [i.id for i in list_sessions("/proj", tmp_path, custom)] == ["3" * 16]
    assert list_sessions("/proj", tmp_path) == []


def test_list_all_without_sessions(tmp_path: Path) -> None:
    assert list_all_sessions(tmp_path / "nothing") == []


def test_list_all_over_memory_storage(tmp_path: Path) -> None:
    storage = MemorySessionStorage()
    folder = session_dir_for("/m", tmp_path)
    storage.ensure_dir_sync(folder)
    lines = [header("4" * 16, cwd="/m"), msg("a1", None, "user")]
    storage.write_text_sync(folder / "s.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    assert [i.id for i in list_all_sessions(tmp_path, storage)] == ["4" * 16]


def test_recent_and_most_recent(tmp_path: Path) -> None:
    for n in range(5):
        make_session(tmp_path, f"{n}" * 16, cwd="/w", mtime=1_000 + n)
    assert [i.id for i in get_recent_sessions(tmp_path, 2)] == ["4" * 16, "3" * 16]
    assert find_most_recent_session(tmp_path) == tmp_path / f"2026-01-01T00-00-00-000Z_{'4' * 16}.jsonl"
    assert find_most_recent_session(tmp_path / "empty") is None


def test_terminal_id_from_the_environment() -> None:
    assert terminal_id({"TERM_SESSION_ID": "w0t0p0:ABC"}) == "w0t0p0_ABC"
    assert terminal_id({"WT_SESSION": "1234-abcd"}) == "1234-abcd"
    assert terminal_id({"TMUX_PANE": "%3"}) == "_3"
    assert terminal_id({"TERM_SESSION_ID": "first", "TMUX_PANE": "%1"}) == "first"
    assert terminal_id({"TERM_SESSION_ID": "../../etc"}) == ".._.._etc"  # never a path


def test_breadcrumb_round_trip(tmp_path: Path) -> None:
    write_terminal_breadcrumb(tmp_path, "pts-1", "/work/x", Path("/s/file.jsonl"))
    assert (tmp_path / "terminal-sessions" / "pts-1").read_text() == "/work/x\n/s/file.jsonl\n"
    crumb = read_terminal_breadcrumb(tmp_path, "pts-1")
    assert crumb is not None and crumb.cwd == "/work/x" and crumb.session_file == Path("/s/file.jsonl")
    assert read_terminal_breadcrumb(tmp_path, "pts-2") is None
    (tmp_path / "terminal-sessions" / "bad").write_text("only one line\n")
    assert read_terminal_breadcrumb(tmp_path, "bad") is None


def test_continue_target(tmp_path: Path) -> None:
    folder = session_dir_for("/proj", tmp_path)
    old = make_session(folder, "5" * 16, cwd="/proj", mtime=1_000)
    new = make_session(folder, "6" * 16, cwd="/proj", mtime=2_000)
    assert find_continue_target("/proj", tmp_path, term="t1") == new
    write_terminal_breadcrumb(tmp_path, "t1", "/proj", old)
    assert find_continue_target("/proj", tmp_path, term="t1") == old
    assert find_continue_target("/proj", tmp_path, term=None) == new
    assert find_continue_target("/elsewhere", tmp_path, term="t1") is None


def test_terminal_id_from_the_tty_of_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()
    try:
        with open(follower, closefd=False) as tty:
            monkeypatch.setattr("sys.stdin", tty)
            expected = os.ttyname(follower).strip("/").replace("/", "_")
            assert terminal_id({}) == expected and expected.startswith("dev_pts_")
    finally:
        os.close(leader)
        os.close(follower)
