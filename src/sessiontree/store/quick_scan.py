"""A quick scan of a pi session file: each line's id, parent and type, never the whole file parsed.

A server's first screen needs the header, the leaf and the start of the active path, not the
millions of objects of every entry. The scan reads the file line by line; each entry's id, parent
and type come from a byte match on the start of its line (``{"type":…,"id":…,"parentId":…``, as
pi and oh-my-pi write it) or, where the line starts otherwise, from a parse of that line alone.
Only the entries asked for are read again and parsed whole, by the load's own parser.

Anything the whole load would repair or migrate (an older version, another agent's format, a
line that does not parse, a parent not seen before its child, an id given twice, an entry
without an id) makes the scan give up: its caller takes the whole load instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from sessiontree.store.entries import CURRENT_VERSION, header_version
from sessiontree.store.jsonl import decode_lines, parse_jsonl_lines
from sessiontree.store.kinds import typed_prompt
from sessiontree.store.load import rehydrate_blobs, session_from_values
from sessiontree.store.session import Session

_START = re.compile(rb'\{"type": ?"([^"\\]*)", ?"id": ?"([^"\\]*)", ?"parentId": ?(?:null|"([^"\\]*)") ?[,}]')
"""The start of a pi entry line: its type, id and parent (JSON strings without escapes)."""

HEAD_ENTRIES = 50
"""Entries read from the file's start: where a session's start time is found (``Session.started``)."""
TITLE_LOOKUP = 500
"""Entries looked at from the start for the first typed prompt (the title of an untitled session)."""
ALWAYS_READ = frozenset({"label", "title_change", "session_info"})
"""Entry types read wherever they are: labels of any entry, the session's latest title."""


@dataclass
class SessionScan:
    """A file's entries as ids, parents, types and byte spans, in file order; its header parsed."""

    path: Path
    head: list[tuple[int, Any]]
    """The lines before the first entry (header, oh-my-pi's title slot), parsed, by line number."""
    ids: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    spans: list[tuple[int, int, int]] = field(default_factory=list)
    """(offset, length, line number) of each entry's line."""
    index: dict[str, int] = field(default_factory=dict)
    parents: list[int] = field(default_factory=list)
    """Each entry's parent, as an index into ``ids`` (-1 for a root)."""

    last_line_id: str | None = None
    """The id of the file's last entry (an id given twice is where it was first)."""

    @property
    def leaf_id(self) -> str | None:
        """The last entry's id (the active leaf, as the whole load has it)."""
        return self.last_line_id

    def path_to(self, entry_id: str) -> list[str]:
        """The ids from the root to ``entry_id``."""
        chain: list[str] = []
        k = self.index[entry_id]
        while k >= 0:
            chain.append(self.ids[k])
            k = self.parents[k]
        chain.reverse()
        return chain

    def parent_of(self, entry_id: str) -> str | None:
        """An entry's parent id (None for a root)."""
        k = self.parents[self.index[entry_id]]
        return self.ids[k] if k >= 0 else None

    def last_of_type(self, path: list[str], kind: str) -> str | None:
        """The last entry of ``kind`` among ``path``'s ids."""
        return next((i for i in reversed(path) if self.types[self.index[i]] == kind), None)

    def read(self, wanted: Iterable[str], *, agent_dir: Path | None = None) -> Session | None:
        """The session with only ``wanted`` entries and those its header needs (the first
        ``HEAD_ENTRIES``, up to the first typed prompt, labels and titles), images put back; None
        when a line read again no longer parses as it did (the file changed)."""
        picked = {self.index[i] for i in wanted}
        picked.update(range(min(HEAD_ENTRIES, len(self.ids))))
        picked.update(k for k, kind in enumerate(self.types) if kind in ALWAYS_READ)
        values = self._parse(sorted(picked))
        if values is None:
            return None
        session = session_from_values([*self.head, *values], [], self.path)
        if session.title is None:  # titled by its first typed prompt, in file order
            prompt = self._up_to_first_prompt(dict(zip(sorted(picked), values, strict=True)))
            if prompt is None:
                return None
            values = sorted(values + prompt, key=lambda item: item[0])
            session = session_from_values([*self.head, *values], [], self.path)
        if session.is_empty or len(session.entries) != len(values):
            return None
        rehydrate_blobs(session, self.path, agent_dir=agent_dir)
        return session

    def _up_to_first_prompt(self, have: dict[int, tuple[int, Any]]) -> list[tuple[int, Any]] | None:
        """The message lines not read yet up to the first typed prompt (None: none that early)."""
        found: list[tuple[int, Any]] = []
        for k in range(min(TITLE_LOOKUP, len(self.ids))):
            if self.types[k] != "message":
                continue
            known = have.get(k)
            if known is None:
                parsed = self._parse([k])
                if parsed is None:
                    return None
                known = parsed[0]
                found.append(known)
            if typed_prompt(known[1]):
                return found
        return found if len(self.ids) <= TITLE_LOOKUP else None

    def _parse(self, picked: list[int]) -> list[tuple[int, Any]] | None:
        lines: list[bytes] = []
        with self.path.open("rb") as f:
            for k in picked:
                offset, length, _ = self.spans[k]
                f.seek(offset)
                lines.append(f.read(length))
        values, bad = parse_jsonl_lines(decode_lines(lines))
        if bad or len(values) != len(picked):
            return None
        out: list[tuple[int, Any]] = []
        for (_, value), k in zip(values, picked, strict=True):
            if not isinstance(value, dict) or value.get("id") != self.ids[k]:
                return None
            out.append((self.spans[k][2], value))
        return out


