"""prepare-for-persistence, the NDJSON writer and atomic rewrites, on real files."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from sessiontree.errors import PersistError
from sessiontree.store.atomic import remove_stale_temps, temp_path_for
from sessiontree.store.blobs import BlobStore
from sessiontree.store.persist import (
    MAX_PERSIST_CHARS,
    TRUNCATION_NOTICE,
    NdjsonWriter,
    prepare_entry_for_persistence,
    rewrite_atomically,
    to_line,
    truncate_string,
)
from sessiontree.store.storage import FileSessionStorage
from tests.store.helpers import dead_pid


def image_block(n_bytes: int) -> dict[str, Any]:
    raw = bytes(range(256)) * (n_bytes // 256 + 1)
    return {"type": "image", "data": base64.b64encode(raw[:n_bytes]).decode(), "mimeType": "image/png"}


def test_long_string_is_cut_to_the_limit_with_the_notice() -> None:
    text = "x" * (MAX_PERSIST_CHARS + 10)
    cut = truncate_string(text)
    assert len(cut) == MAX_PERSIST_CHARS
    assert cut.endswith("[Session persistence truncated large content]")
    assert cut.startswith("x" * 1000)


def test_string_at_the_limit_is_kept() -> None:
    text = "y" * MAX_PERSIST_CHARS
    assert truncate_string(text) is text


def test_nested_strings_are_cut_and_the_entry_is_not_modified() -> None:
    big = "z" * (MAX_PERSIST_CHARS * 2)
    entry = {
        "type": "message",
        "id": "a",
        "message": {"role": "toolResult", "content": [{"type": "text", "text": big}]},
    }
    before = copy.deepcopy(entry)
    out = prepare_entry_for_persistence(entry)
    assert entry == before
    text = out["message"]["content"][0]["text"]
    assert len(text) == MAX_PERSIST_CHARS and text.endswith(TRUNCATION_NOTICE)


def test_unchanged_entry_is_returned_as_is() -> None:
    entry = {"type": "message", "id": "a", "message": {"role": "user", "content": "short"}}
    assert prepare_entry_for_persistence(entry) is entry


def test_transient_fields_are_dropped_at_any_depth() -> None:
    entry = {
        "type": "message",
        "partialJson": "{",
        "message": {"role": "assistant", "content": [{"type": "toolCall", "partialJson": '{"a', "id": "t"}]},
        "details": {"jsonlEvents": [1, 2], "keep": True},
    }
    out = prepare_entry_for_persistence(entry)
    dumped = json.dumps(out)
    assert "partialJson" not in dumped and "jsonlEvents" not in dumped
    assert out["details"] == {"keep": True}
    assert out["message"]["content"][0] == {"type": "toolCall", "id": "t"}
    assert "partialJson" in entry  # the caller's entry keeps them


def test_line_count_is_recomputed_after_truncation() -> None:
    content = "line\n" * (MAX_PERSIST_CHARS // 2)
    entry = {"details": {"content": content, "lineCount": content.count("\n") + 1}}
    out = prepare_entry_for_persistence(entry)
    stored = out["details"]["content"]
    assert out["details"]["lineCount"] == stored.count("\n") + 1
    assert out["details"]["lineCount"] < entry["details"]["lineCount"]


def test_line_count_is_left_alone_without_truncation() -> None:
    entry = {"details": {"content": "a\nb", "lineCount": 99}}
    assert prepare_entry_for_persistence(entry)["details"]["lineCount"] == 99


def test_large_images_move_to_the_blob_store(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs")
    big, small = image_block(2000), image_block(600)
    assert len(big["data"]) >= 1024 > len(small["data"])
    entry: dict[str, Any] = {"type": "message", "message": {"role": "user", "content": [big, small]}}
    out = prepare_entry_for_persistence(entry, store)
    ref = out["message"]["content"][0]["data"]
    digest = hashlib.sha256(base64.b64decode(big["data"])).hexdigest()
    assert ref == f"blob:sha256:{digest}"
    assert (tmp_path / "blobs" / digest).read_bytes() == base64.b64decode(big["data"])
    assert out["message"]["content"][1]["data"] == small["data"]
    assert entry["message"]["content"][0]["data"] == big["data"]  # memory keeps the inline image


def test_image_data_at_the_threshold_is_externalised(tmp_path: Path) -> None:
    block = image_block(768)  # 768 bytes -> exactly 1024 base64 chars
    assert len(block["data"]) == 1024
    out = prepare_entry_for_persistence({"content": [block]}, BlobStore(tmp_path))
    assert out["content"][0]["data"].startswith("blob:sha256:")


def test_line_is_compact_json_on_one_line() -> None:
    line = to_line({"type": "message", "text": "caffè\nnext"})
    assert "\n" not in line
    assert json.loads(line) == {"type": "message", "text": "caffè\nnext"}
    assert "caffè" in line


def test_rewrite_replaces_the_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_text("old\n")
    rewrite_atomically(FileSessionStorage(), target, ["a", "b"])
    assert target.read_text() == "a\nb\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_rewrite_creates_missing_folders(tmp_path: Path) -> None:
    target = tmp_path / "x" / "y" / "s.jsonl"
    rewrite_atomically(FileSessionStorage(), target, ["only"])
    assert target.read_text() == "only\n"


def test_failed_rewrite_keeps_the_old_file_and_removes_the_temp(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_text("keep me\n")

    def lines() -> Any:
        yield "first"
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        rewrite_atomically(FileSessionStorage(), target, lines())
    assert target.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_writer_appends_in_order_and_syncs(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    writer = NdjsonWriter(FileSessionStorage(), target)
    writer.append(["1", "2"])
    writer.append(["3"])
    assert target.read_text() == "1\n2\n3\n"  # on the OS side already, before sync/close
    writer.sync()
    writer.close()
    assert writer.error is None


def test_writer_repairs_a_torn_last_line(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_text('{"ok":1}\n{"torn":')
    writer = NdjsonWriter(FileSessionStorage(), target, repair_tail=True)
    writer.append(['{"next":2}'])
    writer.close()
    assert target.read_text().splitlines()[-1] == '{"next":2}'


def test_writer_after_close_refuses(tmp_path: Path) -> None:
    writer = NdjsonWriter(FileSessionStorage(), tmp_path / "s.jsonl")
    writer.close()
    with pytest.raises(PersistError, match="closed"):
        writer.append(["x"])


def test_writer_open_failure_is_a_persist_error(tmp_path: Path) -> None:
    with pytest.raises(PersistError, match="Cannot write session file"):
        NdjsonWriter(FileSessionStorage(), tmp_path / "missing-dir" / "s.jsonl")


def test_lone_surrogates_are_escaped_not_fatal(tmp_path: Path) -> None:
    entry = {"type": "message", "text": "half a pair: \ud83d and é"}
    line = to_line(entry)
    line.encode("utf-8")  # writable as UTF-8
    assert json.loads(line) == entry


def test_rewrite_keeps_the_file_mode(tmp_path: Path) -> None:
    target = tmp_path / "private.jsonl"
    target.write_text("secret\n")
    target.chmod(0o600)
    rewrite_atomically(FileSessionStorage(), target, ["still secret"])
    assert target.stat().st_mode & 0o777 == 0o600 and target.read_text() == "still secret\n"


def test_stale_temp_files_of_dead_writers_are_removed(tmp_path: Path) -> None:
    target = tmp_path / "s.jsonl"
    target.write_text("x\n")
    dead = dead_pid()
    dead_tmp = tmp_path / f".s.jsonl.sessiontree-{dead}-0123abcd.tmp"
    live_tmp = tmp_path / f".s.jsonl.sessiontree-{os.getpid()}-89abcdef.tmp"
    other = tmp_path / f".other.jsonl.sessiontree-{dead}-0123abcd.tmp"  # a fork's copy cut short
    not_ours = tmp_path / f".s.jsonl.{dead}.0123abcd.tmp"
    for path in (dead_tmp, live_tmp, other, not_ours):
        path.write_text("partial")
    half_copy = tmp_path / f".2026-01-01_abc.sessiontree-{dead}-00ff00ff.tmp"  # artifact folder copy
    (half_copy / "sub").mkdir(parents=True)
    (half_copy / "sub" / "0.bash.log").write_text("half")
    removed = remove_stale_temps(tmp_path)
    assert removed == sorted([dead_tmp, other, half_copy])
    assert not dead_tmp.exists() and not other.exists() and not half_copy.exists()
    assert live_tmp.exists() and not_ours.exists() and target.read_text() == "x\n"
    assert temp_path_for(target).name.startswith(f".s.jsonl.sessiontree-{os.getpid()}-")
