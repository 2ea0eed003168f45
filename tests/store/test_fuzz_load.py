"""Mutated session files: the loader neither raises nor hangs, and keeps every intact line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sessiontree.store import load_session
from sessiontree.store.contain import contain_fields, replace_surrogates_deep
from sessiontree.store.numbers import constant_from_json, float_from_json, int_from_json
from sessiontree.store.summary import summarize_session
from tests.store.helpers import assistant, entry, header, msg

BASE = [
    header(),
    msg("a", None, "user", "hello ü"),
    assistant("b", "a"),
    entry("label", "c", "b", targetId="a", label="start"),
    msg("d", "b", "user", "branch"),
    entry("compaction", "e", "d", summary="S", firstKeptEntryId="b", tokensBefore=3),
    assistant("f", "e"),
    entry("branch_summary", "g", "a", fromId="f", summary="left"),
]


@st.composite
def mutated_files(draw: st.DrawFn) -> bytes:
    lines = [json.loads(json.dumps(x)) for x in BASE]
    ids = [x["id"] for x in lines[1:]]
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["dup", "cycle", "self", "orphan"]))
        target = draw(st.integers(1, len(lines) - 1))
        if kind == "dup":
            lines.insert(draw(st.integers(1, len(lines))), dict(lines[target]))
        elif kind == "cycle":
            lines[target]["parentId"] = draw(st.sampled_from(ids))
        elif kind == "self":
            lines[target]["parentId"] = lines[target]["id"]
        else:
            lines[target]["parentId"] = "missing!"
    data = bytearray("\n".join(json.dumps(x, ensure_ascii=False) for x in lines).encode() + b"\n")
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["flip", "cut", "truncate", "crlf", "junk"]))
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if op == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            end = min(len(data), pos + draw(st.integers(1, 40)))
            del data[pos:end]
        elif op == "truncate":
            del data[pos:]
        elif op == "crlf":
            data[:] = data.replace(b"\n", b"\r\n")
        else:
            data[pos:pos] = draw(st.binary(max_size=20))
    return bytes(data)


def intact_objects(data: bytes) -> list[dict]:  # type: ignore[type-arg]
    """Every JSON object the lines hold, several on a line included (two writers racing), as the
    reading boundary contains them (numbers clamped, lone surrogates replaced, naming fields of
    the wrong type absent: tests/store/test_contain.py holds those rules)."""
    decoder = json.JSONDecoder(
        parse_int=int_from_json, parse_float=float_from_json, parse_constant=constant_from_json
    )
    out = []
    for line in data.decode("utf-8-sig", errors="replace").split("\n"):
        pos, line = 0, line.strip()
        while pos < len(line):
            try:
                value, pos = decoder.raw_decode(line, pos)
            except ValueError:
                break
            if isinstance(value, dict):
                out.append(contain_fields(replace_surrogates_deep(value)))
            while pos < len(line) and line[pos].isspace():
                pos += 1
    return out


def without_repaired_parents(entries: list[dict], reattached: dict[str, str]) -> list[dict]:  # type: ignore[type-arg]
    return [{k: v for k, v in e.items() if k != "parentId" or e.get("id") not in reattached} for e in entries]


@pytest.mark.timeout(120)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated_files())
# a role of the wrong type (a list) is absent after loading, as the reading boundary contains it
@example(
    data=b'{"type": "session", "id": "0123456789abcdef", "version": 3, "cwd": "/w"}\n'
    b'{"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": "hi"}}\n'
    b'{"type": "message", "id": "d", "parentId": "a", "message": {"role": [{"type": "text"}]}}\n'
)
# a newline flipped into a vertical tab joins two whole lines; whitespace JSON does not know leads one
@example(
    data=b'{"type": "session", "id": "0123456789abcdef", "version": 3, "cwd": "/w"}\n'
    b'{"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": "hi"}}\x0b'
    b'{"type": "message", "id": "b", "parentId": "a", "message": {"role": "user", "content": "yo"}}\n'
    b'\x0c{"type": "message", "id": "c", "parentId": "b", "message": {"role": "user", "content": "so"}}\n'
)
# junk that parses as a number before the header: the header after it is read
@example(
    data=b'0{"type": "session", "id": "0123456789abcdef", "version": 3, "cwd": "/w"}\n'
    b'{"type": "message", "id": "a", "parentId": null, "message": {"role": "user", "content": "hi"}}\n'
)
def test_mutated_files_load_without_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(data)
    session = load_session(path, blobs_dir=tmp_path / "none")
    summarize_session(session)
    for entry_id in session.tree.order:
        session.context(entry_id)
        session.tree.path_ids(entry_id)
    objects = intact_objects(data)
    if session.is_empty:
        assert not objects or objects[0].get("type") != "session" or not isinstance(objects[0].get("id"), str)
        return
    if any(r.kind == "header" for r in session.repairs):
        objects.insert(0, {})  # an excerpt: the header was synthesised
    # every intact line after the header is kept, in order (a flipped version number may migrate them)
    assert len(session.entries) == len(objects) - 1
    if not session.migrations:
        assert without_repaired_parents(session.entries, session.joints) == without_repaired_parents(
            objects[1:], session.joints
        )
    visited = sum(len(session.tree.children_of(i)) for i in [None, *session.tree.order])
    assert visited == len(session.tree)  # every entry is reachable exactly once
