"""Usage per session from the listing's own line pass: totals per (day, model), no search index.

The catalog's pass over a file's lines (``archive/catalog.py``) parses only the lines that carry
a usage (an assistant message's ``usage``, a ``model_usage`` entry) and keeps one row per day
and model in its cache, continued from its offset as the file grows; serve's usage page and the
pane's model filter read these rows, so a fresh server answers both without the full-text
index. A row: ``[day, model, copied, messages, input, output, cache_read, cache_write, cost,
costed, estimated, unpriced]`` (``day`` empty when unknown).

A fork (a header naming a ``parentSession``) starts with copies of its parent's messages: the
usage dated before the fork's own start is ``copied`` and counted only when the parent is not
listed, as the index counts one copy of each message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sessiontree.archive.dates import day_of, midnight_of
from sessiontree.archive.usage import Usage, UsageRecord, usage_of_entry
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import replace_surrogates

UsageRows = list[list[Any]]

_USAGE_TYPES = frozenset({b"model_usage", b"custom"})
"""Leading entry types that may record usage outside the conversation."""


def may_carry_usage(kind: bytes, line: bytes) -> bool:
    """Whether a line whose leading type is ``kind`` can hold a usage (else it is never parsed)."""
    if kind == b"message":
        return b'"usage"' in line
    return kind in _USAGE_TYPES and b"model_usage" in line


def add_entry_usage(rows: UsageRows, entry: Mapping[str, Any], fork_ms: int = 0) -> None:
    """Add the usage an entry records (if any) to its (day, model) row."""
    usage = usage_of_entry(entry)
    if usage is None:
        return
    day = day_of(usage.ts) if usage.ts > 0 else ""
    copied = int(0 < usage.ts < fork_ms)
    row = next((r for r in rows if r[0] == day and r[1] == usage.model and r[2] == copied), None)
    if row is None:
        row = [day, usage.model, copied, 0, 0, 0, 0, 0, 0.0, 0, 0, 0]
        rows.append(row)
    counts = (usage.messages, usage.input, usage.output, usage.cache_read, usage.cache_write)
    for at, count in enumerate(counts, 3):
        row[at] += count
    if usage.cost is not None:
        row[8] += usage.cost
        row[9] += 1
    row[10] += usage.estimated
    row[11] += usage.unpriced


def usage_rows_of(entries: Iterable[Mapping[str, Any]]) -> UsageRows:
    """The usage rows of a whole session's entries (another agent's file, read whole)."""
    rows: UsageRows = []
    for entry in entries:
        add_entry_usage(rows, entry)
    return rows


def usage_records(listed: Iterable[tuple[SessionInfo, UsageRows]]) -> list[UsageRecord]:
    """The usage totals per (session, day, model) of listed sessions, forks' copies counted once."""
    pairs = list(listed)
    known = {e.id for e, _ in pairs if e.id} | {str(e.path) for e, _ in pairs}
    records: list[UsageRecord] = []
    for entry, rows in pairs:
        parent_listed = entry.parent_session is not None and entry.parent_session in known
        title = replace_surrogates(entry.title or entry.first_message or "") or None
        cwd = replace_surrogates(entry.cwd) or None
        for day, model, copied, messages, tokens_in, tokens_out, read, write, cost, costed, *rest in rows:
            if copied and parent_listed:
                continue
            usage = Usage(
                model,
                midnight_of(day),
                tokens_in,
                tokens_out,
                read,
                write,
                float(cost) if costed else None,
                messages,
                rest[0],
                rest[1],
            )
            records.append(UsageRecord(usage, str(entry.path), title, cwd, entry.agent))
    return records
