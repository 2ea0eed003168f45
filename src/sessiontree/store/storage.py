"""Storage abstractions: every filesystem operation the session code uses, real or in memory.

The spec's SessionStorage interface also lists async forms; nothing here awaits a file
operation, so only the sync ones exist.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol, runtime_checkable

from sessiontree.store.jsonl import split_keeping_newlines
from sessiontree.store.locks import lock, unlock


@dataclass(frozen=True, slots=True)
class FileStat:
    """What callers need of a stat: size in bytes, modification time, regular file or not."""

    size: int
    mtime: float
    is_file: bool
    ino: int = 0


@dataclass(frozen=True, slots=True)
class FileMark:
    """Which file (inode) a reader saw at a path, and how many of its bytes."""

    ino: int
    size: int


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
    def read_from_sync(self, path: Path, offset: int) -> bytes: ...
    def iter_lines_sync(self, path: Path) -> Iterator[bytes]: ...
    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str: ...
    def rename_sync(self, src: Path, dst: Path) -> None: ...
    def unlink_sync(self, path: Path) -> None: ...
    def remove_tree_sync(self, path: Path) -> None: ...
    def copy_tree_sync(self, src: Path, dst: Path) -> None: ...
    def open_writer_sync(self, path: Path) -> SessionStorageWriter: ...
    def lock_sync(self, path: Path) -> AbstractContextManager[FileMark | None]: ...


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


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


_REASONS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "a symlink loop",
    errno.ENOTDIR: "a part of its path is not a folder",
    errno.ENAMETOOLONG: "its name is too long",
}

OUTSIDE_ROOT = "it links outside its root"
DANGLING = "it is a link to nothing"


def read_reason(exc: OSError) -> str:
    """The one-line reason a file cannot be read, as listings and errors give it."""
    given = exc.strerror or ""
    if given.startswith("it ") or given in _REASONS.values():
        return given  # already ours (open_regular's refusals)
    if exc.errno == errno.ENOENT and isinstance(exc.filename, str) and os.path.islink(exc.filename):
        return DANGLING
    if exc.errno == errno.ENXIO and isinstance(exc.filename, str):  # opening a socket: say it is one
        with contextlib.suppress(OSError):
            return next((f"it is {n}" for test, n in _KINDS if test(os.stat(exc.filename).st_mode)), given)
    return _REASONS.get(exc.errno or 0) or given or str(exc)


def resolves_inside(path: str | Path, real_root: Path) -> bool:
    """True when ``path``, symlinks followed, is ``real_root`` (already resolved) or under it (a
    symlink loop stays where it is: inside, for a listing to say what it is; never opened)."""
    try:
        return Path(os.path.realpath(path)).is_relative_to(real_root)
    except (OSError, ValueError):
        return False


def _reasoned(exc: OSError, path: str | Path) -> OSError:
    """The same kind of error, its text the listed reason (``PermissionError`` stays one)."""
    cls = type(exc) if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError) else OSError
    return cls(exc.errno, read_reason(exc), str(path))


def open_regular(path: str | Path, root: str | Path | None = None) -> IO[bytes]:
    """Open a file to read: the one read-open of every session, blob, subagent and artifact file.

    Refuses what is not a regular file with an OSError that says what it is (a named pipe would
    block the read until a writer came; a folder or device is no session). With ``root``, a path
    that, links followed, leaves the root is refused too (errno ``EXDEV``, "it links outside its
    root") and nothing outside is ever opened. Every refusal is an ``OSError`` whose ``strerror``
    is the listed reason (``read_reason``): permission denied, a symlink loop, a part of its path
    is not a folder.
    """
    target: str | Path = path
    try:
        if root is not None:
            real = os.path.realpath(path)
            if not resolves_inside(real, Path(os.path.realpath(root))):
                raise OSError(errno.EXDEV, OUTSIDE_ROOT, str(path))
            target = real  # opened where it was checked: no link is followed after the check
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(target, flags | (os.O_NOFOLLOW if root is not None else 0))
    except OSError as exc:
        raise _reasoned(exc, path) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
            raise (IsADirectoryError if code == errno.EISDIR else OSError)(code, f"it is {kind}", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def entry_is(entry: os.DirEntry[str] | Path, kind: str) -> bool:
    """``is_file()`` / ``is_dir()`` (``kind`` "file" / "dir") of a folder entry or path that says
    False instead of raising (a symlink loop raises ELOOP from ``DirEntry.is_file``, a folder that
    can be listed but not entered EACCES from ``Path.is_dir``)."""
    try:
        return entry.is_file() if kind == "file" else entry.is_dir()
    except OSError:
        return False


def _decode_prefix(data: bytes) -> str:
    # A prefix may end inside a multi-byte character: drop the partial tail, not the whole read.
    return data.decode("utf-8", errors="ignore") if data else ""


class FileWriter:
    """Appends lines to a real file; keeps the first error and raises it again.

    Lines wait in memory until ``flush``, which writes them under an exclusive ``flock`` of the
    file. A whole-file rewrite holds the same lock from its last read to its rename, and when it
    has replaced the file the writer reopens the path: lines land in the file that is there now,
    never in the one replaced.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._pending: list[bytes] = []
        self._fh: IO[bytes] | None = open(path, "ab")  # noqa: SIM115 - closed by close()

    def _check(self) -> IO[bytes]:
        if self._error is not None:
            raise self._error
        if self._fh is None:
            raise ValueError(f"writer for {self.path} is closed")
        return self._fh

    def _lock_current(self, fh: IO[bytes]) -> IO[bytes]:
        """Lock the file now at the path (reopening it when a rewrite replaced ours); return it."""
        while True:
            lock(fh.fileno())
            mine = os.fstat(fh.fileno())
            try:
                here = os.stat(self.path)
            except FileNotFoundError:
                if mine.st_nlink > 0:
                    return fh  # moved elsewhere whole (sessiontree move): the session goes on there
                unlock(fh.fileno())
                raise OSError(errno.ENOENT, "it was removed by another process", str(self.path)) from None
            if (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino):
                return fh
            unlock(fh.fileno())
            fh.close()
            fh = self._fh = open(self.path, "ab")  # noqa: SIM115 - closed by close()

    def _write_pending(self, *, sync: bool) -> None:
        with self._lock:
            fh = self._check()
            try:
                if self._pending:
                    fh = self._lock_current(fh)
                    try:
                        fh.write(b"".join(self._pending))
                        fh.flush()
                    finally:
                        unlock(fh.fileno())
                    self._pending.clear()
                if sync:
                    os.fsync(fh.fileno())
            except OSError as exc:
                self._error = exc
                raise

    def write_line(self, line: str) -> None:
        with self._lock:
            self._check()
            self._pending.append(line.encode("utf-8") + b"\n")

    def flush(self) -> None:
        self._write_pending(sync=False)

    def fsync(self) -> None:
        self._write_pending(sync=True)

    def close(self) -> None:
        if self._error is None and self._fh is not None:
            with contextlib.suppress(OSError):  # kept as the error, raised below
                self._write_pending(sync=False)
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


class FileSessionStorage:
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
        return FileStat(st.st_size, st.st_mtime, Path(path).is_file(), st.st_ino)

    def list_files_sync(self, directory: Path, suffix: str = ".jsonl") -> list[Path]:
        try:
            with os.scandir(directory) as it:
                return sorted(Path(e.path) for e in it if e.name.endswith(suffix) and entry_is(e, "file"))
        except OSError:  # missing, not a folder, not ours to enter: nothing to list
            return []

    def read_bytes_sync(self, path: Path) -> bytes:
        with open_regular(path) as fh:
            return fh.read()

    def read_from_sync(self, path: Path, offset: int) -> bytes:
        with open_regular(path) as fh:
            fh.seek(offset)
            return fh.read()

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        """Open now (so errors raise here) and yield the lines, each with its ``\\n``."""
        return FileLines(open_regular(path))  # closed when exhausted or by close()

    def read_text_prefix_sync(self, path: Path, max_bytes: int) -> str:
        with open_regular(path) as fh:
            return _decode_prefix(fh.read(max_bytes))

    def rename_sync(self, src: Path, dst: Path) -> None:
        os.replace(src, dst)

    def unlink_sync(self, path: Path) -> None:
        Path(path).unlink(missing_ok=True)

    def remove_tree_sync(self, path: Path) -> None:
        if Path(path).is_dir() and not Path(path).is_symlink():
            import shutil  # with its archive modules: only the few commands that copy or remove folders

            shutil.rmtree(path)
        else:
            self.unlink_sync(path)

    def copy_tree_sync(self, src: Path, dst: Path) -> None:
        """Copy a folder; ``dst`` must not exist (the caller copies to a temp name, then renames)."""
        import shutil

        shutil.copytree(src, dst)

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        return FileWriter(Path(path))

    @contextlib.contextmanager
    def lock_sync(self, path: Path) -> Iterator[FileMark | None]:
        """Hold an exclusive ``flock`` on the file now at ``path``; yield what it is (None: missing)."""
        while True:
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                yield None
                return
            try:
                lock(fd)
                mine = os.fstat(fd)
                try:
                    here = os.stat(path)
                except FileNotFoundError:
                    here = None
                if here is not None and (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino):
                    yield FileMark(mine.st_ino, mine.st_size)
                    return
                # Replaced (or removed) while we waited for the lock: lock what is there now.
            finally:
                os.close(fd)  # closing the descriptor releases the lock


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


class MemorySessionStorage:
    """A map of path -> bytes, for tests and sessions that are not persisted."""

    def __init__(self) -> None:
        self.files: dict[Path, bytes] = {}
        self.dirs: set[Path] = set()
        self.mtimes: dict[Path, float] = {}
        self.inodes: dict[Path, int] = {}  # a new number each time a path gets a new file
        self._clock = 0.0
        self._next_ino = 0

    def _new_file(self, path: Path) -> None:
        self._next_ino += 1
        self.inodes[path] = self._next_ino

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
        self._new_file(Path(path))
        self._touch(Path(path))

    def stat_sync(self, path: Path) -> FileStat:
        path = Path(path)
        if path in self.files:
            return FileStat(len(self.files[path]), self.mtimes.get(path, 0.0), True, self.inodes.get(path, 0))
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

    def read_from_sync(self, path: Path, offset: int) -> bytes:
        return self.read_bytes_sync(path)[offset:]

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        return split_keeping_newlines(self.read_bytes_sync(path))

    def rename_sync(self, src: Path, dst: Path) -> None:
        src, dst = Path(src), Path(dst)
        if src not in self.files:
            raise self._missing(src)
        self.files[dst] = self.files.pop(src)
        self.inodes[dst] = self.inodes.pop(src, 0)
        self._touch(dst)

    def unlink_sync(self, path: Path) -> None:
        self.files.pop(Path(path), None)
        self.inodes.pop(Path(path), None)

    def remove_tree_sync(self, path: Path) -> None:
        path = Path(path)
        for inside in [p for p in self.files if p == path or path in p.parents]:
            self.unlink_sync(inside)
        self.dirs -= {d for d in self.dirs if d == path or path in d.parents}

    def copy_tree_sync(self, src: Path, dst: Path) -> None:
        src, dst = Path(src), Path(dst)
        if src not in self.dirs:
            raise self._missing(src)
        if self.exists_sync(dst):
            raise FileExistsError(17, "File exists", str(dst))
        self.dirs.update(dst / d.relative_to(src) for d in list(self.dirs) if d == src or src in d.parents)
        for path in [p for p in self.files if src in p.parents]:
            self.write_text_sync(dst / path.relative_to(src), "")
            self.files[dst / path.relative_to(src)] = self.files[path]

    def open_writer_sync(self, path: Path) -> SessionStorageWriter:
        if Path(path) not in self.files:
            self._new_file(Path(path))
        self._touch(Path(path))
        return MemoryWriter(self, Path(path))

    @contextlib.contextmanager
    def lock_sync(self, path: Path) -> Iterator[FileMark | None]:
        """Yield what is at ``path`` (one process: nothing to lock against)."""
        path = Path(path)
        yield FileMark(self.inodes.get(path, 0), len(self.files[path])) if path in self.files else None
