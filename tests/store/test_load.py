from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest

from sessiontree.errors import InvalidSession, SessionNotFound
from sessiontree.store import load_session
from sessiontree.store.jsonl import session_to_jsonl
from tests.store.helpers import assistant, entry, header, msg, write_jsonl


def test_missing_file_gives_empty_session(tmp_path: Path) -> None:
    session = load_session(tmp_path / "nope.jsonl")
    assert session.is_empty and session.entries == [] and session.leaf_id is None
    with pytest.raises(SessionNotFound, match="File not found"):
        load_session(tmp_path / "nope.jsonl", strict=True)


def test_empty_file_and_bad_header_give_empty_session(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert load_session(empty).is_empty
    no_id = write_jsonl(tmp_path / "noid.jsonl", [{"type": "session"}, msg("a", None, "user")])
    assert load_session(no_id).is_empty
    not_header = write_jsonl(tmp_path / "nh.jsonl", [msg("a", None, "user"), header()])
    assert load_session(not_header).is_empty
    numeric_id = write_jsonl(tmp_path / "num.jsonl", [{"type": "session", "id": 5}])
    assert load_session(numeric_id).is_empty


def test_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidSession, match="is a directory"):
        load_session(tmp_path)


def test_bad_lines_skipped_with_line_numbers(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [header(), msg("a", None, "user"), "{not json", "", "42", assistant("b", "a"), '{"type": "mess'],
        trailing_newline=False,
    )
    session = load_session(path)
    assert [e["id"] for e in session.entries] == ["a", "b"]
    assert [(b.lineno, b.reason) for b in session.bad_lines] == [
        (3, "Expecting property name enclosed in double quotes"),
        (5, "not a JSON object"),
        (7, "incomplete last line (file still being written?)"),
    ]
    assert session.leaf_id == "b"


def test_bom_crlf_blank_lines_and_invalid_utf8(tmp_path: Path) -> None:
    lines = [
        json.dumps(header()),
        "",
        json.dumps(msg("a", None, "user", "caf\u00e9"), ensure_ascii=False),
        "  ",
    ]
    data = b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n"
    data = data.replace(b"caf\xc3\xa9", b"caf\xff")  # invalid UTF-8 inside a string
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    session = load_session(path)
    assert len(session.entries) == 1
    assert session.entries[0]["message"]["content"][0]["text"] == "caf\ufffd"


def test_loading_never_writes(tmp_path: Path, gen_session) -> None:  # type: ignore[no-untyped-def]
    source = gen_session(15, version=1)
    path = tmp_path / "legacy.jsonl"
    path.write_bytes(source.read_bytes())
    os.utime(path, (1_000_000, 1_000_000))
    before = path.read_bytes()
    session = load_session(path)
    assert session.migrations[:2] == ["v1->v2", "v2->v3"]
    assert path.read_bytes() == before
    assert path.stat().st_mtime == 1_000_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legacy.jsonl"]


def test_real_v1_fixture_loads_every_message(real_v1: Path) -> None:
    raw = [json.loads(line) for line in real_v1.read_text(encoding="utf-8").splitlines() if line.strip()]
    session = load_session(real_v1)
    assert session.version_found == 1 and session.header["version"] == 3
    assert session.migrations == ["v1->v2", "v2->v3", "model_change provider/modelId->model"]
    assert session.bad_lines == []
    assert len(session.entries) == len(raw) - 1
    # every message kept, in order, unchanged
    raw_messages = [line["message"] for line in raw[1:] if line["type"] == "message"]
    assert [e["message"] for e in session.entries if e["type"] == "message"] == raw_messages
    assert len(raw_messages) == 914
    # a linear chain
    ids = [e["id"] for e in session.entries]
    assert len(set(ids)) == len(ids)
    assert [e["parentId"] for e in session.entries] == [None, *ids[:-1]]
    assert len(session.tree.path_ids(session.leaf_id)) == len(ids)
    model_change = next(e for e in session.entries if e["type"] == "model_change")
    assert model_change["model"] == "anthropic/claude-sonnet-4-5" and "modelId" not in model_change
    # ids are stable across loads, so links into an export of a v1 file keep working
    assert [e["id"] for e in load_session(real_v1).entries] == ids


def test_generated_v3_round_trips_line_for_line(gen_session) -> None:  # type: ignore[no-untyped-def]
    path = gen_session(60)
    session = load_session(path)
    assert session.migrations == [] and session.version_found == 3
    original = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    written = [json.loads(line) for line in session_to_jsonl(session).splitlines()]
    assert written == original


def test_unknown_types_roles_and_fields_are_kept(tmp_path: Path) -> None:
    weird = entry("future_thing", "c", "b", payload={"deep": [1, {"x": None}]}, extra=True)
    odd_msg = msg("d", "c", "narrator", "once upon", mood="calm")
    lines = [header(extraHeaderField=1), msg("a", None, "user"), assistant("b", "a"), weird, odd_msg]
    path = write_jsonl(tmp_path / "s.jsonl", lines)
    session = load_session(path)
    assert session.entries[2] == weird and session.entries[3] == odd_msg
    assert [json.loads(x) for x in session_to_jsonl(session).splitlines()] == lines


def test_blob_refs_rehydrated_and_missing_blob_kept(tmp_path: Path) -> None:
    raw = b"\x89PNG fake image bytes" * 100
    digest = hashlib.sha256(raw).hexdigest()
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / digest).write_bytes(raw)
    missing_ref = "blob:sha256:" + "0" * 64
    user = msg("a", None, "user")
    user["message"]["content"].append(
        {"type": "image", "data": f"blob:sha256:{digest}", "mimeType": "image/png"}
    )
    custom = entry(
        "custom_message", "b", "a", customType="x", display=True,
        content=[{"type": "image", "data": missing_ref, "mimeType": "image/png"}],
    )  # fmt: skip
    path = write_jsonl(tmp_path / "s.jsonl", [header(), user, custom])
    session = load_session(path)  # finds the sibling blobs/ folder
    assert session.entries[0]["message"]["content"][1]["data"] == base64.b64encode(raw).decode()
    assert session.entries[1]["content"][0]["data"] == missing_ref
    assert session.missing_blobs == [missing_ref]


def test_generated_session_with_blob_store(gen_session) -> None:  # type: ignore[no-untyped-def]
    path = gen_session(30, blobs=True)
    assert "blob:sha256:" in path.read_text()
    session = load_session(path)
    assert session.missing_blobs == []
    images = [
        b
        for e in session.entries
        if e["type"] == "message"
        for b in e["message"]["content"]
        if isinstance(b, dict) and b.get("type") == "image"
    ]
    assert images and all(base64.b64decode(b["data"]).startswith(b"\x89PNG") for b in images)
    # an explicit blobs_dir elsewhere: the references stay and are reported
    other = load_session(path, blobs_dir=path.parent / "nowhere")
    assert len(other.missing_blobs) == len(images)


def test_streamed_and_in_memory_parsing_agree(tmp_path: Path, gen_session) -> None:  # type: ignore[no-untyped-def]
    from sessiontree.store import MemorySessionStorage, parse_session_text

    data = gen_session(20).read_bytes().replace(b"\n", b"\r\n", 3) + b'{"type":"mess'
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    mem = MemorySessionStorage()
    mem.files[path] = data
    streamed, in_memory = load_session(path), load_session(path, storage=mem)
    text = parse_session_text(data.decode())
    assert streamed.entries == in_memory.entries == text.entries
    assert streamed.bad_lines == in_memory.bad_lines == text.bad_lines
    assert streamed.bad_lines[-1].reason.startswith("incomplete last line")
