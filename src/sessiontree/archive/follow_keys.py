"""What the index keeps of another agent's file for its follower: ids read, tool call names.

Kept apart from ``follow`` (which loads the readers) so opening the index loads no reader.
"""

from __future__ import annotations

import sqlite3

SCHEMA = """
CREATE TABLE IF NOT EXISTS follow_keys (
    file_id INTEGER NOT NULL,
    key INTEGER NOT NULL,
    value TEXT,
    PRIMARY KEY (file_id, key)
) WITHOUT ROWID;
"""
TABLES = ("follow_keys",)


class Reload(Exception):
    """An appended line refers to an entry the follower did not keep: read the file whole."""


class Keys:
    """What a file's earlier lines left that later lines look up: ids read, tool call names."""

    def __init__(self, conn: sqlite3.Connection, file_id: int) -> None:
        self.conn = conn
        self.file_id = file_id
        self.new: dict[int, str | None] = {}

    @staticmethod
    def _key(kind: str, text: str) -> int:
        import hashlib  # OpenSSL's load is for a file being read, not for opening the index

        digest = hashlib.blake2b(f"{kind}\0{text}".encode("utf-8", "replace"), digest_size=8).digest()
        return int.from_bytes(digest) >> 1

    def find(self, kind: str, text: str) -> tuple[bool, str | None]:
        """Whether ``text`` was recorded under ``kind``, and its value."""
        key = self._key(kind, text)
        if key in self.new:
            return True, self.new[key]
        row = self.conn.execute(
            "SELECT value FROM follow_keys WHERE file_id = ? AND key = ?", (self.file_id, key)
        ).fetchone()
        return (row is not None, row[0] if row is not None else None)

    def has(self, kind: str, text: str) -> bool:
        """Tell whether ``text`` was recorded under ``kind``."""
        return self.find(kind, text)[0]

    def get(self, kind: str, text: str) -> str | None:
        """The value recorded for ``text`` under ``kind`` (None when absent)."""
        return self.find(kind, text)[1]

    def put(self, kind: str, text: str, value: str | None = None) -> None:
        """Record ``text`` under ``kind`` (written by ``save``)."""
        self.new[self._key(kind, text)] = value

    def save(self) -> None:
        """Write what was recorded."""
        self.conn.executemany(
            "INSERT OR REPLACE INTO follow_keys (file_id, key, value) VALUES (?, ?, ?)",
            [(self.file_id, key, value) for key, value in self.new.items()],
        )
        self.new.clear()


def forget_keys(conn: sqlite3.Connection, file_id: int) -> None:
    """Forget what a file's lines left (it is read whole again, or gone)."""
    conn.execute("DELETE FROM follow_keys WHERE file_id = ?", (file_id,))
