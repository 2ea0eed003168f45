"""Whole-file writes that a reader never sees half done, and the one temp-name scheme they use.

Every temp file or folder made beside its target is ``.<name>.sessiontree-<pid>-<hex>.tmp``:
hidden, never ``.jsonl`` (so never listed as a session), and naming the process that writes it.
``remove_stale_temps`` removes only such names whose process is gone (SIGKILL, a power cut), so
the half-written file of a process still running is never pulled from under it, and a user's
own file never matches.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

from sessiontree.store.storage import FileSessionStorage, SessionStorage
from sessiontree.store.surrogates import SURROGATES

TEMP_MARK = "sessiontree"
TEMP_NAME = re.compile(r"^\..+\." + TEMP_MARK + r"-(\d+)-[0-9a-f]{8}\.tmp$")
TEMP_GLOB = f".*.{TEMP_MARK}-*.tmp"
"""A glob that matches every temp name (and a few others: check with ``TEMP_NAME``)."""


def temp_path_for(path: Path) -> Path:
    """A fresh temp name beside ``path`` that names this process."""
    return path.with_name(f".{path.name}.{TEMP_MARK}-{os.getpid()}-{os.urandom(4).hex()}.tmp")


def _is_zombie(pid: int) -> bool:
    """Tell whether a process has ended and only waits for its parent to reap it (Linux's ``Z``)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False  # no /proc (macOS) or gone: kill(0) has the last word
    # "pid (comm) S ...": the name may hold spaces and parentheses, the state follows the last ")".
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def pid_alive(pid: int) -> bool:
    """Tell whether a process with this id runs (on this machine): a zombie, a killed worker its
    parent has not reaped yet, is dead."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return not _is_zombie(pid)  # it exists, owned by someone else
    return not _is_zombie(pid)


def make_private_dir(folder: Path) -> None:
    """Make ``folder`` (and its missing parents) readable by its owner alone, as a cache of
    rendered transcripts must be; an existing folder keeps its mode. Raises OSError (a file in
    its place, no permission)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)


def make_private_file(path: Path) -> None:
    """Create ``path`` empty at mode 0600 unless it exists (a SQLite cache opened next keeps that
    mode, and gives it to its -wal and -shm files)."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600))


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort: some filesystems refuse)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(
    path: Path,
    data: bytes | str | Iterable[str | bytes],
    *,
    readable: bool = True,
    durable: bool = True,
) -> None:
    """Replace ``path`` with bytes, text (UTF-8, lone surrogates as U+FFFD) or chunks of either, at once.

    ``readable`` gives the file the usual mode (umask applied), else 0600. The bytes are fsynced
    before the rename; ``durable`` fsyncs the folder after it too, so a power cut cannot bring the
    old file back once this returned. A writer of many files that can be made again (a site, a
    mirror of a database) passes ``durable=False`` and fsyncs each folder once, or not at all. On
    any failure the temp file is removed and ``path`` is left as it was.
    """
    tmp = temp_path_for(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o666 if readable else 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            if isinstance(data, bytes):
                fh.write(data)
            else:
                for chunk in [data] if isinstance(data, str) else data:
                    fh.write(chunk if isinstance(chunk, bytes) else chunk.encode("utf-8", SURROGATES))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if durable:
        fsync_directory(path.parent)


def remove_stale_temps(
    folder: Path, *, recursive: bool = False, storage: SessionStorage | None = None
) -> list[Path]:
    """Delete the temp files and folders in ``folder`` (and below, if ``recursive``) of dead writers.

    Only our temp names are touched, and only when the process they name no longer runs.
    Returns what was removed, sorted.
    """
    storage = storage or FileSessionStorage()
    removed: list[Path] = []
    for candidate in _temp_candidates(folder, recursive, storage):
        match = TEMP_NAME.match(candidate.name)
        if match is None or pid_alive(int(match.group(1))) or any(r in candidate.parents for r in removed):
            continue
        try:
            storage.remove_tree_sync(candidate)
            removed.append(candidate)
        except OSError as exc:  # the next cleanup tries again
            import logging  # a rare warning: the logging module is no cost of every start

            logging.getLogger(__name__).warning(
                "could not remove stale temporary file %s: %s", candidate, exc
            )
    return sorted(removed)


def _temp_candidates(folder: Path, recursive: bool, storage: SessionStorage) -> list[Path]:
    if not isinstance(storage, FileSessionStorage):
        return list(storage.list_files_sync(folder, ""))
    try:
        if recursive:
            return sorted(folder.rglob(TEMP_GLOB))  # a temp folder comes before anything inside it
        return [folder / name for name in os.listdir(folder)]
    except OSError:
        return []
