"""Storage abstractions: every filesystem operation the session code uses, real or in memory.

Each operation has a sync form and an async form (the async one runs the sync one in a thread
for real files), as the spec's SessionStorage interface lists them.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from sessiontree.store.jsonl import split_keeping_newlines


@dataclass(frozen=True, slots=True)
class FileStat:
    """What callers need of a stat: size in bytes, modification time, regular file or not."""

    size: int
    mtime: float
    is_file: bool


@runtime_checkable
class SessionStorageWriter(Protocol):
    """An append-only line writer; the first error is kept and raised again."""

    def write_line(self, line: str) -> None: ...
    def flush(self) -> None: ...
    def fsync(self) -> None: ...
    def close(self) -> None: ...
    def get_error(self) -> BaseException | None: ...


@runtime_checkable
class SessionStorage(Protocol):
    """The filesystem as the session manager and loader see it."""

    def ensure_dir_sync(self, path: Path) -> None: ...
    def exists_sync(self, path: Path) -> bool: ...
    def write_text_sync(self, path: Path, text: str) -> None: ...
    def stat_sync(self, path: Path) -> FileStat: ...
    def list_files_sync(self, directory: Path, suffix: str = ".jsonl") -> list[Path]: ...
    def read_bytes_sync(self, path: Path) -> bytes: ...
    def iter_lines_sync(self, path: Path) -> Iterator[bytes]: ...
    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str: ...
    def rename_sync(self, src: Path, dst: Path) -> None: ...
    def unlink_sync(self, path: Path) -> None: ...
    def open_writer_sync(self, path: Path) -> SessionStorageWriter: ...

    async def exists(self, path: Path) -> bool: ...
    async def read_text(self, path: Path) -> str: ...
    async def read_text_prefix(self, path: Path, max_bytes: int) -> str: ...
    async def write_text(self, path: Path, text: str) -> None: ...
    async def rename(self, src: Path, dst: Path) -> None: ...
    async def unlink(self, path: Path) -> None: ...
    async def open_writer(self, path: Path) -> SessionStorageWriter: ...


class _AsyncFromSync:
    """Async operations derived from the sync ones."""

    def exists_sync(self, path: Path) -> bool:
        raise NotImplementedError

    def read_bytes_sync(self, path: Path) -> bytes:
        raise NotImplementedError

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        raise NotImplementedError

    def write_text_sync(self, path: Path, text: str) -> None:
        raise NotImplementedError

    def rename_sync(self, src: Path, dst: Path) -> None:
        raise NotImplementedError

    def unlink_sync(self, path: Path) -> None:
        raise NotImplementedError

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        raise NotImplementedError

    async def exists(self, path: Path) -> bool:
        return await asyncio.to_thread(self.exists_sync, path)

    async def read_text(self, path: Path) -> str:
        data = await asyncio.to_thread(self.read_bytes_sync, path)
        return data.decode("utf-8", errors="replace")

    async def read_text_prefix(self, path: Path, max_bytes: int) -> str:
        return await asyncio.to_thread(self.read_text_prefix_sync, path, max_bytes)

    async def write_text(self, path: Path, text: str) -> None:
        await asyncio.to_thread(self.write_text_sync, path, text)

    async def rename(self, src: Path, dst: Path) -> None:
        await asyncio.to_thread(self.rename_sync, src, dst)

    async def unlink(self, path: Path) -> None:
        await asyncio.to_thread(self.unlink_sync, path)

    async def open_writer(self, path: Path) -> SessionStorageWriter:
        return await asyncio.to_thread(self.open_writer_sync, path)


class FileLines:
    """The lines of an open file, closed when exhausted or by ``close()`` (even before the first line)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh

    def __iter__(self) -> FileLines:
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._fh)
        except StopIteration:
            self._fh.close()
            raise

    def close(self) -> None:
        self._fh.close()


def _decode_prefix(data: bytes) -> str:
    # A prefix may end inside a multi-byte character: drop the partial tail, not the whole read.
    return data.decode("utf-8", errors="ignore") if data else ""


