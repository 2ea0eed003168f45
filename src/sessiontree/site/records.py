"""The search records of a session page: the archive index's rows of every entry, on every branch."""

from __future__ import annotations

from typing import TypedDict

from sessiontree.archive.extract import rows_of_entry
from sessiontree.store import Session

TOOL_CHARS = 2_000
"""Of a tool result, the characters the site's search indexes (its head: the archive index keeps more).

Tool output is most of an archive's text, and Pagefind holds the whole index in memory while it
writes the bundle: 40 sessions of 300 turns (130 MB) peaked at 2.7 GB with 24,000 characters a
result, so the site indexes the start of each result and all of every other message.
"""
OTHER_CHARS = 24_000
FORMAT = 2
"""Bumped when a record's fields change (a different one rebuilds the site). 2: ``ts``."""


class SearchRecord(TypedDict):
    """One searchable piece of a message: its entry id, a role, its text and its time."""

    id: str
    role: str
    text: str
    ts: int
    """Epoch ms (0: unknown): the site's search can put the newest first."""


def session_records(session: Session) -> list[SearchRecord]:
    """The search records of every entry (the same text ``sessiontree search`` indexes)."""
    records: list[SearchRecord] = []
    for entry in session.entries:
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            continue
        for row in rows_of_entry(entry, entry_id):
            text = row.text.strip()[: TOOL_CHARS if row.role == "tool" else OTHER_CHARS]
            if text and row.entry_id:
                records.append({"id": row.entry_id, "role": row.role, "text": text, "ts": row.ts})
    return records
