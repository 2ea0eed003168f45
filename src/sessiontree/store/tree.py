"""The entry tree: index by id, effective parents, children, roots, paths, labels, branch points.

Files can be damaged or hand-edited: a parent that is missing makes an orphan (a root), a
self-parent is a root, and a parent cycle is broken at its earliest entry, so nothing here can
loop or recurse without bound.
"""

from __future__ import annotations

from collections.abc import Iterable

from sessiontree.store.entries import Entry


class SessionTree:
    """A read-only tree over a session's entries."""

    def __init__(self, entries: Iterable[Entry]) -> None:
        by_id: dict[str, Entry] = {}
        position: dict[str, int] = {}
        labels: dict[str, str] = {}
        last_id: str | None = None
        for index, entry in enumerate(entries):
            entry_id = entry.get("id")
            if isinstance(entry_id, str):
                position.setdefault(entry_id, index)
                by_id[entry_id] = entry  # a duplicate id: the last entry wins, as in the reference
                last_id = entry_id
            if entry.get("type") == "label" and isinstance(entry.get("targetId"), str):
                label = entry.get("label")
                if isinstance(label, str) and label:
                    labels[entry["targetId"]] = label
                else:
                    labels.pop(entry["targetId"], None)
        self.by_id = by_id
        self.labels = labels
        self.last_id = last_id
        self._order = list(by_id)  # dicts keep first-insertion order: file order of first occurrence
        self._parent = self._effective_parents(position)
        children: dict[str | None, list[str]] = {}
        for entry_id in self._order:
            children.setdefault(self._parent[entry_id], []).append(entry_id)
        self._children = children

    def _effective_parents(self, position: dict[str, int]) -> dict[str, str | None]:
        parent: dict[str, str | None] = {}
        for entry_id in self._order:
            raw = self.by_id[entry_id].get("parentId")
            parent[entry_id] = raw if isinstance(raw, str) and raw in self.by_id and raw != entry_id else None
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
                parent[min(cycle, key=position.__getitem__)] = None
            done.update(chain)
        return parent

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
