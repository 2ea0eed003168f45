"""The server-rendered page sections: header (figures and chart) and system prompt with tools."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.blocks import pretty_json, render_output
from sessiontree.exporter.options import RelatedPages
from sessiontree.exporter.render import format_ts, one_line
from sessiontree.exporter.stats import SessionStats, render_chart
from sessiontree.exporter.templating import MacroSet
from sessiontree.store.formats import AGENT_LABELS
from sessiontree.store.session import Session
from sessiontree.store.system import Tool, canonical_tools
from sessiontree.store.times import time_millis, utc_datetime

ToolSpec = dict[str, str]


SECTIONS = MacroSet("sections.html.j2")


# (singular, plural) of each count the header shows; a zero count is not shown.
# Typed prompts (the outline's rule), not every user message: a tool's output or an interruption
# Claude Code writes as a user message is no prompt.
COUNT_NAMES = {
    "prompts": ("prompt", "prompts"),
    "assistant": ("assistant message", "assistant messages"),
    "toolCalls": ("tool call", "tool calls"),
    "toolResults": ("tool result", "tool results"),
    "custom": ("custom entry", "custom entries"),
    "compactions": ("compaction", "compactions"),
    "branchSummaries": ("branch summary", "branch summaries"),
}
# How each agent resumes a session by its id.
RESUME = {
    "claude": "claude --resume {}",
    "codex": "codex resume {}",
    "pi": "pi --resume {}",
    "omp": "omp --resume {}",
}
# An id a shell takes as one plain word: anything else in a file (a space, `;`, `$(`, a newline)
# would make the copied command run more than the agent, so it gets no resume command.
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,127}")


@dataclass(frozen=True)
class HeaderFacts:
    """What the header says about where a session ran, beside its figures."""

    agent: str = ""
    version: str = ""
    branch: str = ""
    first: str = ""
    last: str = ""
    duration: str = ""
    resume: str = ""
    counts: list[tuple[str, int, str]] = field(default_factory=list)
    parent: str = ""
    """The session this one was spawned from (a Codex subagent thread names its parent)."""
    subagents: str = ""
    """What subagents add to the counts' totals (``SessionStats.subagents_text``)."""
    parent_href: str = ""
    """Its page, where there is one (serve, build)."""
    children: tuple[tuple[str, str, str], ...] = ()
    """(session id, label, page) of each session this one spawned, where each has a page (serve, build)."""


def _millis(value: Any) -> int | None:
    if not isinstance(value, str) or len(value) < 19:
        return None
    return time_millis(value)  # the one clamped conversion: out of 1970..9999 UTC is no time


def duration_text(seconds: float) -> str:
    """A duration as people say it: "42 s", "3 min 5 s", "2 h 14 min", "3 d 4 h"."""
    s = int(max(0, seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min" + (f" {s % 60} s" if s % 60 else "")
    if s < 86400:
        return f"{s // 3600} h" + (f" {s % 3600 // 60} min" if s % 3600 // 60 else "")
    return f"{s // 86400} d" + (f" {s % 86400 // 3600} h" if s % 86400 // 3600 else "")


def _iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def header_facts(session: Session, stats: SessionStats, related: RelatedPages | None = None) -> HeaderFacts:
    """Return the agent, its version, git branch, span, resume command, the counts to show and
    the pages of the sessions it spawned or was spawned by."""
    header = session.header
    agent = header.get("agent") if isinstance(header.get("agent"), str) else "pi"
    if agent == "pi" and session.path is not None and ".omp" in session.path.parts:
        agent = "omp"
    millis = [m for m in (_millis(e.get("timestamp")) for e in session.entries) if m is not None]
    first, last = (
        (utc_datetime(min(millis) / 1000), utc_datetime(max(millis) / 1000)) if millis else (None, None)
    )
    template = RESUME.get(str(agent))
    counts = [
        (key, n, COUNT_NAMES[key][n != 1]) for key, n in stats.counts.items() if n and key in COUNT_NAMES
    ]
    counts.sort(key=lambda c: list(COUNT_NAMES).index(c[0]))
    return HeaderFacts(
        agent=AGENT_LABELS.get(str(agent), str(agent)),
        version=str(header.get("agentVersion") or ""),
        branch=str(header.get("gitBranch") or ""),
        first=_iso(first) if first else "",
        last=_iso(last) if last else "",
        duration=duration_text((last - first).total_seconds()) if first and last and last > first else "",
        resume=template.format(session.id) if template and SAFE_ID.fullmatch(session.id or "") else "",
        counts=counts,
        parent=str(header.get("parentSession") or (related.parent_id if related else ""))
        if agent != "pi"
        else "",
        subagents=stats.subagents_text(),
        parent_href=(related.parent or "") if related is not None else "",
        children=related.children if related is not None else (),
    )


def render_header(
    session: Session,
    *,
    title: str,
    stats: SessionStats | None,
    chart_points: list[tuple[int, float]],
    related: RelatedPages | None = None,
) -> Markup:
    """Return the inner HTML of ``#st-header``.

    ``stats`` None gives the header's identity alone (title, id, agent, directory, branch, start
    date, related pages): what a server shows before it has gone over every entry."""
    date = session.started or ""
    if stats is None:  # no counts, tokens, cost, span or chart
        facts = dataclasses.replace(
            header_facts(session, SessionStats(), related), first="", last="", duration=""
        )
        identity: Markup = SECTIONS.header(
            title, session.id or "", session.cwd or "", date, format_ts(date), [], facts, {}, None, ""
        )
        return identity
    html: Markup = SECTIONS.header(
        title,
        session.id or "",
        session.cwd or "",
        date,
        format_ts(date),
        stats.models,
        header_facts(session, stats, related),
        stats.tokens,
        stats.costs,
        render_chart(chart_points, estimated=stats.costs.estimated > 0),
    )
    return html


def tool_spec(tool: Tool) -> ToolSpec:
    """Return {name, summary, description, parameters} of a canonical tool, ready for the page."""
    description = tool.get("description", "")
    params = tool.get("parameters")
    return {
        "name": tool["name"],
        "summary": one_line(description),
        "description": description if "\n" in description or len(description) > 120 else "",
        "parameters": pretty_json(params) if params else "",
    }


def normalise_tools(tools: Any) -> list[ToolSpec]:
    """Return the page specs of tools given as names or any common schema (see ``canonical_tools``)."""
    return [tool_spec(tool) for tool in canonical_tools(tools)]


def render_system(prompt: str, tools: Sequence[ToolSpec]) -> Markup:
    """Return the inner HTML of ``#st-system``: collapsed system prompt and tools list."""
    if not prompt and not tools:
        return Markup("")
    lines = prompt.count("\n") + 1 if prompt else 0
    prompt_html = render_output(prompt, kind="system", limit=10_000) if prompt else Markup("")
    html: Markup = SECTIONS.system(one_line(prompt), prompt_html, lines, list(tools))
    return html