Row = tuple[str, str, str | None, int, int, int]
"""An entry line: (type, id, parent, offset, length, line number)."""


def scan_session(path: Path) -> SessionScan | None:
    """Scan a current-version pi session file; None where only the whole load reads it right."""
    try:
        with path.open("rb") as f:
            found = _line_rows(f)
        return None if found is None else _indexed(path, *found)
    except (OSError, ValueError):
        return None


def _line_rows(lines: Iterable[bytes]) -> tuple[list[tuple[int, Any]], list[Row]] | None:
    """The head and entry rows of a file, line by line; None where the scan gives up.

    A line that starts as pi writes an entry and ends with ``}`` is not parsed; one that does
    not is (``_fields``). Two entries written on one line with no newline between them are not
    looked for there (a search of every byte: 0.1 s of CPU a 100 MB file): the second one's
    children, its being the leaf or its being read for the first screen makes the scan give up.
    """
    match = _START.match
    head: list[tuple[int, Any]] = []
    rows: list[Row] = []
    offset = 0
    last = b""
    for lineno, line in enumerate(lines, 1):
        length = len(line)
        found = match(line)
        if found is not None and line[-2:] == b"}\n":
            kind, entry_id, parent = found.groups()
            parent_id = None if parent is None else parent.decode()
            rows.append((kind.decode(), entry_id.decode(), parent_id, offset, length, lineno))
            last = line
        elif not line.endswith(b"\n"):
            break  # a line still being written: the load leaves it for later too
        else:
            fields = _fields(line, lineno)
            if isinstance(fields, dict):
                if rows:
                    return None  # a line that is not an entry after the entries began
                head.append((lineno, fields))
            elif fields is not None:
                rows.append((*fields, offset, length, lineno))
                last = b""
        offset += length
    if b"}{" in last:
        orjson.loads(last)  # the leaf's line holds two entries: the second is the leaf
    return head, rows


def _indexed(path: Path, head: list[tuple[int, Any]], rows: list[Row]) -> SessionScan | None:
    header = head[-1][1] if head else None
    if header is None or header.get("type") != "session" or header_version(header) != CURRENT_VERSION:
        return None
    scan = SessionScan(path, head=head)
    ids, types, spans, index = scan.ids, scan.types, scan.spans, scan.index
    raw: list[str | None] = []
    for kind, entry_id, parent, offset, length, lineno in rows:
        k = index.get(entry_id)
        if k is None:
            index[entry_id] = len(ids)
            ids.append(entry_id)
            types.append(kind)
            spans.append((offset, length, lineno))
            raw.append(parent)
        elif k < TITLE_LOOKUP:
            return None  # an id given twice among the entries the header is made from
        else:  # an id given twice: the last line is the entry, and its parent the entry's
            types[k], spans[k], raw[k] = kind, (offset, length, lineno), parent
    scan.last_line_id = rows[-1][1] if rows else None
    parents = _resolve(raw, index)
    if parents is None:
        return None
    scan.parents.extend(parents)
    return scan


def _resolve(raw: list[str | None], index: dict[str, int]) -> list[int] | None:
    """Each entry's parent as an index (-1: a root), as the entry tree links them (a cycle is cut
    at its earliest entry); None where the whole load would repair the tree (a parent not in the
    file, an entry its own parent)."""
    parents: list[int] = []
    for k, parent in enumerate(raw):
        p = -1 if parent is None else index.get(parent, -2)
        if p == -2 or p == k:
            return None
        parents.append(p)
    if all(p < k for k, p in enumerate(parents)):
        return parents  # every parent before its child: no cycle (a file as written, one by one)
    done = [False] * len(parents)
    for start in range(len(parents)):
        chain: list[int] = []
        on_chain: set[int] = set()
        node = start
        while node >= 0 and not done[node] and node not in on_chain:
            chain.append(node)
            on_chain.add(node)
            node = parents[node]
        if node >= 0 and node in on_chain:
            parents[min(chain[chain.index(node) :])] = -1  # positions are indexes: the earliest is the least
        for n in chain:
            done[n] = True
    return parents


def _fields(line: bytes, lineno: int) -> tuple[str, str, str | None] | dict[str, Any] | None:
    """An entry line's (type, id, parent), a header line parsed, or None for a blank line.

    Raises ValueError for a line the load would not read as one entry of a known id."""
    match = _START.match(line)
    if match is not None:
        if b"}{" in line or not line.rstrip().endswith(b"}"):
            orjson.loads(line)  # two values with no newline between them, or a line cut short
        kind, entry_id, parent = match.groups()
        return kind.decode(), entry_id.decode(), parent.decode() if parent is not None else None
    if line.isspace():
        return None
    if lineno > 1 and line.startswith(b"\xef\xbb\xbf"):
        raise ValueError("a byte order mark inside the file")
    values, bad = parse_jsonl_lines(decode_lines([line]))  # the load's own reading of this line
    if bad or len(values) != 1 or not isinstance(values[0][1], dict):
        raise ValueError("not one JSON object")
    value: dict[str, Any] = values[0][1]
    kind, entry_id, parent = value.get("type"), value.get("id"), value.get("parentId")
    if kind in ("session", "title") and "parentId" not in value:
        return value
    if not isinstance(kind, str) or not isinstance(entry_id, str) or not isinstance(parent, str | None):
        raise ValueError("an entry without a type or id")
    return kind, entry_id, parent
