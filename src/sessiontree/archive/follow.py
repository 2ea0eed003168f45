"""Following another agent's file line by line for the index (Claude Code, Codex CLI).

A reader turns a whole file into a Session; the index wants only what appended lines add. A
follower is the reader's own line converter, seeded with what earlier lines left that later
lines refer to: ids already read (a resumed session repeats its history), tool call names (a
result is named after its call), and the entries later lines can still change (a Claude reply
streamed over several lines, a compaction whose summary comes next, Codex's open reply and the
reply its token counts go to). The small part travels as JSON in ``files.follow``; ids and call
names sit in ``follow_keys``. A line that refers to an entry the follower did not keep raises
``Reload``: the file is read whole again, so following always gives the rows a whole read gives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from sessiontree.archive.follow_keys import Keys, Reload
from sessiontree.readers.base import EntryBuilder, iter_dicts
from sessiontree.readers.claude import _Converter as _ClaudeConverter
from sessiontree.readers.claude_layout import subagent_files
from sessiontree.readers.claude_links import Linker, Node
from sessiontree.readers.codex import _Converter as _CodexConverter
from sessiontree.readers.codex import has_response_messages
from sessiontree.store.entries import Entry
from sessiontree.store.jsonl import BadLine, decode_lines, parse_jsonl_lines

KEEP_REPLIES = 8
"""Claude replies kept open for lines that continue them (an older one continued: read whole)."""


def parse_lines(lines: list[bytes], first_lineno: int) -> list[tuple[int, Any]]:
    """(line number, JSON value) of complete lines, decoded as the readers decode a whole file."""
    # A leading blank line keeps decode_lines from taking a middle line for the file's first (BOM).
    values, _bad = parse_jsonl_lines(decode_lines([b"\n", *lines]))
    return [(lineno + first_lineno - 2, value) for lineno, value in values]


class Follower(Protocol):
    """One agent's line converter, resumable: ``feed`` lines, then ``save`` its state."""

    changed: list[Entry]
    """Entries of earlier feeds that this feed changed (their rows are made again)."""

    def feed(self, values: list[tuple[int, Any]], whole: bool) -> list[Entry]:
        """Convert lines (the file's first when ``whole``); return the new entries, in file order."""
        ...

    def session_header(self) -> dict[str, Any]:
        """What the whole file's header would say so far: id, cwd, timestamp, title (and ``titles``,
        every distinct one, when the format has several)."""
        ...

    def save(self) -> dict[str, Any]:
        """The JSON-ready state ``follower_for`` takes back."""
        ...


def _snapshot(entries: Iterable[Entry]) -> dict[str, str]:
    return {e["id"]: json.dumps(e, sort_keys=True, default=str) for e in entries}


def _changed(kept: Iterable[Entry], before: dict[str, str]) -> list[Entry]:
    return [
        e for e in kept if e["id"] in before and json.dumps(e, sort_keys=True, default=str) != before[e["id"]]
    ]


# --- Claude Code ----------------------------------------------------------------------------


class _SeededLinker(Linker):
    """A linker that also knows the ids of earlier feeds and the entries they left open."""

    def __init__(self, keys: Keys, kept: dict[str, Entry]) -> None:
        super().__init__()
        self.keys = keys
        self.kept = kept

    def known(self, uuid: str) -> bool:
        return super().known(uuid) or self.keys.has("u", uuid)

    def add(self, node: Node) -> None:
        super().add(node)
        self.keys.put("u", node.entry["id"])

    def alias(self, uuid: str, target: str, *, merged: bool = True) -> None:
        super().alias(uuid, target, merged=merged)
        self.keys.put("u" if merged else "a", uuid)

    def entry(self, ref: str) -> Entry | None:
        return super().entry(ref) or self.kept.get(ref)

    def names(self, ref: str) -> bool:
        """Tell whether a uuid names an entry, as ``ids()`` of a whole read would."""
        return ref in self.ids() or self.keys.has("u", ref) or self.keys.has("a", ref)


