"""The first screen of a session's active path, rendered alone: what a server sends before the rest."""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

from sessiontree.exporter.context import RenderContext
from sessiontree.exporter.render import render_entry
from sessiontree.store import Session

PREVIEW_ENTRIES = 12
"""Messages in the preview: more than a first screen holds."""


def first_screen_ids(
    path_to: Callable[[str], list[str]],
    known: Container[str],
    leaf: str | None,
    target_id: str | None = None,
    limit: int = PREVIEW_ENTRIES,
) -> list[str]:
    """The ids of the path's entries the first screen is made from: the path from its start (from
    a little before ``target_id`` when it is on the path), enough for ``limit`` messages.

    ``path_to`` gives the ids from the root to an entry, ``known`` the ids there are (an unknown
    target is ignored, as the viewer ignores it). The calls the first screen's results need are
    on the path just before them, so the window starts with the path.
    """
    ids = path_to(leaf) if leaf else []
    start = 0
    if target_id is not None and target_id in known:
        if target_id not in ids:  # the viewer opens the target's own path then
            ids = path_to(target_id)
        start = max(0, ids.index(target_id) - 2)
    return ids[start : start + limit * 20]


def render_first_screen(
    window: Sequence[dict[str, Any]],
    labels: Mapping[str, str],
    joints: Mapping[str, str],
    parent_of: Callable[[str], str | None],
    limit: int = PREVIEW_ENTRIES,
) -> str:
    """Render the first ``limit`` messages of ``window`` (entries of the path, in its order), meta
    entries left out and each tool result inside its call's message left for the viewer to fill in.
    Trusted HTML: our renderer's fragments."""
    ctx = RenderContext.for_entries(window, labels, joints=joints)
    calls: set[str] = set()
    parts: list[str] = []
    for entry in window:
        meta, html = render_entry(entry, ctx, parent_id=parent_of(entry["id"]))
        if meta["cat"] == "meta" or meta.get("result") in calls:
            continue
        calls.update(meta.get("calls", ()))
        parts.append(html)
        if len(parts) >= limit:
            break
    return "".join(parts)


def render_preview(
    session: Session,
    *,
    leaf_id: str | None = None,
    target_id: str | None = None,
    limit: int = PREVIEW_ENTRIES,
) -> str:
    """Return the fragments the viewer would show first for a link's ``?leafId=`` and
    ``?targetId=`` (unknown ids are ignored, as the viewer ignores them): see ``first_screen_ids``."""
    tree = session.tree
    leaf = leaf_id if leaf_id in tree.by_id else session.leaf_id

    def path_to(entry_id: str) -> list[str]:
        return [entry["id"] for entry in tree.path_to(entry_id)]

    ids = first_screen_ids(path_to, tree.by_id, leaf, target_id, limit)
    window = [tree.by_id[i] for i in ids]
    return render_first_screen(window, tree.labels, session.joints, tree.parent_of, limit)
