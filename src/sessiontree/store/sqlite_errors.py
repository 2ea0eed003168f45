"""What an SQLite error says of its database, for the one line each of our databases prints."""

from __future__ import annotations

import sqlite3


def sqlite_message(exc: sqlite3.Error, *, busy: str, damaged: str, other: str) -> str:
    """The one line to say for an SQLite error: ``busy`` when another process holds the database,
    ``damaged`` when it is not a database or is malformed, else ``other``."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return busy
    if "not a database" in text or "malformed" in text:
        return damaged
    return other
