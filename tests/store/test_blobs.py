from __future__ import annotations

import base64
import hashlib
from pathlib import Path
from typing import Any

import pytest

from sessiontree.store.blobs import (
    BLOB_EXTERNALIZE_THRESHOLD,
    BlobStore,
    externalize_image_blocks,
    is_blob_ref,
    resolve_blob_refs_in_entries,
)


def test_put_get_by_sha256_idempotent(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs")
    data = b"some bytes \x00\xff"
    put = store.put(data)
    digest = hashlib.sha256(data).hexdigest()
    assert (
        put.hash == digest and put.ref == f"blob:sha256:{digest}" and put.path == tmp_path / "blobs" / digest
    )
    assert put.path.read_bytes() == data
    mtime = put.path.stat().st_mtime_ns
    assert store.put(data) == put and put.path.stat().st_mtime_ns == mtime
    assert store.get(digest) == data and store.has(digest)
    assert store.get("0" * 64) is None and not store.has("0" * 64)
    assert [p.name for p in (tmp_path / "blobs").iterdir()] == [digest]  # no temp files left


def test_digest_must_be_hex(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    assert store.get("../../etc/passwd") is None
    with pytest.raises(ValueError):
        store.path_for("../x")
    assert not is_blob_ref("blob:sha256:../../" + "a" * 58)
    assert is_blob_ref("blob:sha256:" + "a" * 64)


def test_externalize_threshold_and_refs(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    raw = bytes(range(256)) * 4
    big = base64.b64encode(raw).decode()
    small = base64.b64encode(b"tiny").decode()
    assert len(big) >= BLOB_EXTERNALIZE_THRESHOLD > len(small)
    exact = "A" * BLOB_EXTERNALIZE_THRESHOLD  # valid base64, exactly at the threshold
    ref = "blob:sha256:" + "b" * 64
    content = [
        {"type": "text", "text": big},
        {"type": "image", "data": big, "mimeType": "image/png"},
        {"type": "image", "data": small, "mimeType": "image/png"},
        {"type": "image", "data": exact, "mimeType": "image/png"},
        {"type": "image", "data": ref, "mimeType": "image/png"},
        {"type": "image", "data": "!" * 2000, "mimeType": "image/png"},
    ]
    out = externalize_image_blocks(content, store)
    assert isinstance(out, list)
    assert out[0] == content[0] and out[2] == content[2] and out[4] == content[4] and out[5] == content[5]
    assert out[1] == {
        "type": "image",
        "data": "blob:sha256:" + hashlib.sha256(raw).hexdigest(),
        "mimeType": "image/png",
    }
    assert is_blob_ref(out[3]["data"])
    assert content[1]["data"] == big  # the input is not modified
    assert externalize_image_blocks("plain string", store) == "plain string"


def test_resolve_round_trip(tmp_path: Path) -> None:
    store = BlobStore(tmp_path)
    raw = b"\x89PNG" + bytes(2000)
    data = base64.b64encode(raw).decode()
    content = externalize_image_blocks([{"type": "image", "data": data, "mimeType": "image/png"}], store)
    entries: list[dict[str, Any]] = [
        {"type": "message", "message": {"role": "toolResult", "content": content}},
        {"type": "custom_message", "content": [{"type": "image", "data": "blob:sha256:" + "c" * 64}]},
        {"type": "compaction", "content": [{"type": "image", "data": "blob:sha256:" + "d" * 64}]},
    ]
    missing = resolve_blob_refs_in_entries(entries, [BlobStore(tmp_path / "empty"), store])
    assert entries[0]["message"]["content"][0]["data"] == data
    assert missing == ["blob:sha256:" + "c" * 64]  # compaction content is not an image carrier
