"""Usage in the index: one row per message, and totals per (file, UTC quarter hour, model) kept as
rows change (every zone's midnight is a quarter hour: ``stats`` puts them into the reader's days).

Totals are what ``stats`` and the usage pages read, so they cost the same for 300,000 messages
as for 300. A fork copies its parent's messages (same id, time, model and counts) into a new
file: such a copy is flagged ``dup`` and left out of the totals; when the original's file goes,
one copy takes its place.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive.collection import files_clause, path_of_key
from sessiontree.archive.dates import QUARTER_MS, midnight_of, quarter_of
from sessiontree.archive.usage_columns import MESSAGE, TOTALS

if TYPE_CHECKING:
    from sessiontree.archive.usage import Usage, UsageQuery, UsageRecord

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS usage (
    file_id INTEGER NOT NULL,
    entry_id TEXT,
    copy_key INTEGER,
    dup INTEGER NOT NULL,
    ts INTEGER NOT NULL,
    quarter TEXT NOT NULL,
    model TEXT NOT NULL,
    {MESSAGE}
);
CREATE INDEX IF NOT EXISTS usage_file ON usage(file_id);
CREATE INDEX IF NOT EXISTS usage_key ON usage(copy_key);
CREATE INDEX IF NOT EXISTS usage_ts ON usage(ts);
CREATE TABLE IF NOT EXISTS usage_days (
    file_id INTEGER NOT NULL,
    quarter TEXT NOT NULL,
    model TEXT NOT NULL,
    {TOTALS},
    PRIMARY KEY (file_id, quarter, model)
) WITHOUT ROWID;
"""
TABLES = ("usage", "usage_days")

_COLUMNS = "ts, quarter, model, input, output, cache_read, cache_write, cost, estimated, unpriced"
_ADD = (
    "INSERT INTO usage_days (file_id, quarter, model, messages, input, output, cache_read, cache_write, "
    "cost, costed, estimated, unpriced) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (file_id, quarter, model) DO UPDATE SET "
    "messages = messages + excluded.messages, input = input + excluded.input, "
    "output = output + excluded.output, cache_read = cache_read + excluded.cache_read, "
    "cache_write = cache_write + excluded.cache_write, cost = cost + excluded.cost, "
    "costed = costed + excluded.costed, estimated = estimated + excluded.estimated, "
    "unpriced = unpriced + excluded.unpriced"
)


def _quarter(usage: Usage) -> str:
    return quarter_of(usage.ts) if usage.ts > 0 else ""


def _add_total(
    conn: sqlite3.Connection, file_id: int, quarter: str, row: Sequence[Any], sign: int = 1
) -> None:
    """Add (or with ``sign`` -1 take away) one message (``model, input, output, cache_read,
    cache_write, cost, estimated, unpriced``) to its quarter hour's total."""
    model, tokens_in, tokens_out, read, write, cost = row[0], row[1], row[2], row[3], row[4], row[5]
    counts = (1, tokens_in, tokens_out, read, write, cost or 0.0, cost is not None, *row[6:])
    conn.execute(_ADD, (file_id, quarter, model, *(sign * n for n in counts)))
    if sign < 0:
        conn.execute(
            "DELETE FROM usage_days WHERE file_id = ? AND quarter = ? AND model = ? AND messages <= 0",
            (file_id, quarter, model),
        )


def add_usage(conn: sqlite3.Connection, file_id: int, spent: Sequence[tuple[str | None, Usage]]) -> None:
    """Record the usage of newly indexed messages of one file."""
    from sessiontree.archive.usage import copy_key  # with the prices: only when something is indexed

    for entry_id, usage in spent:
        key = copy_key(entry_id, usage) if entry_id is not None else None
        dup = key is not None and (
            conn.execute("SELECT 1 FROM usage WHERE copy_key = ? AND dup = 0 LIMIT 1", (key,)).fetchone()
            is not None
        )
        quarter = _quarter(usage)
        values = (
            *(usage.model, usage.input, usage.output, usage.cache_read, usage.cache_write, usage.cost),
            *(usage.estimated, usage.unpriced),
        )
        conn.execute(
            f"INSERT INTO usage (file_id, entry_id, copy_key, dup, {_COLUMNS}) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (file_id, entry_id, key, int(dup), usage.ts, quarter, *values),
        )
        if not dup:
            _add_total(conn, file_id, quarter, values)