class _Calls(dict[str, tuple[str, Any]]):
    """Tool call id -> (name, input), falling back to the names earlier feeds recorded."""

    def __init__(self, keys: Keys) -> None:
        super().__init__()
        self.store = keys

    def __setitem__(self, call_id: str, value: tuple[str, Any]) -> None:
        super().__setitem__(call_id, value)
        self.store.put("c", call_id, str(value[0]))

    def get(self, call_id: str, default: Any = None) -> Any:
        if call_id in self:
            return self[call_id]
        found, name = self.store.find("c", call_id)
        return (name or "", None) if found else default


class _Replies(dict[tuple[str, str], Entry]):
    """(chain, message id) -> the reply entry; a reply seen earlier but not kept asks for a reload."""

    def __init__(self, keys: Keys) -> None:
        super().__init__()
        self.store = keys

    def __setitem__(self, key: tuple[str, str], entry: Entry) -> None:
        super().__setitem__(key, entry)
        self.store.put("m", "\0".join(key))

    def get(self, key: tuple[str, str], default: Any = None) -> Any:
        if key in self:
            return self[key]
        if self.store.has("m", "\0".join(key)):
            raise Reload
        return default


class ClaudeFollower(_ClaudeConverter):
    """Claude Code lines, converted as ``ClaudeReader`` does, one feed at a time (the file's own
    lines: a subagent transcript is a file of its own in the index)."""

    def __init__(self, path: Path, keys: Keys, saved: dict[str, Any] | None) -> None:
        super().__init__()
        saved = saved or {}
        self.path = path
        kept = {e["id"]: e for e in saved.get("kept", [])}
        self.kept = kept
        self.linker = _SeededLinker(keys, kept)
        self.calls = _Calls(keys)
        self.by_message_id = _Replies(keys)
        for chain, reply_id, entry_id in saved.get("replies", []):
            dict.__setitem__(self.by_message_id, (chain, reply_id), kept[entry_id])
        self.header = dict(saved.get("header", {}))
        self.titles = [(str(t[0]), str(t[1]), str(t[-1])) for t in saved.get("titles", [])]
        self.last_error = kept.get(saved.get("last_error") or "")  # later retries fold into it
        self.last_error_uuid = saved.get("last_error_uuid")
        self.session_ids = list(saved.get("ids", []))
        self.changed: list[Entry] = []

    def feed(self, values: list[tuple[int, Any]], whole: bool) -> list[Entry]:
        before = _snapshot(self.kept.values())
        self.add_file(values, [], "L", "main")
        self.changed = _changed(self.kept.values(), before)
        return [node.entry for node in self.linker.nodes]

    def session_header(self) -> dict[str, Any]:
        stem = self.path.stem
        header: dict[str, Any] = {
            "id": stem if stem in self.session_ids or not self.session_ids else self.session_ids[0],
            **self.header,
        }
        linker = self.linker
        assert isinstance(linker, _SeededLinker)
        titles = [text for leaf, text, _ in self.titles if not leaf or linker.names(leaf)]
        if titles:
            header["title"] = titles[-1]
        header["titles"] = list(dict.fromkeys(text for text in titles if text.strip()))
        return header

    def save(self) -> dict[str, Any]:
        new = [node.entry for node in self.linker.nodes]
        replies = list(self.by_message_id.items())[-KEEP_REPLIES:]
        open_compactions = [
            e for e in (*self.kept.values(), *new) if e.get("type") == "compaction" and not e.get("summary")
        ]
        errors = [self.last_error] if self.last_error is not None else []
        kept = {e["id"]: e for e in (*(entry for _key, entry in replies), *open_compactions, *errors)}
        return {
            "last_error": self.last_error["id"] if self.last_error is not None else None,
            "last_error_uuid": self.last_error_uuid,
            "kept": list(kept.values()),
            "replies": [[chain, reply_id, entry["id"]] for (chain, reply_id), entry in replies],
            "header": self.header,
            "titles": self.titles,
            "ids": self.session_ids,
        }


# --- Codex CLI ------------------------------------------------------------------------------


