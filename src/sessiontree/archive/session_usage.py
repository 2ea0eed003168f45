"""Usage per session from the listing's own line pass: totals per (UTC quarter hour, model), no
search index.

The catalog's pass over a file's lines (``archive/catalog.py``) parses only the lines that carry
a usage (an assistant message's ``usage``, a ``model_usage`` entry) and keeps one row per UTC
quarter hour and model in its cache (the usage page puts the quarters into the reader's days),
continued from its offset as the file grows; serve's usage page and the pane's model filter read
these rows, so a fresh server answers both without the full-text index. A row: ``[quarter,
model, copied, messages, input, output, cache_read, cache_write, cost, costed, estimated,
unpriced, messages]`` (``quarter`` ``YYYY-MM-DDTHH:MM``, empty when unknown; ``messages`` one
``[copy key, input, output, cache_read, cache_write, cost, estimated, unpriced]`` per message
with an id, the key ``usage.copy_key``'s: id, time, model and counts).

A message copied into another file (a fork starts with its parent's messages, a resumed Claude
Code session with its predecessor's, a file may be copied whole) counts once, as in the index:
in the first file listed (oldest first) that holds it. A fork's messages dated before its own
start are rows apart (``copied``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from sessiontree.archive.dates import midnight_of, quarter_of
from sessiontree.archive.usage import Usage, UsageRecord, copy_key, usage_of_entry
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
    """Add the usage an entry records (if any) to its (quarter hour, model) row."""
    usage = usage_of_entry(entry)
    if usage is None:
        return
    when = quarter_of(usage.ts) if usage.ts > 0 else ""
    copied = int(0 < usage.ts < fork_ms)
    # Newest first: a session's messages come in time order, so its row is nearly always the last.
    row = next((r for r in reversed(rows) if r[0] == when and r[1] == usage.model and r[2] == copied), None)
    if row is None:
        row = [when, usage.model, copied, 0, 0, 0, 0, 0, 0.0, 0, 0, 0, []]
        rows.append(row)
    entry_id = entry.get("id")
    if isinstance(entry_id, str):
        counts_of = [usage.input, usage.output, usage.cache_read, usage.cache_write, usage.cost]
        row[12].append([copy_key(entry_id, usage), *counts_of, usage.estimated, usage.unpriced])
    counts = (usage.messages, usage.input, usage.output, usage.cache_read, usage.cache_write)
    for at, count in enumerate(counts, 3):
        row[at] += count
    if usage.cost is not None:
        row[8] += usage.cost
        row[9] += 1
    row[10] += usage.estimated
    row[11] += usage.unpriced


def _uncounted(row: list[Any], seen: set[int]) -> Usage | None:
    """A row's total less its messages counted already (``seen`` keys; this row's are added)."""
    (
        quarter,
        model,
        _copied,
        messages,
        tokens_in,
        tokens_out,
        read,
        write,
        cost,
        costed,
        estimated,
        unpriced,
    ) = row[:12]
    for key, *counts in row[12]:
        if key not in seen:
            seen.add(key)
            continue
        messages -= 1
        tokens_in, tokens_out, read, write = (
            tokens_in - counts[0],
            tokens_out - counts[1],
            read - counts[2],
            write - counts[3],
        )
        if counts[4] is not None:
            cost, costed = cost - counts[4], costed - 1
        estimated, unpriced = estimated - counts[5], unpriced - counts[6]
    if messages <= 0:
        return None
    spent = float(cost) if costed else None
    return Usage(
        model, midnight_of(quarter), tokens_in, tokens_out, read, write, spent, messages, estimated, unpriced
    )


def usage_rows_of(entries: Iterable[Mapping[str, Any]]) -> UsageRows:
    """The usage rows of a whole session's entries (another agent's file, read whole)."""
    rows: UsageRows = []
    for entry in entries:
        add_entry_usage(rows, entry)
    return rows


def usage_records(listed: Iterable[tuple[SessionInfo, UsageRows]]) -> list[UsageRecord]:
    """The usage totals per (session, UTC quarter hour, model) of listed sessions, copied messages
    counted once."""
    pairs = sorted(listed, key=lambda pair: (pair[0].modified, pair[0].key))
    seen: set[int] = set()
    records: list[UsageRecord] = []
    for entry, rows in pairs:
        path = os.path.abspath(entry.path)
        title = replace_surrogates(entry.title or entry.first_message or "") or None
        cwd = replace_surrogates(entry.cwd) or None
        for row in rows:
            usage = _uncounted(row, seen)
            if usage is not None:
                records.append(UsageRecord(usage, path, title, cwd, entry.agent))
    return records
