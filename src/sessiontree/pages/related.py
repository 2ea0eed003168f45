"""The links of a session's page to the sessions it spawned or was spawned by (serve, build)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sessiontree.exporter.options import RelatedPages
from sessiontree.store.discovery import SessionInfo, one_line

LABEL_CHARS = 60
"""A spawned session's link shows its title (or first prompt) cut to this length."""


def child_label(entry: SessionInfo) -> str:
    """How a spawned session's link reads: its title or first prompt, else its id."""
    text = one_line(entry.display_title) or entry.id
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def related_pages(
    parent: SessionInfo | None,
    children: Sequence[SessionInfo],
    href: Callable[[str], str | None],
) -> RelatedPages | None:
    """The header's links from the listed parent and children (``href``: a key's page, or None)."""
    parent_page = href(parent.key) if parent is not None else None
    pages = [(c.id, child_label(c), page) for c in children if (page := href(c.key)) is not None]
    if parent_page is None and not pages:
        return None
    return RelatedPages(parent=parent_page, children=tuple(pages))


def related_by_key(
    entries: Sequence[SessionInfo], href: Callable[[str, str], str]
) -> dict[str, RelatedPages]:
    """Each listed session's links to the listed sessions it spawned or was spawned by
    (``href(from_key, to_key)``: the link from one page to another); sessions with none left out."""
    listed = {e.key: e for e in entries if not e.error}
    children: dict[str, list[SessionInfo]] = {}
    for entry in listed.values():
        if entry.parent_key in listed:
            children.setdefault(entry.parent_key, []).append(entry)
    found: dict[str, RelatedPages] = {}
    for key, entry in listed.items():
        parent = listed.get(entry.parent_key or "")
        if parent is None and key not in children:
            continue  # most sessions: no links (10,000 without: 6-8 ms -> 1-2 ms, load 8)
        kids = sorted(children.get(key, []), key=lambda c: (c.created or "", c.key))
        related = related_pages(parent, kids, lambda other, here=key: href(here, other))  # type: ignore[misc]
        if related is not None:
            found[key] = related
    return found


def related_signature(related: RelatedPages | None) -> list[object]:
    """What a built page's links to related sessions were (a change renders the page again)."""
    if related is None:
        return []
    return [related.parent, [list(child) for child in related.children]]
