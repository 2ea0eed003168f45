"""The server-rendered page sections: header (figures and chart) and system prompt with tools."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from markupsafe import Markup

from sessiontree.errors import ExportError
from sessiontree.exporter.blocks import pretty_json, render_output
from sessiontree.exporter.render import format_ts, one_line
from sessiontree.exporter.stats import SessionStats, render_chart
from sessiontree.exporter.templating import MacroSet

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
        stats.cost,
        render_chart(chart_points),
    )
    return html


def normalise_tool(tool: Any) -> ToolSpec | None:
    """Return {name, summary, description, parameters} from a tool name or any common tool schema."""
    if isinstance(tool, str):
        return {"name": tool, "summary": "", "description": "", "parameters": ""}
    if not isinstance(tool, Mapping):
        return None
    if isinstance(tool.get("function"), Mapping):  # OpenAI style
        tool = tool["function"]
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        return None
    description = tool.get("description")
    description = description if isinstance(description, str) else ""
    params = tool.get("parameters", tool.get("input_schema", tool.get("inputSchema")))
    return {
        "name": name,
        "summary": one_line(description),
        "description": description if "\n" in description or len(description) > 120 else "",
        "parameters": pretty_json(params) if params else "",
    }


def normalise_tools(tools: Any) -> list[ToolSpec]:
    """Return the tools of a list (or ``{"tools": [...]}``) as specs, skipping unusable items."""
    if isinstance(tools, Mapping):
        tools = tools.get("tools")
    if not isinstance(tools, list):
        return []
    return [spec for spec in (normalise_tool(t) for t in tools) if spec is not None]


def load_tools_file(path: str | Path) -> list[ToolSpec]:
    """Read a tools JSON file (a list of tool schemas, or an object with ``tools``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExportError(f"File not found: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ExportError(f"Cannot read tools file {path}: {exc}; give a JSON list of tools") from None
    tools = normalise_tools(data)
    if not tools and data:
        raise ExportError(f"No tools found in {path}; give a JSON list of objects with a 'name'")
    return tools


def read_text_file(path: str | Path) -> str:
    """Read a text file given on the command line (system prompt)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ExportError(f"File not found: {path}") from None
    except OSError as exc:
        raise ExportError(f"Cannot read {path}: {exc.strerror}") from None


def render_system(prompt: str, tools: Sequence[ToolSpec]) -> Markup:
    """Return the inner HTML of ``#st-system``: collapsed system prompt and tools list."""
    if not prompt and not tools:
        return Markup("")
    lines = prompt.count("\n") + 1 if prompt else 0
    prompt_html = render_output(prompt, kind="system", limit=10_000) if prompt else Markup("")
    html: Markup = SECTIONS.system(one_line(prompt), prompt_html, lines, list(tools))
    return html
