"""Fault injection: a storage double whose writers fail (full disk, permission denied).

The double wraps the real filesystem, so what survives a failure is checked on real files.
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from sessiontree.errors import PersistError
from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager
from sessiontree.store.storage import FileSessionStorage, SessionStorageWriter


def os_error(code: int, path: Path) -> OSError:
    return OSError(code, os.strerror(code), str(path))


class FaultyWriter:
    """A real writer that fails once its storage's write budget is spent (half a line lands first)."""

    def __init__(self, storage: FaultyStorage, inner: SessionStorageWriter, path: Path) -> None:
        self.storage, self.inner, self.path = storage, inner, path

    def write_line(self, line: str) -> None:
        if self.storage.writes_left is not None:
            if self.storage.writes_left <= 0:
                with open(self.path, "ab") as fh:  # a full disk can cut a line short
                    fh.write(line.encode()[: len(line) // 2])
                raise os_error(self.storage.code, self.path)
            self.storage.writes_left -= 1
        self.inner.write_line(line)

    def flush(self) -> None:
        self.inner.flush()

    def fsync(self) -> None:
        if self.storage.fail_fsync:
            raise os_error(self.storage.code, self.path)
        self.inner.fsync()
        self.storage.fsyncs.append(self.path)

    def close(self) -> None:
        self.inner.close()
        if self.storage.fail_close:
            raise os_error(errno.EIO, self.path)

    def get_error(self) -> BaseException | None:
        return self.inner.get_error()


class FaultyStorage(FileSessionStorage):
    """The real filesystem with switchable failures."""

    def __init__(self) -> None:
        self.code = errno.ENOSPC
        self.writes_left: int | None = None
        self.fail_fsync = False
        self.fail_close = False
        self.fsyncs: list[Path] = []
        self.refuse_open: Callable[[Path], bool] = lambda path: False
        self.refuse_rename: Callable[[Path], bool] = lambda path: False

    def rename_sync(self, src: Path, dst: Path) -> None:
        if self.refuse_rename(Path(src)):
            raise os_error(errno.EXDEV, Path(src))
        super().rename_sync(src, dst)

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        if self.refuse_open(Path(path)):
            raise os_error(self.code, Path(path))
        return FaultyWriter(self, super().open_writer_sync(path), Path(path))


def user(text: str = "hi") -> dict[str, object]:
    return {"role": "user", "content": text}


def assistant(text: str = "ok") -> dict[str, object]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"}


def started(tmp_path: Path, storage: FaultyStorage) -> SessionManager:
    manager = SessionManager.create(
        tmp_path / "proj", tmp_path / "sessions", agent_dir=tmp_path / "agent", storage=storage
    )
    manager.append_message(user())
    manager.append_message(assistant())
    return manager


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_full_disk_on_append_is_sticky(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    storage.writes_left = 0
    with pytest.raises(PersistError, match="No space left on device") as first:
        manager.append_message(user("lost"))
    assert manager.persist_error is first.value
    later: list[Callable[[], object]] = [
        lambda: manager.append_message(user("again")),
        manager.flush,
        lambda: manager.set_session_name("x"),
        manager.rewrite_entries,
        manager.fork,
        manager.close,
    ]
    for operation in later:
        with pytest.raises(PersistError) as again:
            operation()
        assert again.value is first.value
    # Everything written before the failure still loads; the torn half line is reported, not fatal.
    assert manager.session_file is not None
    loaded = load_session(manager.session_file)
    assert [e["message"]["role"] for e in loaded.entries] == ["user", "assistant"]
    assert len(loaded.bad_lines) == 1


def test_permission_denied_on_first_flush_leaves_no_file(tmp_path: Path) -> None:
    storage = FaultyStorage()
    storage.code = errno.EACCES
    storage.refuse_open = lambda path: True
    manager = SessionManager.create(
        tmp_path / "proj", tmp_path / "sessions", agent_dir=tmp_path / "agent", storage=storage
    )
    manager.append_message(user())
    with pytest.raises(PersistError, match="Permission denied") as first:
        manager.append_message(assistant())
    assert manager.session_file is not None and not manager.session_file.exists()
    assert leftovers(tmp_path / "sessions") == []
    with pytest.raises(PersistError) as again:
        manager.append_message(user())
    assert again.value is first.value
    with pytest.raises(PersistError):
        manager.close()


def test_full_disk_during_rewrite_keeps_the_old_file_whole(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    manager.append_message(user("third"))
    manager.flush()
    assert manager.session_file is not None
    before = manager.session_file.read_bytes()
    storage.writes_left = 2  # the header and one entry fit; the rewrite dies on the next line
    with pytest.raises(PersistError, match="No space left on device"):
        manager.set_session_name("renamed")
    assert manager.session_file.read_bytes() == before
    assert leftovers(manager.session_file.parent) == []
    with pytest.raises(PersistError):
        manager.rewrite_entries()
    assert manager.session_file.read_bytes() == before
    with pytest.raises(PersistError):
        manager.close()


def test_failed_fsync_is_sticky(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    manager.append_message(user("more"))
    storage.fail_fsync = True
    with pytest.raises(PersistError, match="No space") as first:
        manager.flush()
    with pytest.raises(PersistError) as again:
        manager.append_message(user())
    assert again.value is first.value
    with pytest.raises(PersistError):
        manager.close()


def test_close_raises_the_first_error_not_the_close_error(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    manager.append_message(user("more"))
    storage.writes_left = 0
    with pytest.raises(PersistError, match="No space"):
        manager.append_message(user("fails"))
    storage.fail_close = True
    with pytest.raises(PersistError, match="No space"):
        manager.close()


def test_close_error_alone_is_reported(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    manager.append_message(user("more"))
    storage.fail_close = True
    with pytest.raises(PersistError, match="Input/output error"):
        manager.close()


def test_blob_store_failure_is_sticky_too(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "blobs").write_text("not a folder")  # the blob store cannot be created
    manager = SessionManager.create(tmp_path / "proj", tmp_path / "sessions", agent_dir=agent)
    manager.append_message(assistant())
    image = {"type": "image", "data": "QUJD" * 400, "mimeType": "image/png"}
    with pytest.raises(PersistError) as first:
        manager.append_message({"role": "user", "content": [image]})
    with pytest.raises(PersistError) as again:
        manager.flush()
    assert again.value is first.value
    with pytest.raises(PersistError):
        manager.close()


def test_flush_fsyncs_the_session_file_and_rewrites_fsync_their_temp(tmp_path: Path) -> None:
    storage = FaultyStorage()
    manager = SessionManager.create(
        tmp_path / "proj", tmp_path / "sessions", agent_dir=tmp_path / "agent", storage=storage, term="t"
    )
    sessions = tmp_path / "sessions"
    manager.append_message(user())
    manager.flush()
    assert [p for p in storage.fsyncs if p.parent == sessions] == [] and manager.session_file is not None
    manager.append_message(assistant())  # the whole session goes through a synced temp file
    assert [p.name.endswith(".tmp") for p in storage.fsyncs if p.parent == sessions] == [True]
    manager.append_message(user("incremental"))
    manager.flush()
    assert storage.fsyncs[-1] == manager.session_file
    manager.close()


def test_the_first_error_is_logged_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    storage = FaultyStorage()
    manager = started(tmp_path, storage)
    storage.writes_left = 0
    with caplog.at_level(logging.ERROR):
        for _ in range(3):
            with pytest.raises(PersistError):
                manager.append_message(user())
        with pytest.raises(PersistError):
            manager.close()
    failures = [r for r in caplog.records if "persistence failed" in r.getMessage()]
    assert len(failures) == 1 and str(manager.session_file) in failures[0].getMessage()
