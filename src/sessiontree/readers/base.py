"""What every reader shares: the reader shape, the registry, prefix sniffing and line reading."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from sessiontree.store.bounded import MAX_DOCUMENT, read_head, read_regular
from sessiontree.store.contain import contain_fields
from sessiontree.store.entries import Entry, dicts_of
from sessiontree.store.formats import SNIFF_BYTES, SNIFF_LINES
from sessiontree.store.jsonl import (
    BadLine,
    decode_json,
    decode_json_at,
    decode_line,
    decode_lines,
    decode_text,
    parse_jsonl_lines,
)
from sessiontree.store.storage import FileSessionStorage

if TYPE_CHECKING:
    from sessiontree.store.session import Session

_CSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


class Reader(Protocol):
    """One agent's file format, read into the session model (read-only)."""

    agent: ClassVar[str]
    """The ``--agent`` name: claude, codex, pi. Its label and its sniffer are rows of
    ``store.formats`` (``AGENT_LABELS``, ``sniff_agent``), which the write path reads too."""

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read a whole file into a Session (never writes)."""
        ...


READERS: dict[str, Reader] = {}
"""``--agent`` name -> reader, in detection order (most specific first)."""


def register(reader: Reader) -> Reader:
    """Add a reader to the registry (detection tries readers in registration order)."""
    READERS[reader.agent] = reader
    return reader


def read_prefix_values(path: Path, limit: int = SNIFF_LINES) -> list[Any]:
    """The first ``limit`` JSON values of a file (unparsable lines as None), read lazily."""
    values: list[Any] = []
    read = 0
    lines = FileSessionStorage().iter_lines_sync(path)
    try:
        for line in decode_lines(lines):
            read += len(line)
            if line.strip():
                try:
                    values.append(decode_line(line))
                except ValueError:
                    values.append(None)
            if len(values) >= limit or read >= SNIFF_BYTES:
                break
    finally:
        close = getattr(lines, "close", None)
        if close is not None:
            close()
    # One pretty-printed object (OpenCode's, Gemini CLI's, Amp's)? Its first line is no JSON, and
    # no line is an object, though one may be a scalar ("    3" ending a list, "  true").
    if values and values[0] is None and not any(isinstance(v, dict) for v in values):
        head = read_head_object(path, SNIFF_BYTES)
        if head is None:  # one pretty-printed array (a Cline task's): its first item, when whole
            first = read_head_item(path, SNIFF_BYTES)
            return values if first is None else [[contain_fields(first)]]
        # contained as a line is: a list or object where a type, an id or a role is, dropped
        return [contain_fields(head)]
    return values


def read_head_object(path: Path, limit: int) -> dict[str, Any] | None:
    """The leading members of a file that is one JSON object, from its first ``limit`` bytes.

    A member whose value runs past the prefix (a long ``messages`` list) is there with the value
    ``TRUNCATED``, and no member after it: enough to tell the format of a large pretty-printed file.
    """
    try:
        text = decode_text(read_head(path, limit))
    except (OSError, ValueError):
        return None
    return head_members(text)


TRUNCATED: Any = object()
"""The value ``read_head_object`` gives a member cut off by the end of the prefix."""

_SPACE = re.compile(r"[ \t\r\n]*")


def read_head_item(path: Path, limit: int) -> dict[str, Any] | None:
    """The first item of a file that is one JSON array, when it is an object whole in ``limit`` bytes."""
    try:
        text = decode_text(read_head(path, limit))
    except (OSError, ValueError):
        return None
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]  # matches the empty string
    if not text.startswith("[", at):
        return None
    try:
        value, _ = decode_json_at(text, _SPACE.match(text, at + 1).end())  # type: ignore[union-attr]
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def head_members(text: str) -> dict[str, Any] | None:
    """The members of the JSON object that ``text`` starts (or the start of one), in order."""
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]  # matches the empty string
    if not text.startswith("{", at):
        return None
    members: dict[str, Any] = {}
    at += 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text.startswith("}", at) or at >= len(text):
            return members
        try:
            key, at = decode_json_at(text, at)
        except ValueError:
            return members or None
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if not isinstance(key, str) or not text.startswith(":", at):
            return members or None
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
        try:
            members[key], at = decode_json_at(text, at)
        except ValueError:
            members[key] = TRUNCATED
            return members
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text.startswith(",", at):
            at += 1


def read_whole_object(path: Path, limit: int) -> dict[str, Any] | None:
    """A file of at most ``limit`` bytes that is one JSON object (pretty-printed or not), else None."""
    try:
        value = read_json_file(path, limit)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def read_json_file(path: Path, limit: int = MAX_DOCUMENT) -> Any:
    """A file that is one JSON value, read through the one boundary of every one-object format:
    a regular file of at most ``limit`` bytes (else ``OSError``), numbers clamped, lone
    surrogates as U+FFFD, nesting too deep a ``ValueError`` (``store.jsonl.decode_json``)."""
    return decode_json(decode_text(read_regular(path, limit)))


def read_values(path: Path) -> tuple[list[tuple[int, Any]], list[BadLine]]:
    """Every line of a file as (line number, JSON value), and the lines that were not JSON."""
    lines = FileSessionStorage().iter_lines_sync(path)
    try:
        return parse_jsonl_lines(decode_lines(lines))
    finally:
        close = getattr(lines, "close", None)
        if close is not None:
            close()


def strip_csi(text: str) -> str:
    """Drop terminal colour sequences from text an agent captured from a terminal."""
    return _CSI.sub("", text) if "\x1b" in text else text


def as_str(value: Any) -> str | None:
    """The value when it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def number_or_zero(value: Any) -> float:
    """A number as written (``store.sane`` says later which are out of range), else 0."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else 0


def token_usage(source: dict[str, Any], keys: tuple[str, str, str, str]) -> dict[str, Any] | None:
    """A reply's usage from the fields ``keys`` name (input, output, cache read, cache write) of a
    record, or None when it counts nothing."""
    names = ("input", "output", "cacheRead", "cacheWrite")
    made = {name: number_or_zero(source.get(key)) for name, key in zip(names, keys, strict=True)}
    return {**made, "totalTokens": sum(made.values())} if any(made.values()) else None


def dict_items(value: Any, what: str, bad: list[BadLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The objects of a one-object file's list, by index; anything else reported as a bad line."""
    for index, item in enumerate(value if isinstance(value, list) else []):
        if isinstance(item, dict):
            yield index, item
        else:
            bad.append(BadLine(1, f"{what} {index} is not a JSON object", str(item)[:120]))


