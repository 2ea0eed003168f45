"""Writing sessions: prepare entries for disk, the serialised NDJSON appender, atomic rewrites.

Rewrites use the temp names of ``store.atomic`` (and its cleanup) under the file's ``flock``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessiontree.errors import PersistError
from sessiontree.store.atomic import fsync_directory, temp_path_for
from sessiontree.store.blobs import BlobStore, externalize_image_blocks
from sessiontree.store.jsonl import split_keeping_newlines
from sessiontree.store.storage import FileMark, FileSessionStorage, SessionStorage, SessionStorageWriter

log = logging.getLogger(__name__)

MAX_PERSIST_CHARS = 500_000
"""Longest string written to a session file; longer ones are cut and marked."""

TRUNCATION_NOTICE = "\n\n[Session persistence truncated large content]"

TRANSIENT_KEYS = frozenset({"partialJson", "jsonlEvents"})
"""Streaming leftovers that never belong on disk."""


def truncate_string(value: str) -> str:
    """Cut a string over ``MAX_PERSIST_CHARS`` so that, notice included, it fits the limit."""
    if len(value) <= MAX_PERSIST_CHARS:
        return value
    return value[: MAX_PERSIST_CHARS - len(TRUNCATION_NOTICE)] + TRUNCATION_NOTICE


def _prepare(value: Any, store: BlobStore | None, key: str | None) -> Any:
    """Return value ready for disk, sharing every part that needs no change."""
    if isinstance(value, str):
        return truncate_string(value)
    if isinstance(value, list):
        items = value
        if key == "content" and store is not None:
            moved = externalize_image_blocks(value, store)
            assert isinstance(moved, list)
            items = moved
        items = [_prepare(item, store, key) for item in items]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    if not isinstance(value, dict):
        return value
    changed = False
    out: dict[str, Any] = {}
    for child_key, child in value.items():
        if child_key in TRANSIENT_KEYS:
            changed = True
            continue
        new = _prepare(child, store, child_key)
        changed = changed or new is not child
        out[child_key] = new
    if not changed:
        return value
    content, line_count = out.get("content"), out.get("lineCount")
    if isinstance(content, str) and isinstance(line_count, int) and not isinstance(line_count, bool):
        # The count described the untruncated text; keep it true to what is stored.
        out["lineCount"] = content.count("\n") + 1
    return out


def prepare_entry_for_persistence(entry: dict[str, Any], store: BlobStore | None = None) -> dict[str, Any]:
    """Return the entry as it is written: long strings cut, transient keys dropped, images as refs.

    The entry itself is not modified (the in-memory session keeps inline images).
    """
    prepared = _prepare(entry, store, None)
    assert isinstance(prepared, dict)
    return prepared


def to_line(entry: dict[str, Any], store: BlobStore | None = None) -> str:
    """Serialise an entry or header as one JSONL line (no newline)."""
    prepared = prepare_entry_for_persistence(entry, store)
    line = json.dumps(prepared, ensure_ascii=False, separators=(",", ":"))
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (JavaScript strings allow them) has no UTF-8 form: escape it as \udXXX.
        line = json.dumps(prepared, ensure_ascii=True, separators=(",", ":"))
    return line


def describe_os_error(exc: BaseException) -> str:
    """Return a short reason for an OS error (``No space left on device``), else its text."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc) or type(exc).__name__


def persist_error_for(path: Path | None, exc: BaseException) -> PersistError:
    """Build the one-line error for a failed write (logged once, here, with the session file)."""
    log.error("session persistence failed for %s: %s", path, exc)
    return PersistError(
        f"Cannot write session file {path}: {describe_os_error(exc)} "
        "(free disk space or fix permissions, then reopen the session)"
    )


def keep_mode(original: Path, replacement: Path) -> None:
    """Give ``replacement`` the permission bits of ``original`` (a private session stays private)."""
    try:
        mode = stat.S_IMODE(os.stat(original).st_mode)
    except FileNotFoundError:
        return
    os.chmod(replacement, mode)


