"""Header figures: entry counts, tokens, cost, models, and the cumulative chart along the path."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from sessiontree.store.kinds import is_typed_prompt
from sessiontree.store.numbers import count_of
from sessiontree.store.pricing import Cost, CostTotal, usage_cost
from sessiontree.store.subagents import subagent_of

CHART_WIDTH = 320
CHART_HEIGHT = 64
CHART_MAX_POINTS = 240
TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")


@dataclass
class SubagentShare:
    """What subagents add to a session's totals: their transcripts read into its tree (messages) and
    the spend their task results record."""

    agents: dict[str, None] = field(default_factory=dict)
    """The ids of the subagents whose transcripts were read into the tree."""
    messages: int = 0
    tokens: int = 0
    costs: CostTotal = field(default_factory=CostTotal)
    at: dict[str, tuple[int, float]] = field(default_factory=dict)
    """(tokens, dollars) by the id of the session's own entry they hang under (the chart's turn)."""


@dataclass
class SessionStats:
    """What the page header shows: the session's own conversation counted (``prompts``: typed, the
    outline's rule), a subagent's part apart (``subagents``); tokens and cost of both."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            (
                "prompts",
                "user",
                "assistant",
                "toolResults",
                "custom",
                "compactions",
                "branchSummaries",
                "toolCalls",
            ),
            0,
        )
    )
    tokens: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    costs: CostTotal = field(default_factory=CostTotal)
    """Recorded costs, else estimates from the token counts (``store.pricing``), subagents' included."""
    models: list[str] = field(default_factory=list)
    subagents: SubagentShare = field(default_factory=SubagentShare)

    def subagents_text(self) -> str:
        """What subagents add to the totals, in words ("1 subagent adds 31 messages, 99,127 tokens
        and $0.1984 (estimated)"); empty when they add nothing."""
        share = self.subagents
        if not share.messages and not share.tokens and not share.costs.priced:
            return ""
        n = len(share.agents)
        who = f"{n} subagent{'s' if n != 1 else ''}" if n else "subagents"
        parts = [f"{share.messages:,} message{'s' if share.messages != 1 else ''}"] if share.messages else []
        parts += [f"{share.tokens:,} tokens"] if share.tokens else []
        parts += [share.costs.text(4)] if share.costs.priced else []
        listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
        return f"{who} add{'s' if n == 1 else ''} {listed} (in the totals)"

    @property
    def cost(self) -> float:
        """The dollars (0 when nothing had a price)."""
        return self.costs.amount


Usage = tuple[dict[str, int], Cost]
UsageMemo = dict[int, Usage]
"""Usage by ``id()`` of its message, for one pass over a session that is alive meanwhile: the
header's totals and its chart along the path price each message once."""


def usage_of(message: Mapping[str, Any], when: object = None, memo: UsageMemo | None = None) -> Usage:
    """Return (tokens by kind, cost) of one assistant message (zeros when it has no usage)."""
    if memo is not None and (known := memo.get(id(message))) is not None:
        return known
    usage = message.get("usage")
    if not isinstance(usage, Mapping):
        return dict.fromkeys(TOKEN_KEYS, 0), Cost(None)
    cost = usage_cost(usage, message.get("provider"), message.get("model"), when)
    found = {k: count_of(usage.get(k)) for k in TOKEN_KEYS}, cost
    if memo is not None:
        memo[id(message)] = found
    return found


def _model_of(message: Mapping[str, Any]) -> str:
    provider, model = message.get("provider"), message.get("model")
    if isinstance(model, str) and model:
        return f"{provider}/{model}" if isinstance(provider, str) and provider and "/" not in model else model
    return ""


def _add_usage(
    stats: SessionStats,
    holder: Mapping[str, Any],
    when: object,
    memo: UsageMemo | None,
    anchor: str | None = None,
) -> None:
    """Add a holder's usage to the totals; with ``anchor`` (the session's own entry a subagent ran
    under) to the subagents' share too."""
    used, cost = usage_of(holder, when, memo)
    for key, value in used.items():
        stats.tokens[key] += value
    stats.costs.add(cost)
    if anchor is not None:
        share = stats.subagents
        share.tokens += sum(used.values())
        share.costs.add(cost)
        tokens, dollars = share.at.get(anchor, (0, 0.0))
        share.at[anchor] = (tokens + sum(used.values()), dollars + (cost.amount or 0.0))