class CodexFollower(_CodexConverter):
    """Codex CLI lines, converted as ``CodexReader`` does, one feed at a time."""

    def __init__(self, path: Path, keys: Keys, saved: dict[str, Any] | None) -> None:
        saved = saved or {}
        super().__init__(use_events=bool(saved.get("events", False)))
        self.path = path
        self.keys = keys
        self.started = bool(saved.get("started", False))
        self.header = dict(saved.get("header", self.header))
        kept = {e["id"]: e for e in saved.get("kept", [])}
        self.kept = kept
        self.reply = kept.get(saved.get("reply") or "")
        self.last_reply = kept.get(saved.get("last_reply") or "")
        self.last_id = saved.get("last_id")
        self.provider = saved.get("provider", self.provider)
        self.model = saved.get("model")
        self.effort = saved.get("effort")
        self.last_total = saved.get("last_total")
        self.turns = [{"id": i, "parentId": p} for i, p in saved.get("turns", [])]
        self.aborted = saved.get("aborted")
        self.calls = _CodexCalls(keys)
        self.changed: list[Entry] = []

    def feed(self, values: list[tuple[int, Any]], whole: bool) -> list[Entry]:
        if whole:
            self.use_events = not has_response_messages(values)
        elif self.use_events and has_response_messages(values):
            raise Reload  # the whole file is now read from its response items, not its events
        before = _snapshot(self.kept.values())
        self.build = EntryBuilder("X")
        bad: list[BadLine] = []
        for lineno, obj in iter_dicts(values, bad):
            first, self.started = not self.started, True
            try:
                self.line(lineno, obj, first)
            except (TypeError, ValueError, AttributeError, KeyError, RecursionError):
                self._carry(lineno, "codex:unreadable", obj, obj.get("timestamp"))
        self.changed = _changed(self.kept.values(), before)
        return self.build.entries

    def session_header(self) -> dict[str, Any]:
        return {"id": self.path.stem, **self.header}

    def save(self) -> dict[str, Any]:
        kept = [e for e in (self.reply, self.last_reply) if e is not None]
        return {
            "events": self.use_events,
            "started": self.started,
            "header": self.header,
            "kept": list({e["id"]: e for e in kept}.values()),
            "reply": self.reply["id"] if self.reply is not None else None,
            "last_reply": self.last_reply["id"] if self.last_reply is not None else None,
            "last_id": self.last_id,
            "provider": self.provider,
            "model": self.model,
            "effort": self.effort,
            "last_total": self.last_total,
            "turns": [[e["id"], e.get("parentId")] for e in self.turns],  # what a rollback undoes
            "aborted": self.aborted,
        }


class _CodexCalls(dict[str, tuple[str, dict[str, Any]]]):
    """Codex call id -> (name, arguments), falling back to what earlier feeds recorded."""

    def __init__(self, keys: Keys) -> None:
        super().__init__()
        self.store = keys

    def __setitem__(self, call_id: str, value: tuple[str, dict[str, Any]]) -> None:
        super().__setitem__(call_id, value)
        self.store.put("c", call_id, json.dumps(list(value), default=str))

    def get(self, call_id: str, default: Any = None) -> Any:
        if call_id in self:
            return self[call_id]
        found, value = self.store.find("c", call_id)
        if not found or value is None:
            return default
        name, args = json.loads(value)
        return (name, args)


FOLLOWERS: dict[str, type[ClaudeFollower] | type[CodexFollower]] = {
    "claude": ClaudeFollower,
    "codex": CodexFollower,
}


def has_subagents(path: Path, agent: str | None) -> bool:
    """Tell whether a Claude Code session keeps subagent transcripts beside it.

    The reader reads those into the session, and the index lists no subagent file of its own:
    such a session is read whole through the reader each time it changes (not followed).
    """
    return agent == "claude" and bool(subagent_files(path, path.stem))


def follower_for(agent: str, path: Path, keys: Keys, saved: dict[str, Any] | None) -> Follower | None:
    """The follower of an agent's files (None for an agent the index reads whole each time)."""
    kind = FOLLOWERS.get(agent)
    return kind(path, keys, saved) if kind is not None else None
