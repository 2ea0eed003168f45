"""The usage page: cost and tokens per day stacked by model (inline SVG drawn here), and top sessions.

Served by ``serve`` and written by ``build``; both pass how a session is linked. The page
runs no script and loads nothing: its CSP allows only its own inline style.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from markupsafe import Markup

from sessiontree.archive.dates import days_between
from sessiontree.archive.usage import UsageRecord, UsageTotal, by_day_and_model, summarize, top_sessions
from sessiontree.exporter.options import check_theme
from sessiontree.exporter.templating import get_template
from sessiontree.pages.shell import page_csp, page_css
from sessiontree.store.pricing import dollars

CHART_WIDTH = 760
CHART_HEIGHT = 220
PLOT_LEFT = 64
PLOT_TOP = 12
PLOT_BOTTOM = 28
MAX_DAYS = 366
"""Only the last year of days is drawn (totals and the table cover everything)."""
PALETTE_SIZE = 8
"""The top models get colour classes st-m0 .. st-m7 by rank; the rest are drawn as one "other"."""
OTHER_CLASS = "st-other"
YEAR_SPAN_DAYS = 330
"""Day labels carry the year when the chart crosses a year or spans about this many days or more."""
TOP_SESSIONS = 20


@dataclass(frozen=True)
class UsagePageOptions:
    """What differs between serve and build: the title and how a session (by its path) is linked."""

    title: str = "Usage"
    link_for: Callable[[str], str | None] = field(default=lambda path: None)
    top: int = TOP_SESSIONS
    theme: str = "auto"
    extra_note: str | None = None


@dataclass(frozen=True, slots=True)
class Bar:
    """One stacked piece: a model's share of one day."""

    x: float
    y: float
    width: float
    height: float
    css: str
    tip: str


@dataclass(frozen=True, slots=True)
class Chart:
    """What the template draws for one measure (cost or tokens)."""

    label: str
    bars: list[Bar]
    ticks: list[tuple[float, str]]
    """(y, text) of the horizontal grid lines."""
    days: list[tuple[float, str]]
    """(x, text) of the day labels shown under the axis."""
    summary: str


def format_tokens(value: float) -> str:
    """Short token counts: 950, 12.3k, 4.5M, 1.2B."""
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= size:
            return f"{value / size:.1f}".rstrip("0").rstrip(".") + suffix
    return f"{value:.0f}"


def format_dollars(value: float | None) -> str:
    """Dollars with cents (more digits under a cent); ``-`` when no cost was recorded."""
    return dollars(value)


def _nice_step(top: float) -> float:
    """A round grid step giving about four lines up to ``top``."""
    raw = top / 4
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 1.0
    while magnitude > raw and magnitude > 1e-6:
        magnitude /= 10
    for factor in (1, 2, 2.5, 5, 10):
        if magnitude * factor >= raw:
            return magnitude * factor
    return magnitude * 10


def model_classes(totals: Sequence[UsageTotal]) -> dict[str, str]:
    """Colour class per model, by rank (most cost, then most tokens, first); past the palette, other."""
    return {t.key: f"st-m{i}" if i < PALETTE_SIZE else OTHER_CLASS for i, t in enumerate(totals)}


def other_label(models: Sequence[str]) -> str:
    """The one name the models past the palette are drawn and listed under."""
    return f"other ({len(models)} models)"


def fold_models(records: Sequence[UsageRecord], ranked: Sequence[UsageTotal]) -> list[UsageRecord]:
    """The records with every model past the palette renamed to the one "other" name."""
    rest = {t.key for t in ranked[PALETTE_SIZE:]}
    if len(rest) < 2:
        return list(records)  # one model more still gets its own name (and the "other" colour)
    name = other_label(sorted(rest))
    return [replace(r, usage=replace(r.usage, model=name)) if r.usage.model in rest else r for r in records]


def day_label(day: str, long_span: bool) -> str:
    """A day under the axis: ``MM-DD``, or ``YYYY-MM-DD`` over a long or year-crossing span."""
    return day if long_span else day[5:]


def spans_years(days: Sequence[str]) -> bool:
    """True when the days cross a year or cover about twelve months."""
    if not days:
        return False
    first, last = days[0], days[-1]
    return first[:4] != last[:4] or len(days_between(first, last)) >= YEAR_SPAN_DAYS


