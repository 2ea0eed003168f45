"""Archived branches (oh-my-pi ``archive`` records): hidden from the tree, never deleted."""

from __future__ import annotations

from collections.abc import Iterable

from sessiontree.store.entries import Entry
from sessiontree.store.tree import SessionTree


def archived_targets(entries: Iterable[Entry]) -> set[str]:
    """The ids whose branch is archived: the last ``archive`` record per target wins."""
    state: dict[str, bool] = {}
    for entry in entries:
        target = entry.get("targetId")
        if entry.get("type") == "archive" and isinstance(target, str):
            state[target] = entry.get("archived") is not False
    return {target for target, archived in state.items() if archived}


def archived_ids(entries: Iterable[Entry], tree: SessionTree) -> set[str]:
    """Every id inside an archived branch (the target and all below it)."""
    todo = [t for t in archived_targets(entries) if t in tree]
    found: set[str] = set()
    while todo:
        node = todo.pop()
        if node in found:
            continue
        found.add(node)
        todo.extend(tree.children_of(node))
    return found
