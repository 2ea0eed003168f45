"""The usage dashboard's data: the listing's totals per (session, UTC quarter hour, model), packed small.

The page's script (``templates/usage/usage-data.js``) filters and totals these rows in the
browser, so a filter change redraws without asking the server, and puts each quarter hour into
the reader's day in the browser's time zone (every zone's offset is whole quarter hours). Names
(sessions, quarter hours as epoch ms, models, projects, agents) are listed once and rows refer to
them by position; a row is eleven numbers in one flat list: session, quarter (-1 unknown),
model, messages, input, output, cache read, cache write, cost (null when none was recorded),
estimated messages, unpriced messages. Titles are plain text cut at a word (``plain_title``).
``zeroModels`` are the models whose recorded cost is $0 for tokens spent (an agent that knew no
price records 0): the page names them rather than show their tokens as free.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sessiontree.archive.usage import UsageRecord
from sessiontree.readers import agent_label
from sessiontree.store.surrogates import shown_name
from sessiontree.store.titles import plain_title

ROW_WIDTH = 11
FORMAT = 2
"""Bumped when the packed shape changes (the script refuses another). 2: quarter hours, not UTC days."""


class _Names:
    """Each distinct name once, in first-seen order, and its position."""

    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        return self.items.setdefault(name, len(self.items))

    def listed(self) -> list[str]:
        return list(self.items)


def usage_data(records: Sequence[UsageRecord], link_for: Callable[[str], str | None]) -> dict[str, Any]:
    """Pack the records for the dashboard (``link_for`` gives a session's page from its path)."""
    models, projects, agents = _Names(), _Names(), _Names()
    times = sorted({r.usage.ts for r in records if r.usage.ts > 0})
    time_at = {ts: i for i, ts in enumerate(times)}
    sessions: dict[str, int] = {}
    session_rows: list[list[Any]] = []
    rows: list[Any] = []
    for record in records:
        at = sessions.get(record.path)
        if at is None:
            at = sessions[record.path] = len(session_rows)
            project = projects(record.cwd or "unknown")
            session_rows.append(
                [
                    plain_title(record.title or ""),
                    shown_name(record.path),
                    project,
                    agents(record.agent),
                    link_for(record.path),
                ]
            )
        u = record.usage
        when = time_at[u.ts] if u.ts > 0 else -1
        cost = None if u.cost is None else round(u.cost, 6)
        rows += (at, when, models(u.model), u.messages, u.input, u.output, u.cache_read, u.cache_write, cost)
        rows += (u.estimated, u.unpriced)
    spent: dict[str, list[float]] = {}
    for record in records:
        u = record.usage
        if u.cost is not None:
            sums = spent.setdefault(u.model, [0.0, 0.0])
            sums[0] += u.cost
            sums[1] += u.input + u.output + u.cache_read + u.cache_write
    return {
        "format": FORMAT,
        "times": times,
        "models": models.listed(),
        "projects": projects.listed(),
        "agents": agents.listed(),
        "agentLabels": [agent_label(a) for a in agents.listed()],
        "sessions": session_rows,
        "zeroModels": [models.items[m] for m, (cost, tokens) in spent.items() if cost == 0 and tokens > 0],
        "rows": rows,
    }