class FileWriter:
    """Appends lines to a real file; keeps the first error and raises it again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._fh: IO[bytes] | None = open(path, "ab")  # noqa: SIM115 - closed by close()

    def _check(self) -> IO[bytes]:
        if self._error is not None:
            raise self._error
        if self._fh is None:
            raise ValueError(f"writer for {self.path} is closed")
        return self._fh

    def _run(self, action: str, data: bytes = b"") -> None:
        with self._lock:
            fh = self._check()
            try:
                if action == "write":
                    fh.write(data)
                elif action == "flush":
                    fh.flush()
                else:
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                self._error = exc
                raise

    def write_line(self, line: str) -> None:
        self._run("write", line.encode("utf-8") + b"\n")

    def flush(self) -> None:
        self._run("flush")

    def fsync(self) -> None:
        self._run("fsync")

    def close(self) -> None:
        with self._lock:
            fh, self._fh = self._fh, None
            if fh is None:
                return
            try:
                fh.close()
            except OSError as exc:
                self._error = self._error or exc
        if self._error is not None:
            raise self._error

    def get_error(self) -> BaseException | None:
        return self._error


class FileSessionStorage(_AsyncFromSync):
    """The real filesystem."""

    def ensure_dir_sync(self, path: Path) -> None:
        Path(path).mkdir(parents=True, exist_ok=True)

    def exists_sync(self, path: Path) -> bool:
        return Path(path).exists()

    def write_text_sync(self, path: Path, text: str) -> None:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())

    def stat_sync(self, path: Path) -> FileStat:
        st = os.stat(path)
        return FileStat(st.st_size, st.st_mtime, Path(path).is_file())

    def list_files_sync(self, directory: Path, suffix: str = ".jsonl") -> list[Path]:
        try:
            with os.scandir(directory) as it:
                return sorted(Path(e.path) for e in it if e.name.endswith(suffix) and e.is_file())
        except (FileNotFoundError, NotADirectoryError):
            return []

    def read_bytes_sync(self, path: Path) -> bytes:
        return Path(path).read_bytes()

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        """Open now (so errors raise here) and yield the lines, each with its ``\\n``."""
        return FileLines(open(path, "rb"))  # closed when exhausted or by close()

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        with open(path, "rb") as fh:
            return _decode_prefix(fh.read(max_bytes))

    def rename_sync(self, src: Path, dst: Path) -> None:
        os.replace(src, dst)

    def unlink_sync(self, path: Path) -> None:
        Path(path).unlink(missing_ok=True)

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        return FileWriter(Path(path))


class MemoryWriter:
    """Appends lines to a MemorySessionStorage file."""

    def __init__(self, storage: MemorySessionStorage, path: Path) -> None:
        self._storage, self._path = storage, path
        self._closed = False
        storage.files.setdefault(path, b"")

    def write_line(self, line: str) -> None:
        if self._closed:
            raise ValueError(f"writer for {self._path} is closed")
        self._storage.files[self._path] = self._storage.files.get(self._path, b"") + line.encode() + b"\n"

    def flush(self) -> None:
        return None

    def fsync(self) -> None:
        return None

    def close(self) -> None:
        self._closed = True

    def get_error(self) -> BaseException | None:
        return None


class MemorySessionStorage(_AsyncFromSync):
    """A map of path -> bytes, for tests and sessions that are not persisted."""

    def __init__(self) -> None:
        self.files: dict[Path, bytes] = {}
        self.dirs: set[Path] = set()
        self.mtimes: dict[Path, float] = {}
        self._clock = 0.0

    def _touch(self, path: Path) -> None:
        self._clock += 1.0
        self.mtimes[path] = self._clock

    def _missing(self, path: Path) -> FileNotFoundError:
        return FileNotFoundError(2, "No such file or directory", str(path))

    def ensure_dir_sync(self, path: Path) -> None:
        path = Path(path)
        self.dirs.update([path, *path.parents])

    def exists_sync(self, path: Path) -> bool:
        return Path(path) in self.files or Path(path) in self.dirs

    def write_text_sync(self, path: Path, text: str) -> None:
        self.files[Path(path)] = text.encode("utf-8")
        self._touch(Path(path))

    def stat_sync(self, path: Path) -> FileStat:
        path = Path(path)
        if path in self.files:
            return FileStat(len(self.files[path]), self.mtimes.get(path, 0.0), True)
        if path in self.dirs:
            return FileStat(0, 0.0, False)
        raise self._missing(path)

    def list_files_sync(self, directory: Path, suffix: str = ".jsonl") -> list[Path]:
        directory = Path(directory)
        return sorted(p for p in self.files if p.parent == directory and p.name.endswith(suffix))

    def read_bytes_sync(self, path: Path) -> bytes:
        path = Path(path)
        if path in self.dirs and path not in self.files:
            raise IsADirectoryError(21, "Is a directory", str(path))
        try:
            return self.files[path]
        except KeyError:
            raise self._missing(path) from None

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        return _decode_prefix(self.read_bytes_sync(path)[:max_bytes])

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        return split_keeping_newlines(self.read_bytes_sync(path))

    def rename_sync(self, src: Path, dst: Path) -> None:
        src, dst = Path(src), Path(dst)
        if src not in self.files:
            raise self._missing(src)
        self.files[dst] = self.files.pop(src)
        self._touch(dst)

    def unlink_sync(self, path: Path) -> None:
        self.files.pop(Path(path), None)

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        self._touch(Path(path))
        return MemoryWriter(self, Path(path))
