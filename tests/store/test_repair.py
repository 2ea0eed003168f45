"""Damaged files repaired in memory: raced lines, lost parents, excerpts, lines read mid-write."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.exporter.text import format_session_as_text
from sessiontree.store import load_session, parse_session_text
from sessiontree.store.jsonl import INCOMPLETE, complete_lines, decode_lines, parse_jsonl_lines
from sessiontree.store.storage import FileLines, FileSessionStorage
from tests.store.helpers import assistant, header, msg, write_jsonl

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def line(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def test_a_line_holding_two_objects_yields_both(tmp_path: Path) -> None:
    path = tmp_path / "raced.jsonl"
    path.write_text(
        line(header())
        + "\n"
        + line(msg("a", None, "user"))
        + line(assistant("b", "a"))
        + "\n"
        + line(msg("c", "b", "user", "next"))
        + "\n"
    )
    session = load_session(path)
    assert [e["id"] for e in session.entries] == ["a", "b", "c"]
    assert session.bad_lines == []
    assert [(r.lineno, r.kind) for r in session.repairs] == [(2, "split")]
    assert session.tree.path_ids("c") == ["a", "b", "c"]


def test_a_lost_line_keeps_the_history_before_it_on_the_active_path() -> None:
    path = FIXTURES / "damaged-lost-line.jsonl"
    before = path.read_bytes()
    session = load_session(path)
    assert [b.lineno for b in session.bad_lines] == [4]
    # u2 was on the unreadable line; a2 (its child) is attached to a1, the entry before it
    assert session.tree.roots == ["u1"]
    assert session.tree.path_ids(session.leaf_id) == ["u1", "a1", "a2", "u3", "a3", "u4"]
    assert session.joints == {"a2": "1 unreadable line lost here"}
    assert {r.kind for r in session.repairs} == {"split", "reattached"}
    text = format_session_as_text(session)
    for prompt in ("First prompt", "Third prompt", "Fourth prompt"):
        assert prompt in text
    joint = text.index("[1 unreadable line lost here")
    assert text.index("First answer") < joint < text.index("Second answer")
    assert text.count("lost here") == 1
    assert path.read_bytes() == before


def test_children_of_one_lost_entry_stay_siblings(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            header(),
            msg("a", None, "user"),
            "{broken",
            assistant("c", "lost"),
            assistant("d", "lost"),
            msg("e", "d", "user"),
        ],
    )
    session = load_session(path)
    assert session.tree.children_of("a") == ["c", "d"]
    assert session.tree.roots == ["a"]


def test_the_manager_view_of_a_file_is_not_repaired() -> None:
    # Writers (the manager) parse without repairs: they must never write a guessed parent.
    session = parse_session_text((FIXTURES / "damaged-lost-line.jsonl").read_text())
    assert next(e for e in session.entries if e["id"] == "a2")["parentId"] == "u2"


def test_an_excerpt_loads_with_a_synthesised_header() -> None:
    path = FIXTURES / "2026-03-01T10-00-00-000Z_excerpt-0001.jsonl"
    session = load_session(path)
    assert not session.is_empty
    assert session.id == "excerpt-0001"
    assert session.timestamp == "2026-03-01T10:01:00.000Z"
    assert [e["id"] for e in session.entries] == ["u1", "a1"]
    assert [r.kind for r in session.repairs] == ["header"]
    assert parse_session_text(path.read_text()).is_empty  # writers never adopt it


def test_a_file_of_non_entries_is_still_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text('{"name": "x"}\n{"type": "message"}\n')
    assert load_session(path).is_empty


class GrowingStorage(FileSessionStorage):
    """Real file reads; when the reader meets end of file mid-line, the writer finishes the line."""

    def __init__(self, rest: bytes) -> None:
        self.rest = rest
        self.pieces: list[bytes] = []

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        return self._lines(path)

    def _lines(self, path: Path) -> Iterator[bytes]:
        for piece in FileLines(open(path, "rb")):  # noqa: SIM115 (FileLines closes it)
            self.pieces.append(piece)
            if not piece.endswith(b"\n") and self.rest:
                with open(path, "ab") as writer:  # the agent appends the rest of its line
                    writer.write(self.rest)
                    writer.flush()
                    os.fsync(writer.fileno())
                self.rest = b""
            yield piece


def test_a_line_read_while_it_is_written_is_one_entry_not_two_bad_lines(tmp_path: Path) -> None:
    """Regression (issue 16): EOF in the middle of a line being written, the rest read as a line."""
    entry = line(assistant("b", "a", "a long answer " * 2000)).encode() + b"\n"
    path = tmp_path / "live.jsonl"
    cut = len(entry) // 2
    path.write_bytes((line(header()) + "\n" + line(msg("a", None, "user")) + "\n").encode() + entry[:cut])
    storage = GrowingStorage(entry[cut:])
    session = load_session(path, storage=storage)
    assert any(not p.endswith(b"\n") for p in storage.pieces[:-1])  # the file did grow mid-line
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert session.bad_lines == []


def test_only_what_follows_the_last_newline_is_incomplete() -> None:
    pieces = [b'{"type":"session","id":"s"}\n', b'{"a":', b"1}\n", b'{"type":"mess']
    assert list(complete_lines(pieces)) == [pieces[0], b'{"a":1}\n', b'{"type":"mess']
    values, bad = parse_jsonl_lines(decode_lines(pieces))
    assert [v for _, v in values] == [{"type": "session", "id": "s"}, {"a": 1}]
    assert [(b.lineno, b.reason) for b in bad] == [(3, INCOMPLETE)]


# --- property: raced and deleted lines ---------------------------------------------------------


@st.composite
def damaged_sessions(draw: st.DrawFn) -> tuple[list[dict], str, set[str]]:  # type: ignore[type-arg]
    count = draw(st.integers(2, 14))
    entries: list[dict] = []  # type: ignore[type-arg]
    for index in range(count):
        parent = None if index == 0 else entries[draw(st.integers(0, index - 1))]["id"]
        make = assistant if index % 2 else (lambda i, p: msg(i, p, "user"))
        entries.append(make(f"e{index}", parent))
    lines = [line(header()), *(line(e) for e in entries)]
    deleted: set[str] = set()
    if draw(st.booleans()):
        gone = draw(st.integers(1, len(lines) - 1))
        deleted.add(entries[gone - 1]["id"])
        del lines[gone]
    joins = draw(st.sets(st.integers(0, len(lines) - 2)))
    text = "".join(ln + ("" if i in joins else "\n") for i, ln in enumerate(lines))
    return entries, text, deleted


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=damaged_sessions())
def test_raced_or_deleted_lines_keep_every_entry_in_one_tree(tmp_path: Path, case) -> None:  # type: ignore[no-untyped-def]
    entries, text, deleted = case
    path = tmp_path / "s.jsonl"
    path.write_text(text)
    session = load_session(path)
    assert session.bad_lines == []
    assert [e["id"] for e in session.entries] == [e["id"] for e in entries if e["id"] not in deleted]
    tree = session.tree
    assert len(tree.roots) == 1
    reachable, todo = 0, list(tree.roots)
    while todo:
        node = todo.pop()
        reachable += 1
        todo.extend(tree.children_of(node))
    assert reachable == len(session.entries)
    # entries whose parent survived keep it
    kept = {e["id"]: e["parentId"] for e in entries}
    for entry in session.entries:
        if kept[entry["id"]] not in deleted:
            assert entry["parentId"] == kept[entry["id"]]
