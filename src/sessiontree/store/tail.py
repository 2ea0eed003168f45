"""Follow a growing JSONL file: only the complete lines appended since the last read.

A session file is mostly appended to, but not only: oh-my-pi rewrites a fixed-width title line
at the top in place, pi rewrites the file when it deletes a branch, and atomic rewrites replace
it by rename. ``TailReader`` remembers where it stopped (device and inode, size, offset, and
checksums of the first 4 KB and of the 4 KB just before the offset) and tells the caller to
reload the file whole when any of those no longer holds. A last line without its newline is
being written: it is not returned until its newline arrives.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Generator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from sessiontree.store.foreground import FOREGROUND
from sessiontree.store.storage import open_regular

WINDOW = 4096
"""Bytes covered by each checksum: the head of the file and the bytes just before the offset."""

CHUNK = 1 << 20
"""Read size when reading a file whole."""

ReloadReason = Literal["new", "replaced", "shrunk", "rewritten"]


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class TailState:
    """Where a reader stopped in a file, and what it checks to know the file was only appended to."""

    dev: int
    ino: int
    size: int
    """File size seen at the last read (the offset plus any half-written line)."""
    offset: int
    """End of the last complete line consumed."""
    lines: int
    """Complete lines consumed (blank ones included), so callers can number lines."""
    head_len: int
    head_sum: str
    """Checksum of the first ``head_len`` (<= 4 KB) consumed bytes."""
    before_len: int
    before_sum: str
    """Checksum of the ``before_len`` (<= 4 KB) consumed bytes just before ``offset``."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (for callers that persist the state, such as an index)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TailState:
        """Rebuild a state saved by ``to_json``."""
        return cls(**{name: data[name] for name in cls.__dataclass_fields__})


@dataclass(frozen=True, slots=True)
class TailRead:
    """What one ``poll`` found.

    ``kind`` is ``"append"`` (``lines`` holds the new complete lines, possibly none),
    ``"reload"`` (the file must be read whole again with ``read_all``; ``reason`` says why) or
    ``"missing"`` (the path no longer names a file).
    """

    kind: Literal["append", "reload", "missing"]
    lines: list[bytes] = field(default_factory=list)
    first_lineno: int = 1
    """1-based number of ``lines[0]`` in the file."""
    reason: ReloadReason | None = None


class _Window:
    """The first and last ``WINDOW`` consumed bytes, kept while consuming a file."""

    def __init__(self, head: bytes, before: bytes) -> None:
        self.head = head
        self.before = before

    def consume(self, data: bytes) -> None:
        if len(self.head) < WINDOW:
            self.head = (self.head + data[:WINDOW])[:WINDOW]
        self.before = (self.before + data[-WINDOW:])[-WINDOW:]


def _split_complete(data: bytes) -> tuple[list[bytes], int]:
    """Split ``data`` into complete lines (newline kept) and the length they cover."""
    end = data.rfind(b"\n")
    if end < 0:
        return [], 0
    lines = data[: end + 1].split(b"\n")
    lines.pop()  # the empty piece after the last newline
    return [line + b"\n" for line in lines], end + 1


class TailReader:
    """Read the lines appended to one file since the last read; detect rewrites and replacements.

    Not thread-safe: one reader per file per caller. ``state`` can be saved (``to_json``) and
    given back to a new reader to resume after a restart.
    """

    def __init__(self, path: str | Path, state: TailState | None = None) -> None:
        self.path = Path(path)
        self.state = state
        self._pending = b""  # bytes after the offset that do not yet end with a newline

    def poll(self) -> TailRead:
        """Return the complete lines appended since the last read, or say the file must be reloaded."""
        try:
            fh = open_regular(self.path)
        except (FileNotFoundError, NotADirectoryError):
            return TailRead("missing")
        with fh:
            return self._poll_fd(fh.fileno())

    def _poll_fd(self, fd: int) -> TailRead:
        st = os.fstat(fd)
        state = self.state
        if state is None:
            return TailRead("reload", reason="new")
        if (st.st_dev, st.st_ino) != (state.dev, state.ino):
            return TailRead("reload", reason="replaced")
        if st.st_size < state.size:
            return TailRead("reload", reason="shrunk")
        head = os.pread(fd, state.head_len, 0)
        before = os.pread(fd, state.before_len, state.offset - state.before_len)
        if _digest(head) != state.head_sum or _digest(before) != state.before_sum:
            return TailRead("reload", reason="rewritten")
        if st.st_size == state.size:
            return TailRead("append", first_lineno=state.lines + 1)
        start = state.offset + len(self._pending)
        data = self._pending + _read_from(fd, start)
        lines, used = _split_complete(data)
        self._pending = data[used:]
        window = _Window(head, before)
        window.consume(data[:used])
        self.state = _state_of(
            st, state.offset + used, state.lines + len(lines), window, size=state.offset + len(data)
        )
        return TailRead("append", lines, state.lines + 1)

    @property
    def partial(self) -> bytes:
        """The bytes after the last complete line read (a last line still being written)."""
        return self._pending

    def read_all(self, *, yielding: bool = False) -> Generator[bytes, None, None]:
        """Yield every complete line from the start; the reader then continues from the end.

        ``yielding``: a background read, which pauses between chunks while a page's first screen
        is being made (``store.foreground``).

        The state is only updated once the iterator is exhausted, so an abandoned reload is
        done again at the next ``poll``.
        """
        self.state = None
        self._pending = b""
        with open_regular(self.path) as fh:
            st = os.fstat(fh.fileno())
            window = _Window(b"", b"")
            carry = b""
            offset = count = 0
            while chunk := fh.read(CHUNK):
                data = carry + chunk
                lines, used = _split_complete(data)
                carry = data[used:]
                window.consume(data[:used])
                offset += used
                count += len(lines)
                yield from lines
                if yielding:
                    FOREGROUND.pause()
            self._pending = carry
            self.state = _state_of(st, offset, count, window, size=offset + len(carry))


def _read_from(fd: int, start: int) -> bytes:
    parts: list[bytes] = []
    position = start
    while chunk := os.pread(fd, CHUNK, position):
        parts.append(chunk)
        position += len(chunk)
    return b"".join(parts)


def _state_of(st: os.stat_result, offset: int, lines: int, window: _Window, *, size: int) -> TailState:
    return TailState(
        dev=st.st_dev,
        ino=st.st_ino,
        size=size,
        offset=offset,
        lines=lines,
        head_len=len(window.head),
        head_sum=_digest(window.head),
        before_len=len(window.before),
        before_sum=_digest(window.before),
    )