def forget_usage(conn: sqlite3.Connection, file_id: int, entry_ids: Sequence[str] | None = None) -> None:
    """Remove one file's usage (or only its entries'); a copy elsewhere of each message takes over."""
    where = "file_id = ?"
    params: list[Any] = [file_id]
    if entry_ids is not None:
        where += f" AND entry_id IN ({','.join('?' * len(entry_ids))})"
        params.extend(entry_ids)
    columns = (
        "copy_key, dup, quarter, model, input, output, cache_read, cache_write, cost, estimated, unpriced"
    )
    gone = conn.execute(f"SELECT {columns} FROM usage WHERE {where}", params).fetchall()
    conn.execute(f"DELETE FROM usage WHERE {where}", params)
    if entry_ids is None:
        conn.execute("DELETE FROM usage_days WHERE file_id = ?", (file_id,))
    else:
        for row in gone:
            if not row[1]:
                _add_total(conn, file_id, row[2], row[3:], -1)
    for key in (row[0] for row in gone if not row[1] and row[0] is not None):
        heir = conn.execute(
            "SELECT rowid, file_id, quarter, model, input, output, cache_read, cache_write, cost, estimated, "
            "unpriced FROM usage "
            "WHERE copy_key = ? AND dup = 1 ORDER BY rowid LIMIT 1",
            (key,),
        ).fetchone()
        if heir is not None:
            conn.execute("UPDATE usage SET dup = 0 WHERE rowid = ?", (heir[0],))
            _add_total(conn, heir[1], heir[2], heir[3:])


def _whole_quarters(query: UsageQuery) -> bool:
    """Whether the totals answer ``query``: its ends (a midnight in any zone) are quarter hours."""
    return all(ms is None or ms % QUARTER_MS == 0 for ms in (query.since_ms, query.until_ms))


def read_usage(
    conn: sqlite3.Connection, roots: Sequence[Path], query: UsageQuery | None = None
) -> list[UsageRecord]:
    """Usage totals per (session, UTC quarter hour, model) of the indexed sessions under ``roots``."""
    # Imported here (with the prices): the index's schema and a search need none of it.
    from sessiontree.archive.usage import Usage, UsageQuery, UsageRecord

    query = query or UsageQuery()
    clause, params = files_clause(roots, query.project, "path", "cwd")
    if query.agent is not None:
        clause += " AND coalesce(agent, 'pi') = ?"
        params.append(query.agent)
    files = {
        r[0]: r[1:]
        for r in conn.execute(
            f"SELECT id, path, title, cwd, coalesce(agent, 'pi') FROM files WHERE {clause}", params
        )
    }
    where: list[str] = []
    args: list[Any] = []
    if _whole_quarters(query):
        sql = (
            "SELECT file_id, quarter, model, messages, input, output, cache_read, cache_write, cost, costed, "
            "estimated, unpriced FROM usage_days"
        )
        if query.since_ms is not None:
            where.append("quarter >= ?")
            args.append(quarter_of(query.since_ms))
        if query.until_ms is not None:
            where.append("quarter < ? AND quarter != ''")
            args.append(quarter_of(query.until_ms))
        group = ""
    else:  # a time within a quarter hour: total the messages themselves
        sql = (
            "SELECT file_id, quarter, model, count(*), sum(input), sum(output), sum(cache_read), "
            "sum(cache_write), total(cost), count(cost), sum(estimated), sum(unpriced) FROM usage"
        )
        where.append("dup = 0")
        if query.since_ms is not None:
            where.append("ts >= ?")
            args.append(query.since_ms)
        if query.until_ms is not None:
            where.append("ts < ? AND ts > 0")
            args.append(query.until_ms)
        group = " GROUP BY file_id, quarter, model"
    if query.model is not None:
        where.append("model = ?")
        args.append(query.model)
    if where:
        sql += " WHERE " + " AND ".join(where)
    records: list[UsageRecord] = []
    paths: dict[int, str] = {}  # a file and a quarter hour have many rows: each worked out once
    starts: dict[str, int] = {}
    for row in conn.execute(sql + group, args):
        found = files.get(row[0])
        if found is None:
            continue
        path = paths.get(row[0])
        if path is None:
            path = paths[row[0]] = str(path_of_key(found[0]))
        start = starts.get(row[1])
        if start is None:
            start = starts[row[1]] = midnight_of(row[1])
        cost = float(row[8]) if row[9] else None
        usage = Usage(row[2], start, row[4], row[5], row[6], row[7], cost, row[3], row[10], row[11])
        records.append(UsageRecord(usage, path, found[1], found[2], found[3]))
    return records