def image_block(block: dict[str, Any]) -> dict[str, Any] | None:
    """An Anthropic ``image`` block (``source: {data, media_type}``) as an image, else None."""
    source = block.get("source")
    data = as_str(source.get("data")) if isinstance(source, dict) else None
    if data is None:
        return None
    mime = as_str(source.get("media_type")) if isinstance(source, dict) else None
    return {"type": "image", "data": data, "mimeType": mime or "image/png"}


def tool_result_message(block: dict[str, Any], names: dict[str, str], fallback_id: str) -> dict[str, Any]:
    """An Anthropic ``tool_result`` block (``tool_use_id``, ``content``: text or text blocks,
    ``is_error``) as a tool result message."""
    cid = as_str(block.get("tool_use_id")) or fallback_id
    value = block.get("content")
    texts = [value] if isinstance(value, str) else [b.get("text") for b in dicts_of(value)]
    text = "\n".join(t for t in texts if isinstance(t, str))
    return {
        "role": "toolResult",
        "toolCallId": cid,
        "toolName": names.get(cid, "tool"),
        "content": [{"type": "text", "text": text}],
        "isError": block.get("is_error") is True,
    }


def tool_use_call(block: dict[str, Any], names: dict[str, str], fallback_id: str) -> dict[str, Any]:
    """An Anthropic ``tool_use`` block as a tool call (its name noted in ``names`` for its result)."""
    cid = as_str(block.get("id")) or fallback_id
    names[cid] = as_str(block.get("name")) or "tool"
    args = block.get("input")
    return {
        "type": "toolCall",
        "id": cid,
        "name": names[cid],
        "arguments": args if isinstance(args, dict) else {},
    }


