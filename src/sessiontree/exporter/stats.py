"""Header figures: entry counts, tokens, cost, models, and the cumulative chart along the path."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from sessiontree.store.numbers import count_of
from sessiontree.store.pricing import Cost, CostTotal, usage_cost

CHART_WIDTH = 320
CHART_HEIGHT = 64
CHART_MAX_POINTS = 240
TOKEN_KEYS = ("input", "output", "cacheRead", "cacheWrite")


@dataclass
class SessionStats:
    """What the page header shows."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("user", "assistant", "toolResults", "custom", "compactions", "branchSummaries", "toolCalls"), 0
        )
    )
    tokens: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TOKEN_KEYS, 0))
    costs: CostTotal = field(default_factory=CostTotal)
    """Recorded costs, else estimates from the token counts (``store.pricing``)."""
    models: list[str] = field(default_factory=list)

    @property
    def cost(self) -> float:
        """The dollars (0 when nothing had a price)."""
        return self.costs.amount


def usage_of(message: Mapping[str, Any], when: object = None) -> tuple[dict[str, int], Cost]:
    """Return (tokens by kind, cost) of one assistant message (zeros when it has no usage)."""
    usage = message.get("usage")
    if not isinstance(usage, Mapping):
        return dict.fromkeys(TOKEN_KEYS, 0), Cost(None)
    cost = usage_cost(usage, message.get("provider"), message.get("model"), when)
    return {k: count_of(usage.get(k)) for k in TOKEN_KEYS}, cost


def _model_of(message: Mapping[str, Any]) -> str:
    provider, model = message.get("provider"), message.get("model")
    if isinstance(model, str) and model:
        return f"{provider}/{model}" if isinstance(provider, str) and provider and "/" not in model else model
    return ""


def _add_usage(stats: SessionStats, holder: Mapping[str, Any], when: object) -> None:
    used, cost = usage_of(holder, when)
    for key, value in used.items():
        stats.tokens[key] += value
    stats.costs.add(cost)


def compute_stats(entries: Iterable[Mapping[str, Any]]) -> SessionStats:
    """Count entries by kind and add up tokens, cost and models over the whole session."""
    stats = SessionStats()
    counts = stats.counts
    models: dict[str, None] = {}
    for entry in entries:
        kind = entry.get("type")
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
                _add_usage(stats, message, entry.get("timestamp"))
                model = _model_of(message)
                if model:
                    models[model] = None
            elif role == "toolResult":
                counts["toolResults"] += 1
                # a subagent's spend, when its task result records it
                _add_usage(stats, message, entry.get("timestamp"))
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
            _add_usage(stats, entry, entry.get("timestamp"))
        elif kind == "branch_summary":
            counts["branchSummaries"] += 1
            _add_usage(stats, entry, entry.get("timestamp"))
        elif kind == "model_usage":
            # Calls outside the transcript (titles, summaries, classifiers) cost too.
            _add_usage(stats, entry, entry.get("timestamp"))
            model = _model_of(entry)
            if model:
                models[model] = None
        elif kind == "model_change" and isinstance(entry.get("model"), str) and entry["model"]:
            models[entry["model"]] = None
    stats.models = list(models)
    return stats


def cumulative_by_turn(path: Iterable[Mapping[str, Any]]) -> list[tuple[int, float]]:
    """Return cumulative (tokens, cost) at the end of each user turn along a path."""
    points: list[tuple[int, float]] = []
    total_tokens, total_cost, in_turn = 0, 0.0, False
    for entry in path:
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, Mapping):
            continue
        if message.get("role") == "user":
            if in_turn:
                points.append((total_tokens, total_cost))
            in_turn = True
        elif message.get("role") == "assistant":
            used, cost = usage_of(message, entry.get("timestamp"))
            total_tokens += sum(used.values())
            total_cost += cost.amount or 0.0
            in_turn = True
    if in_turn:
        points.append((total_tokens, total_cost))
    return points


def _polyline(values: list[float]) -> str:
    top = max(values) or 1.0
    n = len(values)
    step = CHART_WIDTH / (n - 1) if n > 1 else 0.0
    return " ".join(
        f"{i * step:.1f},{CHART_HEIGHT - 2 - v / top * (CHART_HEIGHT - 4):.1f}" for i, v in enumerate(values)
    )


def render_chart(points: list[tuple[int, float]], *, estimated: bool = False) -> Markup:
    """Return an inline SVG of cumulative tokens and cost per turn (each scaled to its own maximum)."""
    if len(points) < 2:
        return Markup("")
    if len(points) > CHART_MAX_POINTS:
        stride = len(points) / CHART_MAX_POINTS
        points = [points[int(i * stride)] for i in range(CHART_MAX_POINTS - 1)] + [points[-1]]
    tokens = _polyline([float(t) for t, _ in points])
    cost = _polyline([c for _, c in points])
    last_tokens, last_cost = points[-1]
    return Markup(
        '<svg class="st-chart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
        'aria-label="Cumulative tokens and cost per turn">'
        "<title>Cumulative tokens ({t:,}) and cost (${c:.2f}{e}) over {n} turns</title>"
        '<polyline class="st-chart-tokens" fill="none" stroke="currentColor" points="{tp}"/>'
        '<polyline class="st-chart-cost" fill="none" stroke="currentColor" stroke-dasharray="4 2" '
        'points="{cp}"/></svg>'
    ).format(
        w=CHART_WIDTH,
        h=CHART_HEIGHT,
        t=last_tokens,
        c=last_cost,
        e=", estimated from tokens" if estimated else "",
        n=len(points),
        tp=tokens,
        cp=cost,
    )