def _anchors(entries: list[Mapping[str, Any]]) -> Callable[[Mapping[str, Any]], str | None]:
    """The id of the session's own entry a subagent's entry hangs under (its nearest ancestor that is
    not a subagent's), found through the parents once per entry."""
    parent_of = {e["id"]: e.get("parentId") for e in entries if isinstance(e.get("id"), str)}
    inside = {e["id"] for e in entries if isinstance(e.get("id"), str) and subagent_of(e) is not None}
    found: dict[str, str | None] = {}

    def anchor(entry: Mapping[str, Any]) -> str | None:
        trail: list[str] = []
        at = entry.get("id")
        while isinstance(at, str) and at in inside and at not in found and len(trail) <= len(inside):
            trail.append(at)
            at = parent_of.get(at)
        result = found.get(at) if isinstance(at, str) and at in found else at if isinstance(at, str) else None
        for step in trail:
            found[step] = result
        return result

    return anchor


def compute_stats(entries: Iterable[Mapping[str, Any]], memo: UsageMemo | None = None) -> SessionStats:
    """Count entries by kind and add up tokens, cost and models over the whole session; a subagent's
    messages are counted apart (``SessionStats.subagents``), its spend in the totals and its share."""
    stats = SessionStats()
    counts = stats.counts
    models: dict[str, None] = {}
    listed = entries if isinstance(entries, list) else list(entries)
    anchor_of = _anchors(listed) if any(subagent_of(e) is not None for e in listed) else None
    for entry in listed:
        kind = entry.get("type")
        if anchor_of is not None and subagent_of(entry) is not None:
            message = entry.get("message")
            stats.subagents.agents[str(subagent_of(entry))] = None
            if kind == "message" and isinstance(message, Mapping):
                stats.subagents.messages += 1
                if message.get("role") == "assistant":
                    _add_usage(stats, message, entry.get("timestamp"), memo, anchor_of(entry) or "")
                    model = _model_of(message)
                    if model:
                        models[model] = None
            continue
        counts["prompts"] += is_typed_prompt(entry)
        if kind == "message":
            message = entry.get("message")
            if not isinstance(message, Mapping):
                continue
            role = message.get("role")
            if role == "user":
                counts["user"] += 1
            elif role == "assistant":
                counts["assistant"] += 1
                content = message.get("content")
                if isinstance(content, list):
                    counts["toolCalls"] += sum(
                        1 for b in content if isinstance(b, Mapping) and b.get("type") == "toolCall"
                    )
                _add_usage(stats, message, entry.get("timestamp"), memo)
                model = _model_of(message)
                if model:
                    models[model] = None
            elif role == "toolResult":
                counts["toolResults"] += 1
                # a subagent's spend, when its task result records it
                if isinstance(message.get("usage"), Mapping):
                    _add_usage(stats, message, entry.get("timestamp"), memo, str(entry.get("id")))
            elif role in ("custom", "hookMessage"):
                counts["custom"] += 1
            elif role == "compactionSummary":
                counts["compactions"] += 1
            elif role == "branchSummary":
                counts["branchSummaries"] += 1
        elif kind == "custom_message":
            counts["custom"] += 1
        elif kind == "compaction":
            counts["compactions"] += 1
            _add_usage(stats, entry, entry.get("timestamp"), memo)
        elif kind == "branch_summary":
            counts["branchSummaries"] += 1
            _add_usage(stats, entry, entry.get("timestamp"), memo)
        elif kind == "model_usage":
            # Calls outside the transcript (titles, summaries, classifiers) cost too.
            _add_usage(stats, entry, entry.get("timestamp"), memo)
            model = _model_of(entry)
            if model:
                models[model] = None
        elif kind == "model_change" and isinstance(entry.get("model"), str) and entry["model"]:
            models[entry["model"]] = None
    stats.models = list(models)
    return stats


def cumulative_by_turn(
    path: Iterable[Mapping[str, Any]], memo: UsageMemo | None = None, subagents: SubagentShare | None = None
) -> list[tuple[int, float]]:
    """Return cumulative (tokens, cost) at the end of each turn along a path: a turn begins at a
    typed prompt (the outline's rule); a subagent's spend (``subagents``) counts in the turn that ran it."""
    points: list[tuple[int, float]] = []
    total_tokens, total_cost, in_turn = 0, 0.0, False
    added = subagents.at if subagents is not None else {}
    for entry in path:
        if added and (extra := added.get(str(entry.get("id")))) is not None:
            total_tokens += extra[0]
            total_cost += extra[1]
            in_turn = True
        if is_typed_prompt(entry):
            if in_turn:
                points.append((total_tokens, total_cost))
            in_turn = True
            continue
        message = entry.get("message")
        if (
            entry.get("type") == "message"
            and isinstance(message, Mapping)
            and message.get("role") == "assistant"
        ):
            used, cost = usage_of(message, entry.get("timestamp"), memo)
            total_tokens += sum(used.values())
            total_cost += cost.amount or 0.0
            in_turn = True
    if in_turn:
        points.append((total_tokens, total_cost))
    return points