@dataclass
class EntryBuilder:
    """Collects the entries a reader makes: fresh ids, the custom entries that carry unknown lines."""

    prefix: str
    entries: list[Entry] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)

    def line_id(self, lineno: int, part: int = 0) -> str:
        """An id for something made from line ``lineno`` (ids of the file itself never look like this)."""
        return f"{self.prefix}{lineno}" + (f".{part}" if part else "")

    def carry(self, lineno: int, kind: str, data: Any, parent: str | None, ts: Any = None) -> Entry:
        """Keep a line sessiontree does not show as a conversation part, as JSON under "all"."""
        entry: Entry = {
            "type": "custom",
            "id": self.line_id(lineno),
            "parentId": parent,
            "customType": kind,
            "data": data,
        }
        if isinstance(ts, str):
            entry["timestamp"] = ts
        self.entries.append(entry)
        return entry


class Chain:
    """Entries in file order, each the child of the one before (the formats with no tree of their own)."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, entry: Entry, ts: Any = None) -> None:
        """Append an entry under the last one, with its time when it has one."""
        entry["parentId"] = str(self.entries[-1]["id"]) if self.entries else None
        if isinstance(ts, str):
            entry["timestamp"] = ts
        self.entries.append(entry)

    def last_id(self) -> str | None:
        """The id of the last entry (the leaf), or None."""
        return str(self.entries[-1]["id"]) if self.entries else None


class ModelChain(Chain):
    """A chain whose replies carry the session's model (the formats that name one model a session)."""

    def __init__(self, model: str | None) -> None:
        super().__init__()
        self.model = model

    def reply(self, mid: str, blocks: list[dict[str, Any]], ts: str | None) -> None:
        """Append an assistant message of these blocks."""
        message: dict[str, Any] = {"role": "assistant", "content": blocks}
        if self.model:
            message["model"] = self.model
        self.add({"type": "message", "id": mid, "message": message}, ts)


def session_header(
    agent: str,
    session_id: str,
    cwd: str = "",
    *,
    timestamp: Any = None,
    title: Any = None,
    parent: Any = None,
) -> dict[str, Any]:
    """The header of another agent's session, in the store's shape: ``timestamp``, ``title`` and
    ``parentSession`` only when each is a non-empty string."""
    header: dict[str, Any] = {"type": "session", "version": 3, "id": session_id, "agent": agent, "cwd": cwd}
    for key, value in (("timestamp", timestamp), ("title", title), ("parentSession", parent)):
        if isinstance(value, str) and value:
            header[key] = value
    return header


def make_session(
    path: Path,
    header: dict[str, Any],
    entries: list[Entry],
    bad: list[BadLine],
    leaf_id: str | None,
) -> Session:
    """A Session from a reader's work (foreign files are never migrated: version 3 as made), its
    times, token counts and costs range-checked in the one place every agent's go through."""
    from sessiontree.store.repair import Repair
    from sessiontree.store.sane import contain_values, sane_time
    from sessiontree.store.session import Session  # not at import: finding files (search) loads none

    bad.sort(key=lambda b: b.lineno)
    repairs = contain_values(entries)
    if "timestamp" in header and not sane_time(header["timestamp"]):
        said = repr(header.pop("timestamp"))[:40]
        repairs.append(Repair(0, "unknown", f"the session's start {said} is out of range: read as unknown"))
    session = Session(header=header, entries=entries, path=path, leaf_id=leaf_id, bad_lines=bad)
    session.repairs.extend(repairs)
    return session


def iter_dicts(values: list[tuple[int, Any]], bad: list[BadLine]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects among parsed lines; anything else is reported as a bad line."""
    for lineno, value in values:
        if isinstance(value, dict):
            yield lineno, value
        else:
            bad.append(BadLine(lineno, "not a JSON object", str(value)[:120]))
