"""The search records of a session page: the archive index's rows of every entry, on every branch."""

from __future__ import annotations

from typing import TypedDict

from sessiontree.archive.extract import rows_of_entry
from sessiontree.store import Session


class SearchRecord(TypedDict):
    """One searchable piece of a message: its entry id, a role, and its text."""

    id: str
    role: str
    text: str


def session_records(session: Session) -> list[SearchRecord]:
    """The search records of every entry (the same text ``sessiontree search`` indexes)."""
    records: list[SearchRecord] = []
    for entry in session.entries:
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            continue
        for row in rows_of_entry(entry, entry_id):
            text = row.text.strip()
            if text and row.entry_id:
                records.append({"id": row.entry_id, "role": row.role, "text": text})
    return records
