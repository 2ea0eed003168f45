"""SessionFile: the JSONL file of one session, kept in step with memory, and its one write state."""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from sessiontree.errors import PersistError
from sessiontree.store.blobs import BlobStore
from sessiontree.store.entries import Entry
from sessiontree.store.formats import refuse_foreign_data
from sessiontree.store.jsonl import decode_text
from sessiontree.store.load import parse_session_text, read_session_bytes
from sessiontree.store.persist import (
    NdjsonWriter,
    TakeIn,
    back_up_original,
    persist_error_for,
    rewrite_atomically,
    to_line,
)
from sessiontree.store.session import Session
from sessiontree.store.storage import FileMark, SessionStorage

log = logging.getLogger(__name__)

T = TypeVar("T")


class WriteState(enum.Enum):
    """Where the file stands against memory."""

    BEHIND = "behind"
    """Memory holds entries the file (or its absence) lacks: the next write is a whole rewrite."""
    IN_STEP = "in step"
    """The file holds every entry: new ones are appended."""
    TORN = "torn"
    """In step, but the last line lacks its newline (a writer died): it is ended before appending."""
    FAILED = "failed"
    """A write failed: the error is raised again by every later operation."""


class SessionFile:
    """Every write to one session's file: appends, atomic rewrites with take-in, the sticky error.

    ``path`` None means in memory only: nothing is ever written.
    """

    def __init__(self, storage: SessionStorage, path: Path | None, blobs: BlobStore | None) -> None:
        self.storage = storage
        self.path = path
        self.state = WriteState.BEHIND
        self.error: PersistError | None = None
        self.blobs = blobs
        self._backup: bytes | None = None  # the bytes as read, kept before a rewrite drops bad lines
        self._mark: FileMark | None = None  # what of the file at ``path`` memory holds
        self._writer: NdjsonWriter | None = None

    def read(self, path: Path) -> Session | None:
        """Switch to the file at ``path`` and read it (None when missing); memory is then in step."""
        self.close_writer()
        self.path, self._backup, self._mark = path, None, None
        self.state = WriteState.BEHIND
        data = read_session_bytes(path, self.storage, strict=False)
        if data is None:
            return None
        # Up to the last newline: a line another writer has not finished is read again whole.
        self._mark = FileMark(self.storage.stat_sync(path).ino, data.rfind(b"\n") + 1)
        # As written: a rewrite keeps every value it does not touch (read paths contain them).
        session = parse_session_text(decode_text(data), path, contain=False)
        if session.is_empty and data.strip():
            refuse_foreign_data(data, path)  # never rewrite another agent's file
        if session.bad_lines or (session.is_empty and data.strip()):
            self._backup = data  # a rewrite would drop what we could not parse: keep it first
        self.state = WriteState.TORN if data and not data.endswith(b"\n") else WriteState.IN_STEP
        return session

    def start(self, path: Path | None) -> None:
        """Switch to a file that does not hold this session yet (written by the first rewrite)."""
        self.close_writer()
        self.path, self._backup, self._mark = path, None, None
        self.state = WriteState.BEHIND

    def check(self) -> None:
        """Raise the sticky error, if a write has failed."""
        if self.error is not None:
            raise self.error

    def run(self, action: Callable[[], T]) -> T:
        """Run a write step; its first failure becomes the sticky error."""
        try:
            return action()
        except PersistError as exc:
            raise self._fail(exc) from exc
        except OSError as exc:
            raise self._fail(self.error or persist_error_for(self.path, exc)) from exc

    def _fail(self, error: PersistError) -> PersistError:
        self.error = self.error or error
        self.state = WriteState.FAILED
        return self.error

    def append(
        self, entry: Entry, *, answered: bool, lines: Callable[[], list[str]], take_in: TakeIn
    ) -> None:
        """Write a new entry: appended, or the whole session when the file is behind.

        Nothing is written before the first assistant message (``answered``): until then the
        file, if any, is left behind.
        """
        if self.path is None:
            return
        if not answered:
            self.state = WriteState.BEHIND
            return
        if self.state is WriteState.BEHIND:
            self.rewrite(lines(), take_in)
            return
        self.run(lambda: self._append_line(to_line(entry, self.blobs)))

    def _append_line(self, line: str) -> None:
        assert self.path is not None
        if self._writer is None:
            self._writer = NdjsonWriter(self.storage, self.path, repair_tail=self.state is WriteState.TORN)
            self.state = WriteState.IN_STEP
        self._writer.append([line])

    def rewrite(self, lines: list[str], take_in: TakeIn, *, sticky: bool = True) -> None:
        """Replace the file with ``lines`` (atomically), taking in what another writer appended.

        ``sticky=False`` (a step its caller undoes) raises a failure without keeping it.
        """
        if sticky:
            self.run(lambda: self._rewrite(lines, take_in))
        else:
            self._rewrite(lines, take_in)

    def _rewrite(self, lines: list[str], take_in: TakeIn) -> None:
        assert self.path is not None
        self.close_writer()
        if self._backup is not None:
            back_up_original(self.storage, self.path, self._backup)
            self._backup = None
        self._mark = rewrite_atomically(self.storage, self.path, lines, since=self._mark, take_in=take_in)
        self.state = WriteState.IN_STEP

    def close_writer(self) -> None:
        """Close the appender (a rewrite or a switch of file comes next)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            self.run(writer.close)

    def flush(self) -> None:
        """Push appended entries to disk (fsync)."""
        if self._writer is not None:
            self.run(self._writer.sync)

    def close(self) -> None:
        """Close the appender (best effort) and raise the first write error, if any."""
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            except PersistError as exc:
                self._fail(exc)
        self.check()
