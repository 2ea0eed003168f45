"""One table of message roles: how each is shown on a page and how it is dumped as text.

A role is one row (``ROLES``): the HTML renderer (``render.py``) and the text renderer
(``text.py``) each fill their column with ``@shows`` / ``@dumps`` and look a role up here, so
a new role is a new row, not a new branch in two parallel if-chains.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from markupsafe import Markup

    from sessiontree.exporter.blocks import Meta
    from sessiontree.exporter.context import RenderContext

ShowRole = Callable[
    [Mapping[str, Any], Mapping[str, Any], "RenderContext", "Meta"], "tuple[str, str, Markup]"
]
"""(entry, message, ctx, meta) -> (category, head, body) of the entry's ``<article>``."""
DumpRole = Callable[[Mapping[str, Any], str], list[str]]
"""(message, text filter) -> the dump's lines."""


@dataclass
class RoleKind:
    """One message role: whether the no-tools dump leaves it out, how it is shown, how dumped."""

    name: str
    tool: bool = False
    show: ShowRole | None = None
    dump: DumpRole | None = None


ROLES: dict[str, RoleKind] = {
    kind.name: kind
    for kind in (
        RoleKind("user"),
        RoleKind("developer"),
        RoleKind("fileMention"),
        RoleKind("assistant"),
        RoleKind("toolResult", tool=True),
        RoleKind("bashExecution", tool=True),
        RoleKind("pythonExecution", tool=True),
        RoleKind("custom"),
        RoleKind("hookMessage"),
        RoleKind("branchSummary"),
        RoleKind("compactionSummary"),
    )
}

TOOL_ROLES = frozenset(name for name, kind in ROLES.items() if kind.tool)


def shows(*roles: str) -> Callable[[ShowRole], ShowRole]:
    """Register the HTML renderer of these roles."""

    def register(fn: ShowRole) -> ShowRole:
        for role in roles:
            ROLES[role].show = fn
        return fn

    return register


def dumps(*roles: str) -> Callable[[DumpRole], DumpRole]:
    """Register the text renderer of these roles (the table's other column)."""
    return lambda fn: _set_dump(roles, fn)


def _set_dump(roles: tuple[str, ...], fn: DumpRole) -> DumpRole:
    for role in roles:
        ROLES[role].dump = fn
    return fn


__all__ = ["ROLES", "TOOL_ROLES", "DumpRole", "RoleKind", "ShowRole", "dumps", "shows"]
