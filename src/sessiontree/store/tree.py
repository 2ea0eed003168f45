"""The entry tree: index by id, effective parents, children, roots, paths, labels, branch points.

Files can be damaged or hand-edited: a parent that is missing makes an orphan (a root), a
self-parent is a root, and a parent cycle is broken at its earliest entry, so nothing here can
loop or recurse without bound.

The tree grows one entry at a time (``add``), so the manager, the renderer of a live page and
the file tail reader keep one index up to date instead of rebuilding it: adding the entries of a
file one by one gives exactly the tree built from the whole file.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from sessiontree.store.entries import Entry


def apply_label(labels: dict[str, str], entry: Mapping[str, Any]) -> bool:
    """Apply a ``label`` entry to ``labels`` (last label wins, an empty label clears); tell if it was one."""
    target = entry.get("targetId")
    if entry.get("type") != "label" or not isinstance(target, str):
        return False
    label = entry.get("label")
    if isinstance(label, str) and label:
        labels[target] = label
    else:
        labels.pop(target, None)
    return True


class SessionTree:
    """The tree over a session's entries, kept up to date as entries are added."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.by_id: dict[str, Entry] = {}
        self.labels: dict[str, str] = {}
        self.last_id: str | None = None
        self._order: list[str] = []  # file order of each id's first occurrence
        self._position: dict[str, int] = {}
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[str]] = {}
        self._waiting: dict[str, list[str]] = {}  # a parent id not seen yet -> its children so far
        for entry in entries:
            self.add(entry)

    def add(self, entry: Entry) -> None:
        """Index one more entry (in file order): its id, parent, children and label."""
        apply_label(self.labels, entry)
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            return
        self.last_id = entry_id
        old = self.by_id.get(entry_id)
        self.by_id[entry_id] = entry  # a duplicate id: the last entry wins, as in the reference
        if old is not None:
            if old.get("parentId") != entry.get("parentId"):
                self._relink_all()  # a damaged file: one id, two parents; rare enough to redo
            return
        self._position[entry_id] = len(self._order)
        self._order.append(entry_id)
        raw = entry.get("parentId")
        parent = raw if isinstance(raw, str) and raw in self.by_id and raw != entry_id else None
        if isinstance(raw, str) and raw != entry_id and parent is None:
            self._waiting.setdefault(raw, []).append(entry_id)
        self._parent[entry_id] = parent
        self._children.setdefault(parent, []).append(entry_id)
        adopted = self._waiting.pop(entry_id, None)
        if adopted:
            self._adopt(entry_id, adopted)

    def _adopt(self, entry_id: str, orphans: list[str]) -> None:
        """Give earlier orphans that named ``entry_id`` as parent their parent; break a cycle that makes."""
        roots = self._children[None]
        for orphan in orphans:
            roots.remove(orphan)
            self._parent[orphan] = entry_id
        self._children[entry_id] = list(orphans)  # new, so no child before them; file order kept
        cycle = [entry_id]
        node = self._parent[entry_id]
        while node is not None and node != entry_id:
            cycle.append(node)
            node = self._parent[node]
        if node is None:
            return
        cut = min(cycle, key=self._position.__getitem__)
        self._children[self._parent[cut]].remove(cut)
        self._parent[cut] = None
        bisect.insort(self._children.setdefault(None, []), cut, key=self._position.__getitem__)

    def _relink_all(self) -> None:
        """Recompute every effective parent from the entries as they are now."""
        parent: dict[str, str | None] = {}
        self._waiting = {}
        for entry_id in self._order:
            raw = self.by_id[entry_id].get("parentId")
            known = isinstance(raw, str) and raw in self.by_id and raw != entry_id
            parent[entry_id] = raw if known else None
            if isinstance(raw, str) and raw != entry_id and not known:
                self._waiting.setdefault(raw, []).append(entry_id)
        done: set[str] = set()
        for start in self._order:
            chain: list[str] = []
            on_chain: set[str] = set()
            node: str | None = start
            while node is not None and node not in done and node not in on_chain:
                chain.append(node)
                on_chain.add(node)
                node = parent[node]
            if node is not None and node in on_chain:
                cycle = chain[chain.index(node) :]
                parent[min(cycle, key=self._position.__getitem__)] = None
            done.update(chain)
        self._parent = parent
        self._children = {}
        for entry_id in self._order:
            self._children.setdefault(parent[entry_id], []).append(entry_id)

    @property
    def order(self) -> list[str]:
        """Every distinct id in file order."""
        return self._order

    @property
    def roots(self) -> list[str]:
        """Ids with no effective parent, in file order."""
        return self._children.get(None, [])

    def parent_of(self, entry_id: str) -> str | None:
        """The effective parent id (None for roots, orphans, self-parents and broken cycles)."""
        return self._parent.get(entry_id)

    def children_of(self, entry_id: str | None) -> list[str]:
        """Child ids in file order; ``None`` gives the roots."""
        return self._children.get(entry_id, [])

    @property
    def branch_points(self) -> list[str]:
        """Ids with more than one child, in file order."""
        return [i for i in self._order if len(self._children.get(i, ())) > 1]

    def path_ids(self, leaf_id: str | None) -> list[str]:
        """Ids from the root down to ``leaf_id`` (empty when it is None or unknown)."""
        ids: list[str] = []
        node = leaf_id if leaf_id in self.by_id else None
        while node is not None:
            ids.append(node)
            node = self._parent[node]
        ids.reverse()
        return ids

    def path_to(self, leaf_id: str | None) -> list[Entry]:
        """Entries from the root down to ``leaf_id``."""
        return [self.by_id[i] for i in self.path_ids(leaf_id)]

    def label_of(self, entry_id: str) -> str | None:
        """The resolved label of an entry, if any."""
        return self.labels.get(entry_id)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self.by_id

    def __len__(self) -> int:
        return len(self.by_id)
