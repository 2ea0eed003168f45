"""The usage dashboard's data: totals per (project, agent, UTC quarter hour, model), packed small,
and the sessions the filters keep, a page at a time (``archive.usage_query``).

The page's script (``templates/usage/usage-data.js``) filters and totals the grouped rows in the
browser, so a filter change redraws the totals, the chart and the calendar without asking, and puts
each quarter hour into the reader's day in the browser's time zone (every zone's offset is whole
quarter hours). The rows' size grows with the quarter hours, models, projects and agents used, never
with the sessions. Names (quarter hours as epoch ms, models, projects, agents, groups) are listed once
and rows refer to them by position; a row is eleven numbers in one flat list: group, quarter (-1
unknown), model, messages, input, output, cache read, cache write, cost (null when none was
recorded), estimated messages, unpriced messages. ``zeroModels`` are the models whose recorded cost
is $0 for tokens spent (an agent that knew no price records 0): the page names them rather than show
their tokens as free.

The sessions a filter keeps (how many, and the top ones by cost) are not in the rows: serve's page
carries the first page of the default filter and asks ``api`` for the others
(``sessions_json``); a built site's carries the top sessions of each filter of one project, agent or
model (``tops``, keyed as the script keys them: ``""``, ``project=...``, ``agent=...``, ``model=...``),
so its size grows with the projects, never with the sessions; those of a date range or two filters
the page ranks from the files of sessions by month it fetches (``chunks``, ``site.usage_chunks``).
Titles are plain text cut at a word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sessiontree.archive.usage import UsageRecord
from sessiontree.archive.usage_query import (
    RecordsAnswers,
    SessionPage,
    UsageAnswers,
    UsageFilter,
    zero_models,
)
from sessiontree.readers import agent_label
from sessiontree.store.surrogates import shown_name
from sessiontree.store.titles import plain_title

ROW_WIDTH = 11
FORMAT = 3
"""Bumped when the packed shape changes (the script refuses another). 2: quarter hours, not UTC days;
3: rows per group (project, agent), not per session; the sessions listed apart."""
PAGE_SIZE = 50
"""Sessions in a page of serve's top sessions (the page asks for the next ones)."""
SITE_TOP = 20
"""Sessions listed per filter on a built site."""

LinkFor = Callable[[str], str | None]


class _Names:
    """Each distinct name once, in first-seen order, and its position."""

    def __init__(self) -> None:
        self.items: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        return self.items.setdefault(name, len(self.items))

    def listed(self) -> list[str]:
        return list(self.items)


def _round(cost: float | None) -> float | None:
    return None if cost is None else round(cost, 6)


def listed_json(page: SessionPage, link_for: LinkFor) -> dict[str, Any]:
    """A page of the sessions a filter keeps, as the script reads it (``count``, ``offset``, ``top``:
    title, shown path, agent label, link, messages, input, output, cache read, cache write, cost,
    estimated messages, models with no price, models recorded at $0)."""
    top = []
    for total in page.sessions:
        r = total.record
        u = r.usage
        top.append(
            [
                plain_title(r.title or ""),
                shown_name(r.path),
                agent_label(r.agent),
                link_for(r.path),
                *(u.messages, u.input, u.output, u.cache_read, u.cache_write, _round(u.cost), u.estimated),
                list(total.unpriced),
                list(total.free),
            ]
        )
    return {"count": page.count, "offset": page.offset, "top": top}


def filter_keys(groups: Sequence[UsageRecord]) -> list[tuple[str, UsageFilter]]:
    """The filters a built site lists the top sessions of, with the script's key of each."""
    keys: list[tuple[str, UsageFilter]] = [("", UsageFilter())]
    keys += [(f"project={p}", UsageFilter(project=p)) for p in sorted({g.cwd or "" for g in groups})]
    keys += [(f"agent={a}", UsageFilter(agent=a)) for a in sorted({g.agent for g in groups})]
    keys += [(f"model={m}", UsageFilter(model=m)) for m in sorted({g.usage.model for g in groups})]
    return keys


def usage_data(
    answers: UsageAnswers | Sequence[UsageRecord],
    link_for: LinkFor,
    *,
    api: str | None = None,
    chunks: Sequence[str] = (),
) -> dict[str, Any]:
    """Pack the grouped totals for the dashboard (``link_for`` gives a session's page from its path),
    with the sessions listed as serve's page (``api``: where it asks) or a built site's carries them
    (``chunks``: the months of its files of sessions, ``site.usage_chunks``)."""
    if isinstance(answers, Sequence):
        answers = RecordsAnswers(answers)
    groups = answers.groups()
    models, projects, agents = _Names(), _Names(), _Names()
    times = sorted({g.usage.ts for g in groups if g.usage.ts > 0})
    time_at = {ts: i for i, ts in enumerate(times)}
    group_at: dict[tuple[str, str], int] = {}
    rows: list[Any] = []
    for g in groups:
        u = g.usage
        pair = (g.cwd or "", g.agent)
        at = group_at.get(pair)
        if at is None:
            at = group_at[pair] = len(group_at)
            projects(pair[0])
            agents(pair[1])
        when = time_at[u.ts] if u.ts > 0 else -1
        rows += (at, when, models(u.model), u.messages, u.input, u.output, u.cache_read, u.cache_write)
        rows += (_round(u.cost), u.estimated, u.unpriced)
    data: dict[str, Any] = {
        "format": FORMAT,
        "times": times,
        "models": models.listed(),
        "projects": projects.listed(),
        "agents": agents.listed(),
        "agentLabels": [agent_label(a) for a in agents.listed()],
        "groups": [[projects.items[p], agents.items[a]] for p, a in group_at],
        "zeroModels": sorted(models.items[m] for m in zero_models(groups)),
        "rows": rows,
    }
    if api is not None:
        data["api"] = api
        data["pageSize"] = PAGE_SIZE
        data["listed"] = listed_json(answers.sessions(UsageFilter(), 0, PAGE_SIZE), link_for)
    else:
        data["pageSize"] = SITE_TOP
        keys = filter_keys(groups)
        wheres = [where for _, where in keys]
        if isinstance(answers, RecordsAnswers):
            pages = answers.tops(wheres, SITE_TOP)  # one pass for every filter
        else:
            pages = [answers.sessions(where, 0, SITE_TOP) for where in wheres]
        data["tops"] = {key: listed_json(page, link_for) for (key, _), page in zip(keys, pages, strict=True)}
        if chunks:
            data["chunks"] = list(chunks)
    return data
