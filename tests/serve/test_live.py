"""A followed session on real files: appends, half lines, shrink, rename-replace, in-place rewrites."""

from __future__ import annotations

import json
import os
from pathlib import Path

from sessiontree.serve.live import LiveSession
from tests.serve.conftest import append_line, write_session
from tests.store.helpers import assistant, entry, msg


def started(tmp_path: Path) -> tuple[Path, LiveSession]:
    path = write_session(tmp_path / "s.jsonl", "s1")
    live = LiveSession(path, image_prefix="/blobs/")
    live.load()
    return path, live


def appended_ids(events: list) -> list[str]:  # type: ignore[type-arg]
    (event,) = events
    assert event.name == "append"
    return [item[0]["id"] for item in event.data["entries"]]


def test_appended_entries_become_one_event(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    assert live.refresh() == []
    append_line(path, msg("u2", "a1", "user", "second"))
    append_line(path, assistant("a2", "u2", "second answer"))
    events = live.refresh()
    assert appended_ids(events) == ["u2", "a2"]
    data = events[0].data
    assert data["count"] == 4 and data["generation"] == live.generation
    meta, html, _ = data["entries"][1]
    assert meta["parentId"] == "u2" and "second answer" in html
    assert live.session.leaf_id == "a2"
    assert live.session.tree.parent_of("a2") == "u2"


def test_half_written_line_waits_for_its_newline(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    line = json.dumps(msg("u2", "a1", "user", "slow writer")) + "\n"
    append_line(path, line[:25])
    assert live.refresh() == []
    append_line(path, line[25:])
    assert appended_ids(live.refresh()) == ["u2"]
    assert live.session.bad_lines == []


def test_shrink_reloads_whole(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    before = live.generation
    data = path.read_bytes()
    with open(path, "r+b") as fh:
        fh.truncate(data.rindex(b"\n", 0, len(data) - 1) + 1)  # pi deleted the last entry
    (event,) = live.refresh()
    assert event.name == "replaced" and event.data["reason"] == "shrunk"
    assert live.generation != before and event.data["generation"] == live.generation
    assert [e["id"] for e in live.session.entries] == ["u1"]


def test_replace_by_rename_reloads_whole(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    temp = write_session(tmp_path / "s.jsonl.tmp", "s1", "/work/demo", msg("u9", "a1", "user", "rewritten"))
    os.replace(temp, path)
    (event,) = live.refresh()
    assert event.name == "replaced" and event.data["reason"] == "replaced"
    assert live.session.entries[-1]["id"] == "u9"


def test_same_length_first_line_rewrite_reloads_whole(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    lines = path.read_bytes().split(b"\n")
    first = lines[0].replace(b'"cwd": "/work/demo"', b'"cwd": "/work/dem0"')
    assert len(first) == len(lines[0])
    with open(path, "r+b") as fh:
        fh.write(first)
    (event,) = live.refresh()
    assert event.name == "replaced" and event.data["reason"] == "rewritten"
    assert live.session.cwd == "/work/dem0"


def test_label_added_later_relabels_its_target(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    append_line(path, entry("label", "l1", "a1", targetId="u1", label="start here"))
    (event,) = live.refresh()
    assert event.data["labels"] == {"u1": "start here"}


def test_tool_result_after_its_call(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    call = assistant("a2", "a1", "running")
    call["message"]["content"].append(
        {"type": "toolCall", "id": "call-1", "name": "bash", "arguments": {"command": "ls"}}
    )
    append_line(path, call)
    live.refresh()
    result = entry(
        "message",
        "r1",
        "a2",
        message={
            "role": "toolResult",
            "toolCallId": "call-1",
            "toolName": "bash",
            "content": [{"type": "text", "text": "file.txt"}],
        },
    )
    append_line(path, result)
    (event,) = live.refresh()
    meta, html, _ = event.data["entries"][0]
    assert meta["result"] == "call-1" and "file.txt" in html


def test_catch_up_sends_what_a_page_missed(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    snap = live.snapshot()
    append_line(path, msg("u2", "a1", "user", "while the page loaded"))
    live.refresh()
    (event,) = live.catch_up(snap.generation, snap.count)
    assert [item[0]["id"] for item in event.data["entries"]] == ["u2"]
    assert live.catch_up(snap.generation, snap.count + 1) == []
    (stale,) = live.catch_up("another-load", snap.count)
    assert stale.name == "replaced"


def test_snapshot_does_not_change_with_later_appends(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    snap = live.snapshot()
    append_line(path, msg("u2", "a1", "user"))
    live.refresh()
    assert len(snap.session.entries) == 2 and len(live.session.entries) == 3


def test_removed_file(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    path.unlink()
    (event,) = live.refresh()
    assert event.name == "removed"


def test_corrupt_appended_line_is_skipped_and_counted(tmp_path: Path) -> None:
    path, live = started(tmp_path)
    append_line(path, "{not json}\n")
    append_line(path, msg("u2", "a1", "user"))
    assert appended_ids(live.refresh()) == ["u2"]
    assert len(live.session.bad_lines) == 1
