"""OutputSink: keep the tail of streamed tool output in memory and spill the whole of it to an artifact."""

from __future__ import annotations

import codecs
import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sessiontree.store.closing import Closing

DEFAULT_MAX_BYTES = 50 * 1024

# ANSI escape sequences (CSI, terminated OSC, two-byte ESC forms) go first so no "[31m" debris is
# left behind, then every C0/C1 control character except newline and tab. An OSC without its
# terminator loses only its ESC: swallowing "the rest" could hide a whole chunk of real output.
_ESCAPE = r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])?"
_UNPRINTABLE = _ESCAPE + r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
# Lone surrogates (from JSON or a str that never was UTF-8) cannot be written as UTF-8.
_SURROGATE = r"[\ud800-\udfff]"
# Most output has nothing to remove; one quick scan lets it skip both substitutions.
_NEEDS_WORK = r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]"

# The same rules on raw bytes, before decoding: several times faster than on str. C1 controls
# are U+0080..U+009F, which UTF-8 writes as C2 80..C2 9F.
_ESCAPE_BYTES = _ESCAPE.encode()
_C0_BYTES = bytes(b for b in range(0x20) if b not in (0x09, 0x0A)) + b"\x7f"
_C1_BYTES = rb"\xc2[\x80-\x9f]"
# An escape sequence still open at the end of a chunk: held back until the next chunk completes it.
_OPEN_ESCAPE = rb"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]{0,256}\x1b?)?"
# The patterns above are compiled at first use (``re``'s own cache), not at import: every
# command that prints a path imports this module, and most never see a control character.
_HOLD_SCAN = 300


def sanitize_text(text: str) -> str:
    """Drop ANSI escapes and control characters except ``\\n`` and ``\\t``; replace lone surrogates."""
    # Printable text holds no control character and no surrogate: no scan, no compile.
    if text.isprintable() or not re.search(_NEEDS_WORK, text):
        return text
    text = re.sub(_UNPRINTABLE, "", text)
    return re.sub(_SURROGATE, "\ufffd", text)


def sanitize_bytes(data: bytes) -> bytes:
    """Apply :func:`sanitize_text`'s rules to UTF-8 bytes (invalid bytes are left to the decoder)."""
    if b"\x1b" in data:
        data = re.sub(_ESCAPE_BYTES, b"", data)
    data = data.translate(None, _C0_BYTES)
    if b"\xc2" in data:
        data = re.sub(_C1_BYTES, b"", data)
    return data


def split_open_tail(data: bytes) -> int:
    """Return where an unfinished escape sequence or C1 lead byte at the end of ``data`` starts."""
    esc = data.rfind(b"\x1b", max(0, len(data) - _HOLD_SCAN))
    if esc != -1 and re.compile(_OPEN_ESCAPE).fullmatch(data, esc):
        return esc
    return len(data) - 1 if data.endswith(b"\xc2") else len(data)


def count_lines(text: str) -> int:
    """Return the number of lines in ``text`` (a last line without a newline counts)."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


@dataclass(frozen=True)
class OutputSummary:
    """What a tool returns after streaming: the tail shown, the totals, the artifact holding it all."""

    output: str
    truncated: bool
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    artifact_id: str | None = None

    @property
    def artifact_url(self) -> str | None:
        """Return ``artifact://<id>`` when the full output was saved."""
        return f"artifact://{self.artifact_id}" if self.artifact_id is not None else None


