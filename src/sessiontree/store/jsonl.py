"""Lenient JSONL: every parsable line kept, every bad one reported with its line number."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

_decoder = json.JSONDecoder()
_decode = _decoder.decode
_raw_decode = _decoder.raw_decode


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building a large acyclic object graph.

    Loading allocates many objects and no reference cycles, so the collector's passes over
    the growing young generations are pure overhead (about a third of the time on big files).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that could not be used: its 1-based number, why, and the start of its text."""

    lineno: int
    reason: str
    text: str


def decode_text(data: bytes) -> str:
    """Decode file bytes as UTF-8 (BOM dropped); invalid bytes become U+FFFD instead of failing."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace")


def split_keeping_newlines(data: bytes) -> Iterator[bytes]:
    """Split on ``\n`` only (never on ``\r`` or other breaks), each piece keeping its newline."""
    start = 0
    while True:
        end = data.find(b"\n", start)
        if end < 0:
            if start < len(data):
                yield data[start:]
            return
        yield data[start : end + 1]
        start = end + 1


def complete_lines(raw_lines: Iterable[bytes]) -> Iterator[bytes]:
    """Join pieces into whole lines: a line is complete only with its ``\n``.

    A reader that meets end of file in the middle of a line being written gets the start of
    it; when the file has grown by the next read, the rest comes as the next piece. Joined,
    they are the one line the writer wrote. Only what follows the last newline stays partial.
    """
    pending = b""
    for raw in raw_lines:
        if not raw.endswith(b"\n"):
            pending += raw
            continue
        if pending:
            raw, pending = pending + raw, b""
        yield raw
    if pending:
        yield pending


def decode_lines(raw_lines: Iterable[bytes]) -> Iterator[str]:
    """Decode byte lines as UTF-8 (a leading BOM dropped, invalid bytes as U+FFFD)."""
    first = True
    for raw in complete_lines(raw_lines):
        if first:
            first = False
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError:
            yield raw.decode("utf-8", errors="replace")


INCOMPLETE = "incomplete last line (file still being written?)"
SPLIT = "JSON objects with no newline between them"


def _decode_several(line: str) -> tuple[list[Any], ValueError | None]:
    """Decode the JSON values written one after another on a line, and the error that ended it."""
    values: list[Any] = []
    pos, end = 0, len(line)
    while True:
        while pos < end and line[pos] in " \t\r\n":
            pos += 1
        if pos >= end:
            return values, None
        try:
            value, pos = _raw_decode(line, pos)
        except ValueError as exc:
            return values, exc
        except RecursionError:
            return values, ValueError("nesting too deep")
        values.append(value)


def parse_jsonl_lines(
    lines: Iterable[str], repairs: list[BadLine] | None = None
) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Parse JSONL lines (newlines kept) into (line number, value) pairs and the lines that failed.

    Blank lines and CRLF endings are fine. A line holding several JSON values (two writers
    raced, no newline between them) yields each, and is noted in ``repairs``. What follows the
    last newline is a record still being written (or cut by a crash): when it does not parse it
    is reported as an incomplete last line, never as a bad one.
    """
    values: list[tuple[int, Any]] = []
    bad: list[BadLine] = []
    lineno, line = 0, "\n"
    with paused_gc():
        for lineno, line in enumerate(lines, 1):
            if not line or line.isspace():
                continue
            try:
                values.append((lineno, _decode(line)))
                continue
            except RecursionError:
                bad.append(BadLine(lineno, "nesting too deep", line.rstrip("\r\n")[:120]))
                continue
            except ValueError as exc:
                error = exc
            found, rest_error = _decode_several(line) if str(error).startswith("Extra data") else ([], error)
            values.extend((lineno, value) for value in found)
            if len(found) > 1 and repairs is not None:
                repairs.append(BadLine(lineno, f"{len(found)} {SPLIT}", line.rstrip("\r\n")[:120]))
            if rest_error is not None:
                bad.append(BadLine(lineno, str(rest_error).split(":")[0], line.rstrip("\r\n")[:120]))
    if bad and bad[-1].lineno == lineno and not line.endswith("\n"):
        bad[-1] = BadLine(lineno, INCOMPLETE, bad[-1].text)
    return values, bad


def parse_jsonl_lenient(
    text: str, repairs: list[BadLine] | None = None
) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Parse JSONL text; see ``parse_jsonl_lines``."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return parse_jsonl_lines(lines, repairs)


def dumps_line(value: Any) -> str:
    """One JSONL line as the reference writes it (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def session_to_jsonl(session: Any) -> str:
    """The header and every entry of a session as JSONL text (one line each, newline-ended)."""
    lines = [dumps_line(session.header), *(dumps_line(e) for e in session.entries)]
    return "\n".join(lines) + "\n"
