"""The server-rendered page sections: header (figures and chart) and system prompt with tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from sessiontree.exporter.blocks import pretty_json, render_output
from sessiontree.exporter.render import format_ts, one_line
from sessiontree.exporter.stats import SessionStats, render_chart
from sessiontree.exporter.templating import MacroSet
from sessiontree.store.system import Tool, canonical_tools

ToolSpec = dict[str, str]


SECTIONS = MacroSet("sections.html.j2")


def render_header(
    *,
    title: str,
    session_id: str,
    cwd: str,
    date: str,
    stats: SessionStats,
    chart_points: list[tuple[int, float]],
) -> Markup:
    """Return the inner HTML of ``#st-header``."""
    html: Markup = SECTIONS.header(
        title,
        session_id,
        cwd,
        date,
        format_ts(date),
        stats.models,
        stats.counts,
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
