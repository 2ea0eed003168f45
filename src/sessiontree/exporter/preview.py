"""The first screen of a session's active path, rendered alone: what a server sends before the rest."""

from __future__ import annotations

from sessiontree.exporter.context import RenderContext
from sessiontree.exporter.render import render_entry
from sessiontree.store import Session

PREVIEW_ENTRIES = 12
"""Messages in the preview: more than a first screen holds."""


def render_preview(
    session: Session,
    *,
    leaf_id: str | None = None,
    target_id: str | None = None,
    limit: int = PREVIEW_ENTRIES,
) -> str:
    """Return the fragments the viewer would show first: the active path from its start (from a
    little before ``target_id`` when it is on the path), meta entries left out and each tool
    result inside its call's message left for the viewer to fill in.

    ``leaf_id`` and ``target_id`` are a link's ``?leafId=`` and ``?targetId=`` (unknown ids are
    ignored, as the viewer ignores them). Trusted HTML: our renderer's fragments.
    """
    tree = session.tree
    leaf = leaf_id if leaf_id in tree.by_id else session.leaf_id
    path = tree.path_to(leaf) if leaf else []
    ids = [entry.get("id") for entry in path]
    start = 0
    if target_id is not None and target_id in tree.by_id:
        if target_id not in ids:  # the viewer opens the target's own path then
            path = tree.path_to(target_id)
            ids = [entry.get("id") for entry in path]
        start = max(0, ids.index(target_id) - 2)
    # The calls the first screen's results need are on the path just before them.
    window = path[start : start + limit * 20]
    ctx = RenderContext.for_entries(window, tree.labels, joints=session.joints)
    calls: set[str] = set()
    parts: list[str] = []
    for entry in window:
        meta, html = render_entry(entry, ctx, parent_id=tree.parent_of(entry["id"]))
        if meta["cat"] == "meta" or meta.get("result") in calls:
            continue
        calls.update(meta.get("calls", ()))
        parts.append(html)
        if len(parts) >= limit:
            break
    return "".join(parts)
