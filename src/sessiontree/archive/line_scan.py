"""The catalog's pass over a session file's lines: counts, prompts, renames, usage rows, last time.

A message line is counted from its leading ``{"type":"message"`` and parsed only when it may be
a typed prompt or carry usage; a growing file's pass continues from its last offset
(``scan_file``). A small pi file met for the first time is read in one pass (``read_small``):
one open, each line parsed at most once, its header record (``store.discovery``) made from the
values this pass parses.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sessiontree.store.discovery import SessionInfo, session_info_of
from sessiontree.store.entries import is_title_slot, is_valid_header
from sessiontree.store.jsonl import decode_line, decode_text
from sessiontree.store.tail import TailReader, TailState

# The entry type when a line starts with it (as every agent writes; spaced or compact JSON).
_LEADING_TYPE = re.compile(rb'\{\s*"type"\s*:\s*"([A-Za-z_]+)"\s*[,}]')
_PARSED = frozenset({b"session_info", b"title_change", b"session"})
"""Entry types parsed whenever met: a rename, a header (a fork's start)."""
_USER_ROLE = re.compile(rb'"role"\s*:\s*"user"')
"""A message line that may be a typed prompt (parsed to count it)."""
_LAST_LINES = 8
"""Lines kept from the end of a read to find the last entry's time."""
HEAD_VALUES = 51
"""Non-blank lines that ``read_small`` parses whole: the title slot, the header and the 49 entries
whose first time may be the session's start (``session_info_of``)."""
_KEPT = frozenset({"message", "title_change", "session_info"})
"""The entries after the head that the header record reads (first prompt, names)."""
_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class Scan:
    """The line pass over one file, continued as the file grows."""

    messages: int = 0
    prompts: int = 0
    """Typed prompts (``store.kinds.is_typed_prompt``: the page's and the outline's rule)."""
    rename: str | None = None
    tail: TailState | None = None
    """Where the pass stopped (the state itself, frozen: at 100,000 records its dict was ~0.5 KB each)."""
    last: str | None = None
    """The timestamp of the last entry that has one."""
    usage: list[list[Any]] = field(default_factory=list)
    """Usage totals per (day, model) (``archive.session_usage``)."""
    fork_ms: int = 0
    """A fork's start (its header's time): usage dated before it is its parent's, copied."""

    def feed(self, lines: Iterable[bytes], seen: list[Any] | None = None) -> bool:
        """Take ``lines``. With ``seen``, the head's non-blank lines are parsed whole and their
        values (None: not JSON) go there (``in_head``), then the later parsed ones ``_KEPT`` holds;
        False when the first two values show the file is no pi session (the pass then stops)."""
        from sessiontree.archive.session_usage import may_carry_usage  # with the prices: not for search

        match = _LEADING_TYPE.match
        recent: list[bytes] = []
        head = seen is not None
        parsed: tuple[bytes, Any] = (b"", None)
        for line in lines:
            recent.append(line)
            if len(recent) > 2 * _LAST_LINES:
                del recent[:_LAST_LINES]
            found = match(line)
            if head and seen is not None and line.strip():
                counted = found is not None and found.group(1) == b"message"
                self.messages += counted
                value = self._parse(line, counted=counted)
                seen.append(None if seen and line.startswith(_BOM) else value)  # a BOM starts a file only
                if len(seen) == 2 and not _starts_session(seen):
                    return False
                head = in_head(seen)
            elif found is None:
                value = self._parse(line, seen)  # another key order (or not JSON): parse to be sure
            elif found.group(1) == b"message":
                self.messages += 1
                if not (may_carry_usage(b"message", line) or _USER_ROLE.search(line)):
                    continue
                value = self._parse(line, seen, counted=True)
            elif found.group(1) in _PARSED or may_carry_usage(found.group(1), line):
                value = self._parse(line, seen)
            else:
                continue
            parsed = (line, value)
        self.last = _last_time(recent, parsed) or self.last
        return True

    def _parse(self, line: bytes, seen: list[Any] | None = None, *, counted: bool = False) -> Any:
        from sessiontree.archive.extract import parse_time
        from sessiontree.archive.session_usage import add_entry_usage
        from sessiontree.store.kinds import is_typed_prompt

        try:
            value = decode_line(decode_text(line))
        except ValueError:
            return None
        if not isinstance(value, dict):
            return value
        kind = value.get("type")
        if seen is not None and kind in _KEPT and not line.startswith(_BOM):
            seen.append(value)
        if kind == "message" or kind == "model_usage" or kind == "custom":
            self.messages += kind == "message" and not counted
            self.prompts += is_typed_prompt(value)
            add_entry_usage(self.usage, value, self.fork_ms)
        elif kind == "session" and value.get("parentSession"):
            self.fork_ms = parse_time(value.get("timestamp"))
        elif kind == "session_info" and isinstance(value.get("name"), str):
            self.rename = value["name"] or None
        elif kind == "title_change" and isinstance(value.get("title"), str):
            self.rename = value["title"] or None
        return value


def _starts_session(values: list[Any]) -> bool:
    """Whether a file's first two values may start a pi session (a header, or the title slot and one)."""
    return is_valid_header(values[0]) or (is_title_slot(values[0]) and is_valid_header(values[1]))


def in_head(seen: list[Any]) -> bool:
    """Whether the next non-blank line is still one ``session_info_of`` reads whole: until the
    first entry after the header that has a time (the session's start), at most ``HEAD_VALUES``."""
    if len(seen) >= HEAD_VALUES:
        return False
    entries = len(seen) - 1 - (len(seen) > 1 and is_title_slot(seen[0]))
    last = seen[-1]
    return not (entries > 0 and isinstance(last, dict) and isinstance(last.get("timestamp"), str))


def _last_time(lines: list[bytes], parsed: tuple[bytes, Any]) -> str | None:
    """The timestamp of the last of ``lines`` that has one (only these few lines are parsed, the
    last one the pass parsed not again: ``parsed``, that line and its value)."""
    for line in reversed(lines):
        if line is parsed[0]:
            value = parsed[1]
        else:
            try:
                value = decode_line(decode_text(line))
            except ValueError:
                continue
        stamp = value.get("timestamp") if isinstance(value, dict) else None
        if isinstance(stamp, str) and stamp:
            return stamp
    return None


def scan_file(path: Path, previous: Scan | None) -> Scan:
    """Count messages and find renames, from the last offset when the file only grew."""
    if previous is not None and previous.tail is not None:
        reader = TailReader(path, previous.tail)
        result = reader.poll()
        if result.kind == "append" and reader.state is not None:
            scan = replace(previous, usage=[list(row) for row in previous.usage])
            scan.feed(result.lines)
            scan.tail = reader.state
            return scan
    reader = TailReader(path)
    scan = Scan()
    scan.feed(reader.read_all(yielding=True))
    scan.tail = reader.state
    return scan


def read_small(path: Path, mtime: float, size: int) -> tuple[SessionInfo, Scan] | None:
    """A small pi file's header record and line pass, from one open and one pass (None when it is
    no pi session); the record as ``read_session_info`` makes it, with the pass's counts."""
    reader = TailReader(path)
    scan = Scan()
    seen: list[Any] = []
    lines = reader.read_all(yielding=True)
    if not scan.feed(lines, seen):
        lines.close()
        return None
    partial = (
        reader.partial
    )  # a last line still being written counts for the header, as a read of the whole text
    if partial.strip() and (len(seen) < HEAD_VALUES or not partial.startswith(_BOM)):
        try:
            value = decode_line(decode_text(partial))
        except ValueError:
            value = None
        if len(seen) < HEAD_VALUES:
            seen.append(None if seen and partial.startswith(_BOM) else value)
        elif isinstance(value, dict) and value.get("type") in _KEPT:
            seen.append(value)
    info = session_info_of(path, seen, mtime, size, whole=True) if seen else None
    if info is None:
        return None
    scan.tail = reader.state
    return info, scan
