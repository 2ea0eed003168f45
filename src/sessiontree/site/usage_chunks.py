"""The per-session usage of a built site, in files beside ``usage.html`` (one per UTC month of the
usage, and one of undated usage): the page fetches the months a date range covers (every file only
for a filter of two values and no range) and ranks the top sessions of a filter as serve's
``/api/usage-sessions`` does (``templates/usage/usage-chunks.js``), so ``usage.html`` carries the
months' names, never a row per session, and its size does not grow with the archive (issue 54).

A file holds the folders of its sessions' files (each once) and the sessions with usage in its month
(each once: its file's folder by position and name, title, shown path or null when it is the path,
agent, its label, link, project folder) and their records as they are counted (a copied message once, in the
oldest file: ``session_usage.usage_records``), eleven numbers a record: session, quarter hour
(epoch ms, 0 undated), model (a name of the file's own list), messages, input, output, cache read,
cache write, cost (null when none was recorded), estimated messages, unpriced messages. A file is
rewritten only when its bytes change, so an incremental build writes the month of a new session.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessiontree.archive.usage import UsageRecord
from sessiontree.readers import agent_label
from sessiontree.site import layout
from sessiontree.store.surrogates import shown_name
from sessiontree.store.titles import plain_title

USAGE_CHUNK = "usage-sessions-{}.json"
"""A month's file (``2026-03``) or the undated usage's (``undated``), beside ``usage.html``."""
UNDATED = "undated"
FORMAT = 2
"""2: a session's file as its folder (listed once) and name; the shown path only when it differs."""


def month_of(ts: int) -> str:
    """The UTC month (``YYYY-MM``) of a quarter hour in epoch ms, ``undated`` for none."""
    if ts <= 0:
        return UNDATED
    return datetime.fromtimestamp(ts / 1000, UTC).strftime("%Y-%m")


def usage_chunks(records: Sequence[UsageRecord], link_for: Callable[[str], str | None]) -> dict[str, bytes]:
    """Each month's file (by its name in ``USAGE_CHUNK``) of the records with messages, in order."""
    months: dict[str, list[UsageRecord]] = {}
    month_at: dict[int, str] = {}  # by quarter hour: a few thousand, not a strftime per record
    for r in records:
        if r.usage.messages > 0:
            ts = r.usage.ts
            month = month_at.get(ts)
            if month is None:
                month = month_at[ts] = month_of(ts)
            months.setdefault(month, []).append(r)
    return {month: _chunk(rows, link_for) for month, rows in sorted(months.items())}


def _chunk(records: list[UsageRecord], link_for: Callable[[str], str | None]) -> bytes:
    sessions: dict[str, int] = {}
    folders: dict[str, int] = {}
    models: dict[str, int] = {}
    listed: list[list[Any]] = []
    rows: list[Any] = []
    for r in records:
        at = sessions.get(r.path)
        if at is None:
            at = sessions[r.path] = len(sessions)
            cut = r.path.rfind("/") + 1
            folder = folders.setdefault(r.path[:cut], len(folders))
            shown = shown_name(r.path)
            named = [folder, r.path[cut:], plain_title(r.title or ""), None if shown == r.path else shown]
            listed.append([*named, r.agent, agent_label(r.agent), link_for(r.path), r.cwd or ""])
        u = r.usage
        model = models.setdefault(u.model, len(models))
        rows += (at, max(u.ts, 0), model, u.messages, u.input, u.output, u.cache_read, u.cache_write)
        rows += (u.cost, u.estimated, u.unpriced)
    data = {
        "format": FORMAT,
        "folders": list(folders),
        "models": list(models),
        "sessions": listed,
        "rows": rows,
    }
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode()


def write_usage_chunks(site: Path, chunks: dict[str, bytes]) -> bool:
    """Write the files whose bytes changed, remove the months no longer there; whether any changed."""
    changed = False
    for month, data in chunks.items():
        target = site / USAGE_CHUNK.format(month)
        try:
            if target.read_bytes() == data:
                continue
        except OSError:
            pass
        layout.write_atomic(target, data)
        changed = True
    wanted = {USAGE_CHUNK.format(month) for month in chunks}
    for old in site.glob(USAGE_CHUNK.format("*")):
        if old.name not in wanted:
            old.unlink(missing_ok=True)
            changed = True
    return changed
