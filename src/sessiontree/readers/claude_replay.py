"""Claude Code's forked subagents: a transcript that starts with its parent's conversation.

The compaction agent (``agent-acompact-*``) and the side-question agent (``agent-aside_question-*``)
are forks: their transcript first replays the parent's conversation (new uuids, the same reply
ids and request ids, tool call ids and prompt texts), then holds what the fork itself did (the
compaction's instruction and summary, the side question and its answer). The replay is the
parent's, shown once in the parent: a subagent file whose first conversation record is one of the
parent's is read from after the last record the parent has. A Task subagent starts with its own
task (no record of the parent's), so none of it is taken for a replay.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sessiontree.readers.base import as_str
from sessiontree.readers.claude_links import Linker
from sessiontree.store.content import text_of
from sessiontree.store.entries import Entry


def record_marks(obj: Any) -> Iterator[str]:
    """What names a conversation record in any file that holds it: a reply's message and request
    ids, a tool result's call id, a prompt's text."""
    message = obj.get("message") if isinstance(obj, dict) else None
    if not isinstance(message, dict):
        return
    kind = obj.get("type")
    if kind == "assistant":
        if (reply := as_str(message.get("id"))) is not None:
            yield "m:" + reply
        if (request := as_str(obj.get("requestId"))) is not None:
            yield "r:" + request
    elif kind == "user":
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        calls = [
            b.get("tool_use_id") for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"
        ]
        yield from ("t:" + c for c in calls if isinstance(c, str) and c)
        text = text_of(content).strip()
        if text and not calls:
            yield "u:" + text


class Replays:
    """The marks of a session's own records, against which its subagents' files are told."""

    def __init__(self, values: list[tuple[int, Any]]) -> None:
        self.marks = {mark for _, value in values for mark in record_marks(value)}

    def replayed(self, values: list[tuple[int, Any]]) -> int:
        """How many leading lines of a subagent's file replay the parent's conversation: up to its
        last record the parent has, when its first conversation record is the parent's; else 0."""
        last = 0
        first = True
        for index, (_, value) in enumerate(values):
            marks = list(record_marks(value))
            if not marks:
                continue
            if any(m in self.marks for m in marks):
                last = index + 1
            elif first:
                return 0
            first = False
        return last

    def skip(
        self, values: list[tuple[int, Any]], linker: Linker, replies: Mapping[tuple[str, str], Entry]
    ) -> int:
        """How many leading lines of a subagent's file are a replay (``replayed``), not read again:
        their uuids stand for the replies they repeat (``replies``: (chain, reply id) -> entry), so
        what the fork did hangs where it forked."""
        count = self.replayed(values)
        anchor: str | None = None
        for _, obj in values[:count]:
            uuid = as_str(obj.get("uuid")) if isinstance(obj, dict) else None
            message = obj.get("message") if isinstance(obj, dict) else None
            reply = as_str(message.get("id")) if isinstance(message, dict) else None
            found = replies.get(("main", reply)) if reply else None
            anchor = str(found["id"]) if found is not None else anchor
            if uuid is not None and anchor is not None and not linker.known(uuid):
                linker.alias(uuid, anchor)
        return count