def backup_path_for(path: Path) -> Path:
    """A free ``<file>.<UTC time>.bak`` name beside a session file (not ``.jsonl``: not listed)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.{stamp}.bak")
    counter = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.{stamp}-{counter}.bak")
        counter += 1
    return candidate


def back_up_original(storage: SessionStorage, path: Path, data: bytes) -> Path:
    """Keep the bytes of a file about to be rewritten without lines we could not parse.

    A rewrite writes what was understood; the lines that were not (corrupt lines, a header we
    could not read) would be gone, so their file is kept whole beside it first.
    """
    backup = backup_path_for(path)
    if isinstance(storage, FileSessionStorage):
        fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        fsync_directory(path.parent)
    else:
        storage.write_text_sync(backup, data.decode("utf-8", errors="replace"))
    log.warning("%s had lines that could not be read; the original is kept as %s", path, backup)
    return backup


MAX_TAKE_IN_PASSES = 100
"""Bound on re-reading a file that another program keeps appending to without locking."""

TakeIn = Callable[[list[bytes]], Iterable[str]]
"""Given the complete lines another writer appended, return the ones to keep in the rewrite."""


def appended_lines(
    storage: SessionStorage, path: Path, since: FileMark, now: FileMark
) -> tuple[list[bytes], int]:
    """The complete lines at ``path`` that ``since`` did not cover, and the offset read up to.

    A file replaced since (another inode, or shorter) is read whole, its header line left out.
    """
    replaced = now.ino != since.ino or now.size < since.size
    start = 0 if replaced else since.size
    data = storage.read_from_sync(path, start)
    end = data.rfind(b"\n") + 1  # a line still being written is not one yet
    lines = [line for line in split_keeping_newlines(data[:end]) if line.strip()]
    return (lines[1:] if replaced else lines), start + end


def rewrite_atomically(
    storage: SessionStorage,
    path: Path,
    lines: Iterable[str],
    *,
    since: FileMark | None = None,
    take_in: TakeIn | None = None,
) -> FileMark:
    """Replace ``path`` with ``lines``: temp file, flush + fsync, close, rename, fsync the folder.

    The rename happens under an exclusive ``flock`` of the file it replaces, which every
    FileWriter takes to append. With ``since`` (what the caller read of the file) the lines
    appended after it are first handed to ``take_in`` and the ones it returns are written too,
    so another writer's flushed entries are never lost. On any failure the temp file is removed
    and ``path`` is left exactly as it was. Returns what ``path`` now holds.
    """
    tmp = temp_path_for(path)
    writer: SessionStorageWriter | None = None
    try:
        storage.ensure_dir_sync(path.parent)
        writer = storage.open_writer_sync(tmp)
        for line in lines:
            writer.write_line(line)
        with storage.lock_sync(path) as now:
            if since is not None and take_in is not None and now is not None:
                _take_in(storage, path, since, now, writer, take_in)
            writer.fsync()
            closing, writer = writer, None
            closing.close()
            if isinstance(storage, FileSessionStorage):
                keep_mode(path, tmp)
            written = storage.stat_sync(tmp)
            storage.rename_sync(tmp, path)
    except BaseException:
        if writer is not None:
            with contextlib.suppress(Exception):  # the first error is the one to report
                writer.close()
        try:
            storage.unlink_sync(tmp)
        except OSError:
            log.warning("could not remove temporary file %s", tmp)
        raise
    if isinstance(storage, FileSessionStorage):
        fsync_directory(path.parent)
    return FileMark(written.ino, written.size)


def _take_in(
    storage: SessionStorage,
    path: Path,
    since: FileMark,
    now: FileMark,
    writer: SessionStorageWriter,
    take_in: TakeIn,
) -> None:
    """Write what was appended to ``path`` since ``since``, until nothing more comes.

    Our writers wait for the lock; one that does not lock (another program) may still be
    appending, so the size is checked again until it stands still before the rename.
    """
    done = since.size if now.ino == since.ino else -1
    for _ in range(MAX_TAKE_IN_PASSES):
        found, offset = appended_lines(storage, path, since, now)
        for line in take_in(found):
            writer.write_line(line)
        writer.flush()
        size = storage.stat_sync(path).size
        if size <= offset or offset == done:  # nothing more, or only a line not finished yet
            return
        done, since, now = offset, FileMark(now.ino, offset), FileMark(now.ino, size)


class NdjsonWriter:
    """The one appender of a session file: lines land whole and in call order; errors stick.

    Every append is pushed to the OS before it returns, so a killed process loses nothing it
    appended; ``sync()`` adds the fsync that makes it survive a power cut.
    """

    def __init__(self, storage: SessionStorage, path: Path, *, repair_tail: bool = False) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._error: PersistError | None = None
        self._writer: SessionStorageWriter | None = None
        try:
            self._writer = storage.open_writer_sync(path)
            if repair_tail:
                # A crash left a line without its newline: end it, so the next entry starts clean.
                self._writer.write_line("")
                self._writer.flush()
        except OSError as exc:
            raise self._fail(exc) from exc

    @property
    def error(self) -> PersistError | None:
        """The first error met, if any."""
        return self._error

    def _fail(self, exc: BaseException) -> PersistError:
        if self._error is None:
            self._error = persist_error_for(self.path, exc)
        return self._error

    def _live(self) -> SessionStorageWriter:
        if self._error is not None:
            raise self._error
        if self._writer is None:
            raise PersistError(f"Session writer for {self.path} is closed")
        return self._writer

    def append(self, lines: Iterable[str]) -> None:
        """Write lines, then hand them to the OS."""
        with self._lock:
            writer = self._live()
            try:
                for line in lines:
                    writer.write_line(line)
                writer.flush()
            except (OSError, ValueError) as exc:
                raise self._fail(exc) from exc

    def sync(self) -> None:
        """Flush and fsync."""
        with self._lock:
            writer = self._live()
            try:
                writer.fsync()
            except (OSError, ValueError) as exc:
                raise self._fail(exc) from exc

    def close(self) -> None:
        """Close the file (best effort) and raise the first real error met, if any."""
        with self._lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                try:
                    writer.close()
                except (OSError, ValueError) as exc:
                    self._fail(exc)
            if self._error is not None:
                raise self._error
