"""buildSessionContext: what is sent to the model for a given leaf."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from sessiontree.store.entries import Entry, Message
from sessiontree.store.times import time_millis


class _Unset(Enum):
    UNSET = "unset"


UNSET: Final = _Unset.UNSET
"""``leaf_id`` not given: use the last entry (None means "no leaf": an empty context)."""


@dataclass(slots=True)
class SessionContext:
    """The messages and runtime state a leaf resolves to."""

    messages: list[Message] = field(default_factory=list)
    thinking_level: str = "off"
    models: dict[str, str] = field(default_factory=dict)
    injected_ttsr_rules: list[str] = field(default_factory=list)
    mode: str = "none"
    mode_data: dict[str, Any] | None = None
    # Index into ``messages`` -> note, where an entry whose parent was lost joins the path.
    joints: dict[int, str] = field(default_factory=dict)


def iso_to_millis(timestamp: object) -> int | None:
    """Milliseconds since the epoch of an ISO-8601 string (None when unparsable), as Date.getTime."""
    return time_millis(timestamp) if isinstance(timestamp, str) else None


ENTRY_MESSAGES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "custom_message": ("custom", ("customType", "content", "display", "details")),
    "branch_summary": ("branchSummary", ("summary", "fromId")),
    "compaction": ("compactionSummary", ("summary", "tokensBefore")),
}
"""Entry type -> the AgentMessage role it becomes in the context and the fields it carries over."""


def message_of_entry(entry: Entry) -> Message:
    """The AgentMessage of a ``custom_message``, ``branch_summary`` or ``compaction`` entry."""
    role, fields = ENTRY_MESSAGES[entry["type"]]
    message: Message = {"role": role}
    message.update((name, entry.get(name)) for name in fields)
    message["timestamp"] = iso_to_millis(entry.get("timestamp"))
    return message


def thinking_level_of(entry: Entry) -> str:
    """The level a thinking_level_change sets: oh-my-pi's ``configured: "auto"`` is "auto", not "off"."""
    configured, level = entry.get("configured"), entry.get("thinkingLevel")
    if configured == "auto":
        return "auto"
    if isinstance(level, str) and level:
        return level
    return configured if isinstance(configured, str) and configured else "off"


def _path_to(
    entries: list[Entry], leaf_id: str | _Unset | None, by_id: dict[str, Entry] | None
) -> list[Entry]:
    if leaf_id is None or not entries:
        return []
    if by_id is None:
        by_id = {e["id"]: e for e in entries if isinstance(e.get("id"), str)}
    leaf = by_id.get(leaf_id) if isinstance(leaf_id, str) else None
    if leaf is None:
        leaf = entries[-1]
    path: list[Entry] = []
    seen: set[int] = set()
    node: Entry | None = leaf
    while node is not None and id(node) not in seen:  # a parent cycle ends the walk
        seen.add(id(node))
        path.append(node)
        parent = node.get("parentId")
        node = by_id.get(parent) if isinstance(parent, str) else None
    path.reverse()
    return path


def _append_message(entry: Entry, out: list[Message], ctx: SessionContext, joints: Mapping[str, str]) -> None:
    note = joints.get(entry.get("id", "")) if joints else None
    if note is not None:
        ctx.joints.setdefault(len(out), note)
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if isinstance(message, dict):
            out.append(message)
    elif kind == "custom_message" or (kind == "branch_summary" and entry.get("summary")):
        out.append(message_of_entry(entry))


def build_session_context(
    entries: list[Entry],
    leaf_id: str | _Unset | None = UNSET,
    by_id: dict[str, Entry] | None = None,
    *,
    joints: Mapping[str, str] | None = None,
) -> SessionContext:
    """Resolve the context of ``leaf_id`` as the reference's buildSessionContext does.

    A ``reset_boundary`` (oh-my-pi's ``/clear``) starts the messages afresh after it; a
    compaction with a ``retainedTail`` (pi) keeps those messages instead of walking from
    ``firstKeptEntryId``. ``joints`` (entry id -> note) marks where repaired entries join.
    """
    joints = joints or {}
    path = _path_to(entries, leaf_id, by_id)
    ctx = SessionContext()
    if not path:
        return ctx
    compaction: Entry | None = None
    explicit_default = False
    rules: dict[str, None] = {}
    for entry in path:
        kind = entry.get("type")
        if kind == "thinking_level_change":
            ctx.thinking_level = thinking_level_of(entry)
        elif kind == "model_change":
            model = entry.get("model")
            if isinstance(model, str) and model:
                role = entry.get("role")
                role = role if isinstance(role, str) else "default"
                ctx.models[role] = model
                explicit_default = explicit_default or role == "default"
        elif kind == "message":
            message = entry.get("message")
            if isinstance(message, dict) and message.get("role") == "assistant" and not explicit_default:
                provider, model = message.get("provider"), message.get("model")
                if isinstance(provider, str) and isinstance(model, str):
                    ctx.models["default"] = f"{provider}/{model}"
        elif kind == "compaction":
            compaction = entry
        elif kind == "ttsr_injection":
            injected = entry.get("injectedRules")
            for rule in injected if isinstance(injected, list) else ():
                if isinstance(rule, str):
                    rules[rule] = None
        elif kind == "mode_change":
            mode = entry.get("mode")
            ctx.mode = mode if isinstance(mode, str) else "none"
            data = entry.get("data")
            ctx.mode_data = data if isinstance(data, dict) else None
    ctx.injected_ttsr_rules = list(rules)

    messages = ctx.messages
    start = next((i + 1 for i in range(len(path) - 1, -1, -1) if path[i].get("type") == "reset_boundary"), 0)
    if compaction is not None and not any(e is compaction for e in path[start:]):
        compaction = None  # cleared by a later reset
    if compaction is None:
        for entry in path[start:]:
            _append_message(entry, messages, ctx, joints)
        return ctx
    messages.append(message_of_entry(compaction))
    cut = next(i for i, e in enumerate(path) if e is compaction)
    tail = compaction.get("retainedTail")
    if isinstance(tail, list):
        messages.extend(m for m in tail if isinstance(m, dict))
    else:
        first_kept = compaction.get("firstKeptEntryId")
        keeping = False
        for entry in path[start:cut]:
            keeping = keeping or entry.get("id") == first_kept
            if keeping:
                _append_message(entry, messages, ctx, joints)
    for entry in path[cut + 1 :]:
        _append_message(entry, messages, ctx, joints)
    return ctx
