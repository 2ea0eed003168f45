"""What an SQLite error says of its database, for the one line each of our databases prints."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

E = TypeVar("E", bound=Exception)


@dataclass(frozen=True)
class SqliteAdvice(Generic[E]):
    """What one of our databases says for an SQLite error, as its own ``error``: ``busy`` when
    another process holds it, ``damaged`` when it is not a database or is malformed, else
    ``other`` (each a format string of ``{path}`` and ``{exc}``)."""

    error: type[E]
    busy: str
    damaged: str
    other: str

    def say(self, path: Path, exc: sqlite3.Error) -> str:
        """The one line to print for this error of the database at ``path``."""
        text = str(exc)
        if "locked" in text or "busy" in text:
            chosen = self.busy
        elif "not a database" in text or "malformed" in text:
            chosen = self.damaged
        else:
            chosen = self.other
        return chosen.format(path=path, exc=exc)

    def error_of(self, path: Path, exc: sqlite3.Error) -> E:
        """The database's own error for an SQLite error, saying what to do in one line."""
        return self.error(self.say(path, exc))
