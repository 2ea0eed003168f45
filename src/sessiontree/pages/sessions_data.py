"""The sessions pane's data: one small JSON record per listed session, the same for serve and a site.

Served at ``/api/sessions`` and written as a site's ``sessions.json``, fetched by the pane after
the page shows (a page never carries the list itself, so it stays small with 1,000 sessions). A
long list comes in parts (``in_parts``): the first holds the newest sessions and names the others.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from sessiontree.archive.usage import UsageRecord
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name
from sessiontree.store.titles import plain_title

DATA_VERSION = 1
PART_ROWS = 500
"""Sessions per part of the pane's list (500: about 150 kB); the pane draws the first at once."""


def models_by_path(records: Iterable[UsageRecord]) -> dict[str, list[str]]:
    """The models each session file used, most messages first (from the usage records)."""
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        model = record.usage.model
        if model:
            per = counts.setdefault(record.path, {})
            per[model] = per.get(model, 0) + record.usage.messages
    return {path: sorted(per, key=lambda m: (-per[m], m)) for path, per in counts.items()}


def session_record(entry: SessionInfo, href: str, models: Sequence[str] = ()) -> dict[str, Any]:
    """One session as the pane shows it: key, link, title, agent, project, counts (messages, typed
    prompts ``q``), last activity."""
    return {
        "k": shown_name(entry.key),
        "h": href,
        "t": plain_title(entry.display_title or entry.id or shown_name(entry.key).rsplit("/", 1)[-1]),
        "a": entry.agent,
        "p": entry.cwd,
        "n": entry.message_count,
        "q": entry.prompt_count,
        "u": int(entry.modified * 1000),
        "m": list(models),
    }


def sessions_data(
    entries: Iterable[SessionInfo],
    link_for: Callable[[SessionInfo], str | None],
    models: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The pane's JSON: every listed, readable, top-level session (subagents live in their parent's
    tree), newest activity first; ``models`` by file path when known."""
    rows = []
    for entry in entries:
        if entry.error or entry.parent_key:
            continue
        href = link_for(entry)
        if href is None:
            continue
        rows.append(session_record(entry, href, (models or {}).get(str(entry.path), ())))
    rows.sort(key=lambda r: (-r["u"], r["k"]))
    return {"v": DATA_VERSION, "models": models is not None, "sessions": rows}


def pane_order(entries: Iterable[SessionInfo]) -> list[SessionInfo]:
    """The sessions ``sessions_data`` lists when every one has a link (readable, top-level), in its
    order, their records not made: a part of the list is made from its slice alone."""
    listed = [e for e in entries if not e.error and not e.parent_key]
    listed.sort(key=lambda e: (-int(e.modified * 1000), shown_name(e.key)))
    return listed


def in_parts(
    data: dict[str, Any], name_of: Callable[[int], str], rows: int = PART_ROWS
) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """The pane's list as its first part (the newest ``rows`` sessions, naming the others in
    ``more``) and the others, each with its name (``name_of`` its number: 2, 3, ...)."""
    listed = data["sessions"]
    parts = [
        (name_of(n), {"v": data["v"], "sessions": listed[at : at + rows]})
        for n, at in enumerate(range(rows, len(listed), rows), start=2)
    ]
    return {**data, "sessions": listed[:rows], "more": [name for name, _ in parts]}, parts
