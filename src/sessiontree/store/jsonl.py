"""Lenient JSONL: every parsable line kept, every bad one reported with its line number."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

_decode = json.JSONDecoder().decode


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


def parse_jsonl_lenient(text: str) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Parse JSONL text into (line number, value) pairs and the lines that failed.

    Blank lines and CRLF endings are fine; a half-written last line (no newline, bad JSON) is
    reported like any other bad line, so a file being written by the agent still loads.
    """
    values: list[tuple[int, Any]] = []
    bad: list[BadLine] = []
    with paused_gc():
        for lineno, line in enumerate(text.split("\n"), 1):
            if not line or line.isspace():
                continue
            try:
                values.append((lineno, _decode(line)))
            except ValueError as exc:
                reason = str(exc).split(":")[0]
                bad.append(BadLine(lineno, reason, line[:120]))
            except RecursionError:
                bad.append(BadLine(lineno, "nesting too deep", line[:120]))
    return values, bad


def dumps_line(value: Any) -> str:
    """One JSONL line as the reference writes it (compact, non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def session_to_jsonl(session: Any) -> str:
    """The header and every entry of a session as JSONL text (one line each, newline-ended)."""
    lines = [dumps_line(session.header), *(dumps_line(e) for e in session.entries)]
    return "\n".join(lines) + "\n"
