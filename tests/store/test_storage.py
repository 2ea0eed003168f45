from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from sessiontree.store import FileSessionStorage, MemorySessionStorage, load_session
from sessiontree.store.storage import FileWriter, SessionStorage, SessionStorageWriter


@pytest.fixture(params=["file", "memory"])
def storage(request: pytest.FixtureRequest) -> SessionStorage:
    return FileSessionStorage() if request.param == "file" else MemorySessionStorage()


def test_sync_operations(storage: SessionStorage, tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b"
    storage.ensure_dir_sync(folder)
    assert storage.exists_sync(folder)
    path = folder / "s.jsonl"
    storage.write_text_sync(path, "héllo\nworld\n")
    assert storage.read_bytes_sync(path) == "héllo\nworld\n".encode()
    assert storage.stat_sync(path).size == len("héllo\nworld\n".encode()) and storage.stat_sync(path).is_file
    storage.write_text_sync(folder / "other.txt", "x")
    assert storage.list_files_sync(folder) == [path]
    assert storage.read_text_prefix_sync(path, 2) == "h"  # a cut multi-byte character is dropped
    storage.rename_sync(path, folder / "t.jsonl")
    assert not storage.exists_sync(path) and storage.exists_sync(folder / "t.jsonl")
    storage.unlink_sync(folder / "t.jsonl")
    storage.unlink_sync(folder / "t.jsonl")  # missing is fine
    assert storage.list_files_sync(folder) == []
    assert storage.list_files_sync(tmp_path / "nope") == []


def test_copy_tree_and_remove_tree(storage: SessionStorage, tmp_path: Path) -> None:
    source = tmp_path / "art"
    storage.ensure_dir_sync(source / "sub")
    storage.write_text_sync(source / "0.bash.log", "zero")
    storage.write_text_sync(source / "sub" / "1.read.log", "one")
    storage.copy_tree_sync(source, tmp_path / "copy")
    assert storage.read_bytes_sync(tmp_path / "copy" / "sub" / "1.read.log") == b"one"
    assert storage.read_bytes_sync(tmp_path / "copy" / "0.bash.log") == b"zero"
    with pytest.raises(FileExistsError):
        storage.copy_tree_sync(source, tmp_path / "copy")  # never merged into an existing folder
    storage.remove_tree_sync(tmp_path / "copy")
    assert not storage.exists_sync(tmp_path / "copy") and not storage.exists_sync(
        tmp_path / "copy" / "0.bash.log"
    )
    assert storage.read_bytes_sync(source / "0.bash.log") == b"zero"


def test_lock_yields_what_is_at_the_path(storage: SessionStorage, tmp_path: Path) -> None:
    storage.ensure_dir_sync(tmp_path)
    path = tmp_path / "s.jsonl"
    with storage.lock_sync(path) as missing:
        assert missing is None
    storage.write_text_sync(path, "abc\n")
    with storage.lock_sync(path) as mark:
        assert mark is not None and mark.size == 4 and mark.ino == storage.stat_sync(path).ino
    storage.write_text_sync(tmp_path / "t.jsonl", "replacement\n")
    storage.rename_sync(tmp_path / "t.jsonl", path)
    with storage.lock_sync(path) as replaced:
        assert replaced is not None and replaced.ino != mark.ino and replaced.size == 12
    assert storage.read_from_sync(path, 5) == b"cement\n"


def test_no_async_half_is_left() -> None:
    # Nothing awaited a file operation; the protocol keeps only what is called.
    for cls in (FileSessionStorage, MemorySessionStorage):
        assert not [name for name in vars(cls) if name in {"exists", "read_text", "open_writer", "rename"}]


def test_loader_uses_the_storage(tmp_path: Path) -> None:
    mem = MemorySessionStorage()
    path = tmp_path / "mem.jsonl"
    mem.write_text_sync(
        path, '{"type":"session","id":"s","version":3}\n{"type":"custom","id":"a","parentId":null}\n'
    )
    session = load_session(path, storage=mem)
    assert [e["id"] for e in session.entries] == ["a"]
    assert not path.exists()


def test_file_writer_keeps_first_error(tmp_path: Path) -> None:
    writer = FileWriter(tmp_path / "w.jsonl")
    assert isinstance(writer, SessionStorageWriter)
    writer.write_line("one")
    writer.fsync()
    os.close(writer._fh.fileno())  # type: ignore[union-attr]  # make the next flush fail for real
    with pytest.raises(OSError) as first:
        writer.write_line("two" * 10_000)
        writer.flush()
    assert first.value.errno == errno.EBADF
    assert writer.get_error() is first.value
    with pytest.raises(OSError) as again:
        writer.write_line("three")
    assert again.value is first.value
    with pytest.raises(OSError):
        writer.close()
    assert (tmp_path / "w.jsonl").read_text() == "one\n"


def test_file_lines_close_even_before_the_first_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"a\nb")
    lines = FileSessionStorage().iter_lines_sync(path)
    assert list(lines) == [b"a\n", b"b"]
    unread = FileSessionStorage().iter_lines_sync(path)
    unread.close()  # type: ignore[attr-defined]
    assert unread._fh.closed  # type: ignore[attr-defined]
    with pytest.raises(IsADirectoryError):
        FileSessionStorage().iter_lines_sync(tmp_path)