def build_chart(
    label: str,
    days: dict[str, dict[str, UsageTotal]],
    measure: Callable[[UsageTotal], float],
    fmt: Callable[[float], str],
    classes: dict[str, str],
) -> Chart:
    """Lay out one stacked bar chart: a bar per day, a piece per model, scaled to the busiest day."""
    names = list(days)[-MAX_DAYS:]
    every_day = days_between(names[0], names[-1])[-MAX_DAYS:] if names else []
    plot_w = CHART_WIDTH - PLOT_LEFT - 8
    plot_h = CHART_HEIGHT - PLOT_TOP - PLOT_BOTTOM
    top = max((sum(measure(t) for t in days.get(d, {}).values()) for d in every_day), default=0.0)
    step = _nice_step(top) if top > 0 else 1.0
    scale_top = step * max(1, -(-top // step)) if top > 0 else 1.0
    slot = plot_w / max(1, len(every_day))
    width = max(1.0, slot * 0.8)
    bars: list[Bar] = []
    for i, day in enumerate(every_day):
        y = float(PLOT_TOP + plot_h)
        ordered = sorted(days.get(day, {}).values(), key=lambda t: classes.get(t.key, ""))
        for total in ordered:
            value = measure(total)
            if value <= 0:
                continue
            height = value / scale_top * plot_h
            y -= height
            tip = f"{day} · {total.key}: {fmt(value)}"
            bars.append(
                Bar(
                    round(PLOT_LEFT + i * slot, 2),
                    round(y, 2),
                    round(width, 2),
                    round(height, 2),
                    classes.get(total.key, OTHER_CLASS),
                    tip,
                )
            )
    ticks = []
    n = 0
    while n * step <= scale_top + step / 1000 and n < 12:
        ticks.append((round(PLOT_TOP + plot_h - n * step / scale_top * plot_h, 2), fmt(n * step)))
        n += 1
    label_every = max(1, len(every_day) // 8)
    long_span = spans_years(every_day)
    day_labels = [
        (round(PLOT_LEFT + i * slot + width / 2, 2), day_label(d, long_span))
        for i, d in enumerate(every_day)
        if i % label_every == 0
    ]
    total_value = sum(measure(t) for d in every_day for t in days.get(d, {}).values())
    summary = f"{label} per day, stacked by model: {fmt(total_value)} over {len(every_day)} days"
    return Chart(label, bars, ticks, day_labels, summary)


def render_usage_page(records: Sequence[UsageRecord], options: UsagePageOptions | None = None) -> str:
    """Return the whole usage page as HTML (no script; every string from a session escaped)."""
    options = options or UsagePageOptions()
    check_theme(options.theme)
    css = page_css("usage.css")
    ranked = summarize(records, "model").groups
    classes = model_classes(ranked)
    records = fold_models(records, ranked)
    days = by_day_and_model(records)
    models = summarize(records, "model")
    # The top models in rank order, then the one "other" group.
    legend = sorted(models.groups, key=lambda m: classes.setdefault(m.key, OTHER_CLASS) == OTHER_CLASS)
    has_cost = models.total.cost is not None
    cost_chart = build_chart("Cost", days, lambda t: t.cost or 0.0, lambda v: format_dollars(v), classes)
    token_chart = build_chart("Tokens", days, lambda t: float(t.tokens), format_tokens, classes)
    sessions = [(t, options.link_for(t.key)) for t in top_sessions(records, options.top)]
    return get_template("usage.html.j2").render(
        title=options.title,
        theme=options.theme,
        csp=Markup(page_csp(css, img_src=("data:",))),  # our own fixed text and a hash
        css=Markup(css),  # our own file, checked to hold no "</style"
        charts=([cost_chart, token_chart] if has_cost else [token_chart]) if days else [],
        has_cost=has_cost,
        models=[(m, classes[m.key]) for m in legend],
        total=models.total,
        sessions=sessions,
        width=CHART_WIDTH,
        height=CHART_HEIGHT,
        plot_left=PLOT_LEFT,
        plot_right=CHART_WIDTH - 8,
        format_tokens=format_tokens,
        format_dollars=format_dollars,
        note=options.extra_note,
    )
