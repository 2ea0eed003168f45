"""The usage store's generation and the answers kept with it: a restarted server's usage page
answered from them before its first listing, and serve's answers after it while the rows are those
they were made of (``usage_query.DbAnswers``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import sqlite3

KEPT_SCHEMA = """
CREATE TABLE IF NOT EXISTS generation (n INTEGER NOT NULL);
INSERT INTO generation SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM generation);
CREATE TABLE IF NOT EXISTS kept_answers (
    name TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    data TEXT NOT NULL
);
"""
"""The store's generation (``BUMP``ed by every write that changed its rows) and the answers the page
asks first, kept with the generation they were made of: a restarted server whose files did not
change answers its usage page from them, no pass over the rows (seconds at 100,000 sessions)."""
BUMP = "UPDATE generation SET n = n + 1"
KEEP = (
    "INSERT OR REPLACE INTO kept_answers (name, generation, data) SELECT ?, n, ? FROM generation WHERE n = ?"
)


def read_kept(conn: sqlite3.Connection, generation: int | None, name: str | None = None) -> dict[str, Any]:
    """The answers kept for the rows of ``generation`` (None: the store's rows as they are now),
    by name: ``name``'s alone, or every one."""
    sql = "SELECT name, data FROM kept_answers WHERE generation = "
    sql += "(SELECT n FROM generation)" if generation is None else "?"
    args: tuple[object, ...] = () if generation is None else (generation,)
    if name is not None:
        sql, args = sql + " AND name = ?", (*args, name)
    return {str(kept): json.loads(data) for kept, data in conn.execute(sql, args)}