class OutputSink(Closing):
    """Collect streamed output: sanitise it, keep a bounded tail, spill everything past the threshold."""

    def __init__(
        self,
        artifact_path: Path | None = None,
        artifact_id: str | None = None,
        *,
        spill_threshold: int = DEFAULT_MAX_BYTES,
        tail_bytes: int | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> None:
        if spill_threshold <= 0:
            raise ValueError("spill_threshold must be positive")
        self.artifact_path = artifact_path
        self.artifact_id = artifact_id
        self.spill_threshold = spill_threshold
        self.tail_bytes = min(tail_bytes or spill_threshold, spill_threshold)
        self.on_chunk = on_chunk
        self.file_error: str | None = None
        self._tail = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = b""
        self._file: BinaryIO | None = None
        self._file_created = False
        self._file_failed = artifact_path is None
        self._truncated = False
        self._total_bytes = 0
        self._newlines = 0
        self._ends_with_newline = True
        self._closed = False

    @property
    def truncated(self) -> bool:
        """Whether the output outgrew the in-memory window."""
        return self._truncated

    @property
    def buffered_bytes(self) -> int:
        """Return the size of the in-memory tail buffer."""
        return len(self._tail)

    def push(self, chunk: str | bytes) -> None:
        """Add one chunk: bytes are decoded as UTF-8 (invalid bytes replaced, split characters joined)."""
        if self._closed:
            raise ValueError("OutputSink is closed")
        if isinstance(chunk, str):
            self._flush_pending()
            self._push_text(sanitize_text(chunk))
            return
        data = self._pending + chunk
        cut = split_open_tail(data)
        self._pending = data[cut:]
        self._push_text(self._decoder.decode(sanitize_bytes(data[:cut])))

    def _flush_pending(self, final: bool = False) -> None:
        """Decode bytes held back at a chunk boundary (all of them when ``final``)."""
        if self._pending or final:
            data, self._pending = self._pending, b""
            self._push_text(self._decoder.decode(sanitize_bytes(data), final=final))

    def _push_text(self, text: str) -> None:
        if not text:
            return
        if self.on_chunk is not None:
            self.on_chunk(text)
        data = text.encode("utf-8")
        self._total_bytes += len(data)
        self._newlines += text.count("\n")
        self._ends_with_newline = text.endswith("\n")
        overflow = len(self._tail) + len(data) > self.spill_threshold
        if overflow:
            self._truncated = True
        if overflow or self._file is not None:
            sink = self._open_file()
            if sink is not None:
                try:
                    sink.write(data)
                except OSError as exc:
                    self._drop_file(exc)
        self._tail += data
        if self._truncated and len(self._tail) > self.tail_bytes:
            self._cut_tail()

    def _open_file(self) -> BinaryIO | None:
        """Return the artifact writer, creating it (with the buffer so far) the first time."""
        if self._file is not None or self._file_failed:
            return self._file
        assert self.artifact_path is not None
        try:
            self.artifact_path.parent.mkdir(parents=True, exist_ok=True)
            # "x": an existing artifact of a resumed session is never overwritten.
            self._file = self.artifact_path.open("xb", buffering=1 << 16)
        except OSError as exc:
            # The spec's fallback: keep truncating the tail in memory, persist nothing.
            self._file_failed = True
            self.file_error = f"{type(exc).__name__}: {exc}"
            return None
        self._file_created = True
        try:
            self._file.write(self._tail)
        except OSError as exc:
            self._drop_file(exc)
        return self._file

    def _cut_tail(self) -> None:
        """Cut the buffer to the tail window, starting on a UTF-8 character boundary."""
        start = len(self._tail) - self.tail_bytes
        while start < len(self._tail) and (self._tail[start] & 0xC0) == 0x80:
            start += 1
        del self._tail[:start]

    def _finish(self) -> None:
        """Flush a dangling partial UTF-8 sequence and close the artifact file."""
        if self._closed:
            return
        self._flush_pending(final=True)
        self._closed = True
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:
                self._drop_file(exc)
            self._file = None

    def _drop_file(self, exc: OSError) -> None:
        """Give up on an artifact that failed mid-write (disk full, ...) and go on with the tail only."""
        # An incomplete file would pass for the full output, so it is removed.
        self.file_error = f"{type(exc).__name__}: {exc}"
        self._file_failed = True
        self._file_created = False
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self.artifact_path is not None:
            with contextlib.suppress(OSError):
                self.artifact_path.unlink()

    def close(self) -> None:
        """Finish the output and close the artifact file (idempotent)."""
        self._finish()

    def dump(self) -> OutputSummary:
        """Finish the output and return its summary; ``artifact_id`` only if the file was really written."""
        self._finish()
        output = self._tail.decode("utf-8", errors="replace")
        total_lines = self._newlines + (0 if self._ends_with_newline else 1)
        return OutputSummary(
            output=output,
            truncated=self._truncated,
            total_lines=total_lines,
            total_bytes=self._total_bytes,
            output_lines=count_lines(output),
            output_bytes=len(self._tail),
            artifact_id=self.artifact_id if self._file_created else None,
        )
