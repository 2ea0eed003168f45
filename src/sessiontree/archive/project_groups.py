"""Sessions grouped by project for the index: each working directory's sessions, newest first,
subagents under their parent (moved out of ``archive/catalog.py``, which re-exports them)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sessiontree.store.discovery import SessionInfo


@dataclass(slots=True)
class CatalogNode:
    """One session in a project group, with its subagents."""

    entry: SessionInfo
    children: Sequence[CatalogNode] = ()
    """Its subagents' nodes (a list once it has one: no empty list per session, ~0.05 KB each)."""


@dataclass(slots=True)
class ProjectGroup:
    """The sessions of one working directory, newest first."""

    cwd: str
    nodes: list[CatalogNode]

    @property
    def modified(self) -> float:
        return max((n.entry.modified for n in self.nodes), default=0.0)


def group_by_project(entries: Iterable[SessionInfo]) -> list[ProjectGroup]:
    """Group records by their real cwd (subagents under their parent); newest group first."""
    ordered = sorted(entries, key=lambda e: (-e.modified, e.key))
    nodes = {e.key: CatalogNode(e) for e in ordered}
    groups: dict[str, list[CatalogNode]] = {}
    for e in ordered:
        node = nodes[e.key]
        if e.parent_key is not None and e.parent_key in nodes:
            parent = nodes[e.parent_key]
            if isinstance(parent.children, list):
                parent.children.append(node)
            else:
                parent.children = [node]
        else:
            groups.setdefault(e.cwd, []).append(node)
    result = [ProjectGroup(cwd, members) for cwd, members in groups.items()]
    result.sort(key=lambda g: (-g.modified, g.cwd))
    return result
