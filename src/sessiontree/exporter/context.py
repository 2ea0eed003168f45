"""What rendering one entry needs from the rest of its session: labels, tool calls, images, subagents."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sessiontree.exporter.images import ImageRegistry
from sessiontree.store.archive import archived_ids
from sessiontree.store.session import Session, Subagents
from sessiontree.store.tree import apply_label


@dataclass
class RenderContext:
    """What rendering one entry needs from the rest of the session (small; kept by a live viewer)."""

    labels: dict[str, str] = field(default_factory=dict)
    images: ImageRegistry = field(default_factory=ImageRegistry)
    calls: dict[str, tuple[str, Any]] = field(default_factory=dict)
    # Entry id -> note where loading reattached an entry whose parent was lost (store.repair).
    joints: dict[str, str] = field(default_factory=dict)
    # Ids inside archived branches: hidden in the tree except under the "all" filter.
    archived: set[str] = field(default_factory=set)
    # The session's subagents as its reader found them: oh-my-pi's embedded under the task result
    # that names them; Claude Code's (side branches of this tree already) linked to their own page.
    subagents: Subagents = field(default_factory=Subagents)
    # Agent id -> URL of the subagent's own page (serve, build); None in an export.
    subagent_href: Callable[[str], str | None] | None = None
    # Session id -> the page of a session this one spawned (an OpenCode task's), serve and build.
    child_page: Callable[[str], str | None] | None = None
    depth: int = 0

    @classmethod
    def for_entries(
        cls,
        entries: Iterable[Mapping[str, Any]],
        labels: Mapping[str, str],
        *,
        joints: Mapping[str, str] | None = None,
        archived: Iterable[str] = (),
    ) -> RenderContext:
        """Build a context indexing every tool call of the entries (results render by their call).

        ``labels`` are the resolved ones (a SessionTree's): a dict is shared, not copied, so a
        live viewer that adds entries to the tree reads the same labels here.
        """
        shared = labels if isinstance(labels, dict) else dict(labels)
        ctx = cls(labels=shared, joints=dict(joints or {}), archived=set(archived))
        for entry in entries:
            ctx._index_calls(entry)
        return ctx

    @classmethod
    def for_session(cls, session: Session, *, depth: int = 0) -> RenderContext:
        """Build the context of a loaded session: calls, labels, joints, archived branches, subagents."""
        tree = session.tree
        ctx = cls.for_entries(
            session.entries, tree.labels, joints=session.joints, archived=archived_ids(session.entries, tree)
        )
        ctx.subagents = session.subagents
        ctx.depth = depth
        return ctx

    def child_session_page(self, message: Mapping[str, Any]) -> str | None:
        """The page of the session a task result ran in (``details.sessionId``: OpenCode's task
        tool), when it is listed beside this one (serve, build); else None."""
        details = message.get("details")
        child = details.get("sessionId") if isinstance(details, Mapping) else None
        if self.child_page is None or self.depth or not isinstance(child, str):
            return None
        return self.child_page(child)

    def register(self, entry: Mapping[str, Any]) -> None:
        """Index the tool calls (and a label) of one entry, as a live viewer does for appended entries."""
        if not apply_label(self.labels, entry):  # the tree's rule: applied twice, still the same
            self._index_calls(entry)

    def _index_calls(self, entry: Mapping[str, Any]) -> None:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, Mapping):
            return
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            return
        for block in message["content"]:
            if (
                isinstance(block, Mapping)
                and block.get("type") == "toolCall"
                and isinstance(block.get("id"), str)
            ):
                name = block.get("name")
                self.calls[block["id"]] = (name if isinstance(name, str) else "tool", block.get("arguments"))
