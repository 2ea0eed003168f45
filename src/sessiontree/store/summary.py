"""A short account of a session file: what loading found, what it holds, what it cost."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.store.discovery import printable
from sessiontree.store.entries import message_of
from sessiontree.store.load import load_session
from sessiontree.store.numbers import count_of
from sessiontree.store.pricing import CostTotal, cost_text, usage_cost
from sessiontree.store.session import Session
from sessiontree.store.subagents import subagent_files

USAGE_KEYS = ("input", "output", "cacheRead", "cacheWrite")


@dataclass
class SessionSummary:
    """Facts about one session, for ``sessiontree inspect``."""

    path: str | None
    id: str | None
    title: str | None
    cwd: str | None
    created: str | None
    version_found: int
    migrations: list[str]
    entries: int
    entry_types: dict[str, int]
    message_roles: dict[str, int]
    roots: int
    branch_points: int
    leaf_id: str | None
    leaf_depth: int
    labels: int
    models: list[str]
    tokens: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    """Dollars: recorded, else estimated from the token counts (``cost_estimated``); None when
    nothing had a price."""
    cost_estimated: bool = False
    unpriced_models: list[str] = field(default_factory=list)
    """Models with tokens but neither a recorded cost nor a price in the table."""
    bad_lines: list[dict[str, Any]] = field(default_factory=list)
    missing_blobs: list[str] = field(default_factory=list)
    agent: str = "pi"
    """The agent that wrote the file (claude, codex: read by sessiontree.readers, never written)."""
    agent_version: str | None = None
    repairs: list[dict[str, Any]] = field(default_factory=list)
    title_slot: bool = False
    subagents: list[dict[str, Any]] = field(default_factory=list)
    parent_session: str | None = None
    """The session this one was spawned or forked from (its header's ``parentSession``)."""
    title_source: str | None = None
    """Where another agent's title came from (Claude Code: ``ai-title``, ``custom-title``, ``summary``)."""
    header_time: str | None = None
    """The header's own time, when it differs from ``created`` (a header rewritten later)."""
    prompts: int | None = None
    """Typed prompts (``store.kinds.is_typed_prompt``; filled by ``store.kinds.summarize``)."""
    notices: dict[str, int] = field(default_factory=dict)
    """Counted line kinds of the agent (``API error``: 8), folded repeats included."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


# Steps that bring an older file up to v3; anything else in ``migrations`` reads a field written
# by another agent of the family (pi's model_change {provider, modelId}), not a format change.
VERSION_STEPS = ("v1->v2", "v2->v3")


def add_usage(holder: dict[str, Any], tokens: dict[str, int], costs: CostTotal, when: object = None) -> None:
    """Add the tokens of ``holder``'s ``usage`` to ``tokens`` and its cost to ``costs``."""
    usage = holder.get("usage")
    if not isinstance(usage, dict):
        return
    for key in USAGE_KEYS:
        tokens[key] += count_of(usage.get(key))
    costs.add(usage_cost(usage, holder.get("provider"), holder.get("model"), when))


def summarize_session(session: Session) -> SessionSummary:
    """Count entries by type and role, tokens and cost, models, branches and load problems."""
    types: Counter[str] = Counter()
    roles: Counter[str] = Counter()
    tokens = dict.fromkeys(USAGE_KEYS, 0)
    costs = CostTotal()
    models: dict[str, None] = {}
    for entry in session.entries:
        kind = entry.get("type")
        types[kind if isinstance(kind, str) else "(no type)"] += 1
        if kind == "model_change" and isinstance(entry.get("model"), str):
            models[entry["model"]] = None
        when = entry.get("timestamp")
        if kind in ("model_usage", "branch_summary", "compaction"):
            # Calls outside the transcript (titles, summaries) cost tokens too.
            add_usage(entry, tokens, costs, when)
        message = message_of(entry)
        if message is None:
            continue
        role = message.get("role")
        roles[role if isinstance(role, str) else "(no role)"] += 1
        if role == "toolResult":
            add_usage(message, tokens, costs, when)  # a subagent's spend, when recorded
        if role != "assistant":
            continue
        provider, model = message.get("provider"), message.get("model")
        if isinstance(provider, str) and isinstance(model, str):
            models[f"{provider}/{model}"] = None
        add_usage(message, tokens, costs, when)
    tree = session.tree
    return SessionSummary(
        path=str(session.path) if session.path else None,
        id=session.id,
        title=session.title,
        cwd=session.cwd,
        created=session.started,
        header_time=session.timestamp if session.timestamp != session.started else None,
        version_found=session.version_found,
        migrations=list(session.migrations),
        entries=len(session.entries),
        entry_types=dict(types.most_common()),
        message_roles=dict(roles.most_common()),
        roots=len(tree.roots),
        branch_points=len(tree.branch_points),
        leaf_id=session.leaf_id,
        leaf_depth=len(tree.path_ids(session.leaf_id)),
        labels=len(tree.labels),
        models=list(models),
        tokens={key: count_of(value) for key, value in tokens.items()},
        cost=None if costs.value is None else round(costs.value, 6),
        cost_estimated=costs.estimated > 0,
        unpriced_models=list(costs.unpriced),
        bad_lines=[{"line": b.lineno, "reason": b.reason} for b in session.bad_lines],
        missing_blobs=list(session.missing_blobs),
        agent=_str(session.header.get("agent")) or "pi",
        agent_version=_str(session.header.get("agentVersion")),
        repairs=[{"line": r.lineno, "kind": r.kind, "text": r.text} for r in session.repairs],
        title_slot=session.title_slot is not None,
        title_source=_str(session.header.get("titleSource")),
        parent_session=_str(session.header.get("parentSession")),
        subagents=[_subagent(agent_id, path) for agent_id, path in subagent_files(session.path).items()],
    )


def _subagent(agent_id: str, path: Path) -> dict[str, Any]:
    sub = load_session(path)
    messages = sum(1 for e in sub.entries if e.get("type") == "message")
    return {"id": agent_id, "path": str(path), "messages": messages, "title": sub.title}


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def format_summary(summary: SessionSummary) -> str:
    """The human-readable form of a summary."""

    # Every string here may come from the session: escape sequences must not reach the terminal.
    safe = printable

    def counts(values: dict[str, int]) -> str:
        return ", ".join(f"{safe(name)} {count}" for name, count in values.items()) or "none"

    steps = [m for m in summary.migrations if m in VERSION_STEPS]
    migrated = f"migrated {', '.join(steps)} in memory" if steps else "current, no migration needed"
    if any(m not in VERSION_STEPS for m in summary.migrations):
        migrated += "; pi's model_change {provider, modelId} read as model"
    if summary.title_slot:
        migrated += "; title slot before the header"
    tokens = summary.tokens
    lines = [
        f"Session   {safe(summary.id or '?')}" + (f"  {safe(summary.title)}" if summary.title else ""),
        f"File      {safe(str(summary.path))}",
        f"Cwd       {safe(summary.cwd or '?')}",
        f"Created   {safe(summary.created or '?')}"
        + (f" (header written {safe(summary.header_time)})" if summary.header_time else ""),
        f"Version   v{summary.version_found} ({migrated})"
        if summary.agent == "pi"
        else f"Agent     {summary.agent} {safe(summary.agent_version or '')}".rstrip() + " (read only)",
        f"Entries   {summary.entries}: {counts(summary.entry_types)}",
        f"Messages  {sum(summary.message_roles.values())}: {counts(summary.message_roles)}"
        + (f"; {summary.prompts} typed prompt(s)" if summary.prompts is not None else ""),
        f"Tree      {summary.roots} root(s), {summary.branch_points} branch point(s), "
        f"{summary.labels} label(s)",
        f"Leaf      {safe(summary.leaf_id or '-')} (depth {summary.leaf_depth})",
        f"Models    {safe(', '.join(summary.models)) or 'none'}",
        f"Tokens    input {tokens['input']:,}, output {tokens['output']:,}, "
        f"cache read {tokens['cacheRead']:,}, cache write {tokens['cacheWrite']:,}",
        f"Cost      {safe(cost_text(summary.cost, summary.cost_estimated, summary.unpriced_models, 4))}",
    ]
    if summary.title_source:
        lines.insert(1, f"Title     from the {safe(summary.title_source)} line")
    if summary.parent_session:
        lines.insert(2, f"Parent    {safe(summary.parent_session)}")
    if summary.notices:
        lines.append(f"Notices   {counts(summary.notices)}")
    if summary.bad_lines:
        shown = ", ".join(f"{b['line']} ({safe(b['reason'])})" for b in summary.bad_lines[:10])
        more = f" and {len(summary.bad_lines) - 10} more" if len(summary.bad_lines) > 10 else ""
        lines.append(f"Bad lines {len(summary.bad_lines)} skipped: {shown}{more}")
    if summary.repairs:
        lines.append(f"Repairs   {len(summary.repairs)}, in memory only (the file is untouched):")
        lines += [f"          {safe(r['text'])}" for r in summary.repairs[:10]]
        if len(summary.repairs) > 10:
            lines.append(f"          and {len(summary.repairs) - 10} more")
    if summary.subagents:
        lines.append(f"Subagents {len(summary.subagents)}:")
        lines += [f"          {safe(a['id'])}: {a['messages']} message(s)" for a in summary.subagents]
    if summary.missing_blobs:
        lines.append(
            f"Missing   {len(summary.missing_blobs)} blob(s): {safe(', '.join(summary.missing_blobs[:5]))}"
        )
    return "\n".join(lines)