MIN_PRICED_TURNS = 3
"""Below this many turns with a cost the chart says nothing a total does not: none is drawn."""
_PAD_LEFT, _PAD_RIGHT, _PAD_TOP, _PAD_BOTTOM = 58, 58, 8, 30


def _short(value: float) -> str:
    for scale, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.1f}".rstrip("0").rstrip(".") + unit
    return f"{value:.0f}"


def _polyline(values: list[float], width: float, height: float) -> str:
    top = max(values) or 1.0
    n = len(values)
    step = width / (n - 1) if n > 1 else 0.0
    return " ".join(
        f"{_PAD_LEFT + i * step:.1f},{_PAD_TOP + height - v / top * height:.1f}" for i, v in enumerate(values)
    )


def priced_turns(points: list[tuple[int, float]]) -> int:
    """How many turns added to the cost."""
    previous, count = 0.0, 0
    for _, cost in points:
        if cost > previous:
            count += 1
        previous = cost
    return count


def render_chart(points: list[tuple[int, float]], *, estimated: bool = False) -> Markup:
    """Return an inline SVG of cumulative tokens (left axis) and cost (right axis) per turn, with
    labelled axes and a width that grows with the turns; none under ``MIN_PRICED_TURNS`` priced turns."""
    if len(points) < 2 or priced_turns(points) < MIN_PRICED_TURNS:
        return Markup("")
    n_turns = len(points)
    if len(points) > CHART_MAX_POINTS:
        stride = len(points) / CHART_MAX_POINTS
        points = [points[int(i * stride)] for i in range(CHART_MAX_POINTS - 1)] + [points[-1]]
    plot_w = float(min(CHART_WIDTH * 2, max(160, 24 * len(points))))
    plot_h = float(CHART_HEIGHT * 2)
    width, height = _PAD_LEFT + plot_w + _PAD_RIGHT, _PAD_TOP + plot_h + _PAD_BOTTOM
    last_tokens, last_cost = points[-1]
    base = _PAD_TOP + plot_h
    right = _PAD_LEFT + plot_w
    axes = (
        '<path class="st-chart-axis" fill="none" stroke="currentColor" '
        f'd="M{_PAD_LEFT},{_PAD_TOP}V{base}H{right}V{_PAD_TOP}"/>'
        f'<text x="{_PAD_LEFT - 4}" y="{_PAD_TOP + 8}" text-anchor="end">{_short(last_tokens)}</text>'
        f'<text x="{_PAD_LEFT - 4}" y="{base}" text-anchor="end">0</text>'
        f'<text x="{right + 4}" y="{_PAD_TOP + 8}">${last_cost:.2f}</text>'
        f'<text x="{right + 4}" y="{base}">$0</text>'
        f'<text x="{_PAD_LEFT}" y="{base + 14}">turn 1</text>'
        f'<text x="{right}" y="{base + 14}" text-anchor="end">turn {n_turns}</text>'
        f'<text x="{_PAD_LEFT + plot_w / 2}" y="{base + 26}" text-anchor="middle">turns (active path)</text>'
        f'<text x="4" y="{_PAD_TOP + plot_h / 2}" text-anchor="start">tokens</text>'
        f'<text x="{width - 4}" y="{_PAD_TOP + plot_h / 2}" text-anchor="end">cost</text>'
    )
    return Markup(
        '<svg class="st-chart" viewBox="0 0 {w:.0f} {h:.0f}" width="{w:.0f}" height="{h:.0f}" role="img" '
        'aria-label="Cumulative tokens ({t:,}) and cost (${c:.2f}{e}) over {n} turns" '
        'font-size="10" fill="currentColor">'
        "<title>Cumulative tokens ({t:,}) and cost (${c:.2f}{e}) over {n} turns</title>{axes}"
        '<polyline class="st-chart-tokens" fill="none" stroke="currentColor" points="{tp}"/>'
        '<polyline class="st-chart-cost" fill="none" stroke="currentColor" stroke-dasharray="4 2" '
        'points="{cp}"/></svg>'
    ).format(
        w=width,
        h=height,
        t=last_tokens,
        c=last_cost,
        e=", estimated from tokens" if estimated else "",
        n=n_turns,
        axes=Markup(axes),
        tp=_polyline([float(t) for t, _ in points], plot_w, plot_h),
        cp=_polyline([c for _, c in points], plot_w, plot_h),
    )
