"""Lenient JSONL: every parsable line kept, every bad one reported with its line number."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sessiontree.store.contain import contain_fields, has_surrogate_escape, replace_surrogates_deep
from sessiontree.store.numbers import constant_from_json, float_from_json, int_from_json

NESTING = "nesting too deep"

# Numbers are clamped while decoding (the hooks cost nothing measurable): no later stage meets an
# integer SQLite cannot store, a float that overflows, or NaN. The write path's decoder keeps
# every value as written (a rewrite must not change what it does not touch).
_decoder = json.JSONDecoder(
    parse_int=int_from_json, parse_float=float_from_json, parse_constant=constant_from_json
)
_raw_decoder = json.JSONDecoder()


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


@contextmanager
def frozen_gc() -> Iterator[None]:
    """Keep the cyclic garbage collector off what exists now (a loaded session) while rendering it.

    The collector's passes over a 2,000-turn session's millions of objects were a tenth of an
    export's CPU; what the render makes is still collected. Thawed after: objects of before that
    became cyclic garbage meanwhile are collected then.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that could not be used: its 1-based number, why, and the start of its text."""

    lineno: int
    reason: str
    text: str


def decode_text(data: bytes) -> str:
    """Decode file bytes as UTF-8 (BOM dropped); invalid bytes become U+FFFD instead of failing."""
    return _utf8(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)


def _utf8(data: bytes) -> str:
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
    lines = complete_lines(raw_lines)
    for raw in lines:  # the first line only: a BOM is where a file starts
        yield decode_text(raw)
        break
    for raw in lines:
        yield _utf8(raw)


INCOMPLETE = "incomplete last line (file still being written?)"
SPLIT = "JSON objects with no newline between them"


def _contain(value: Any, text: str) -> Any:
    if has_surrogate_escape(text):
        value = replace_surrogates_deep(value)
    return contain_fields(value)


def decode_json(text: str) -> Any:
    """Decode untrusted JSON text: numbers clamped, lone surrogates as U+FFFD.

    Raises ValueError for anything that is not one JSON value, a value nested too deep for
    the decoder included (RecursionError never leaves).
    """
    try:
        value = _decoder.decode(text)
    except RecursionError:
        raise ValueError(NESTING) from None
    return replace_surrogates_deep(value) if has_surrogate_escape(text) else value


def decode_json_at(text: str, at: int) -> tuple[Any, int]:
    """Decode the JSON value that starts at ``at`` in ``text`` (``decode_json``'s containment),
    and where it ends; ValueError when none starts there or it nests too deep."""
    try:
        value, end = _decoder.raw_decode(text, at)
    except RecursionError:
        raise ValueError(NESTING) from None
    return (replace_surrogates_deep(value) if has_surrogate_escape(text[at:end]) else value), end


def decode_column(value: object) -> Any:
    """Decode JSON held in a database column (text or bytes) as ``decode_json`` does; None for
    anything else or for a column that is no JSON."""
    if isinstance(value, bytes):
        value = decode_text(value)
    if not isinstance(value, str):
        return None
    try:
        return decode_json(value)
    except ValueError:
        return None


def decode_line(text: str) -> Any:
    """Decode one session line, the one way every reader does: ``decode_json``, then the
    naming fields (ids, types, roles, titles, timestamps) of the wrong type dropped."""
    return contain_fields(decode_json(text))


def decode_raw(text: str) -> Any:
    """Decode JSON text as written (the write path's reading); deep nesting is a ValueError."""
    try:
        return _raw_decoder.decode(text)
    except RecursionError:
        raise ValueError(NESTING) from None


def _decode_several(line: str, decoder: json.JSONDecoder) -> tuple[list[Any], ValueError | None]:
    """Decode the JSON values written one after another on a line, and the error that ended it."""
    values: list[Any] = []
    pos, end = 0, len(line)
    while True:
        # Any whitespace parts two values: a newline damaged into a vertical tab or form feed
        # (one flipped bit) still parts two lines that are each whole.
        while pos < end and line[pos].isspace():
            pos += 1
        if pos >= end:
            return values, None
        try:
            value, pos = decoder.raw_decode(line, pos)
        except ValueError as exc:
            return values, exc
        except RecursionError:
            return values, ValueError(NESTING)
        values.append(value)


def parse_jsonl_lines(
    lines: Iterable[str], repairs: list[BadLine] | None = None, *, contain: bool = True
) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Parse JSONL lines (newlines kept) into (line number, value) pairs and the lines that failed.

    Blank lines and CRLF endings are fine. A line holding several JSON values (two writers
    raced, no newline between them) yields each, and is noted in ``repairs``. What follows the
    last newline is a record still being written (or cut by a crash): when it does not parse it
    is reported as an incomplete last line, never as a bad one. Each value is contained as
    ``decode_line`` does; ``contain=False`` (the write path) keeps every value as written.
    """
    values: list[tuple[int, Any]] = []
    bad: list[BadLine] = []
    lineno, line = 0, "\n"
    decode = decode_line if contain else decode_raw
    with paused_gc():
        for lineno, line in enumerate(lines, 1):
            if not line or line.isspace():
                continue
            try:
                values.append((lineno, decode(line)))
                continue
            except ValueError as exc:
                error = exc
            if str(error).startswith(("Extra data", "Expecting value: line 1 column 1 ")):
                # Several values on the line, or whitespace JSON does not know before the first.
                found, rest_error = _decode_several(line, _decoder if contain else _raw_decoder)
                if contain:
                    found = [_contain(value, line) for value in found]
            else:
                found, rest_error = [], error
            values.extend((lineno, value) for value in found)
            if len(found) > 1 and repairs is not None:
                repairs.append(BadLine(lineno, f"{len(found)} {SPLIT}", line.rstrip("\r\n")[:120]))
            if rest_error is not None:
                bad.append(BadLine(lineno, str(rest_error).split(":")[0], line.rstrip("\r\n")[:120]))
    if bad and bad[-1].lineno == lineno and not line.endswith("\n"):
        bad[-1] = BadLine(lineno, INCOMPLETE, bad[-1].text)
    return values, bad


def parse_jsonl_lenient(
    text: str, repairs: list[BadLine] | None = None, *, contain: bool = True
) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Parse JSONL text; see ``parse_jsonl_lines``."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return parse_jsonl_lines(lines, repairs, contain=contain)


def dumps_line(value: Any) -> str:
    """One JSONL line as the reference writes it (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def session_to_jsonl(session: Any) -> str:
    """The header and every entry of a session as JSONL text (one line each, newline-ended)."""
    lines = [dumps_line(session.header), *(dumps_line(e) for e in session.entries)]
    return "\n".join(lines) + "\n"
