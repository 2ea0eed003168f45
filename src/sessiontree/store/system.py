"""What the model was given besides messages: the system prompt and tools of a session_init
entry, or of files named on the command line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sessiontree.errors import InputFileError

Tool = dict[str, Any]
"""A tool as ``{"name": ..., "description"?: str, "parameters"?: dict}``."""


def canonical_tools(tools: Any) -> list[Tool]:
    """Tools from names or common schemas (ours, OpenAI ``function``, Anthropic ``input_schema``).

    A list, or an object holding one under ``tools``; unusable items are skipped.
    """
    if isinstance(tools, Mapping):
        tools = tools.get("tools")
    if not isinstance(tools, list):
        return []
    out: list[Tool] = []
    for tool in tools:
        if isinstance(tool, str) and tool:
            out.append({"name": tool})
            continue
        if not isinstance(tool, Mapping):
            continue
        if isinstance(tool.get("function"), Mapping):
            tool = tool["function"]
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            continue
        spec: Tool = {"name": name}
        if isinstance(tool.get("description"), str):
            spec["description"] = tool["description"]
        params = tool.get("parameters", tool.get("input_schema", tool.get("inputSchema")))
        if isinstance(params, Mapping):
            spec["parameters"] = params
        out.append(spec)
    return out


def read_text_file(path: str | Path) -> str:
    """Read a text file named on the command line (a system prompt)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise InputFileError(f"File not found: {path}") from None
    except IsADirectoryError:
        raise InputFileError(f"{path} is a directory; give a text file") from None
    except OSError as exc:
        raise InputFileError(f"Cannot read {path}: {exc.strerror}") from None


def read_tools_file(path: str | Path) -> list[Tool]:
    """Read a tools file: a JSON list of tools (or names), or an object with ``tools``."""
    text = read_text_file(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InputFileError(f"{path} is not valid JSON ({exc}); give a JSON list of tools") from None
    tools = canonical_tools(data)
    if not tools and data:
        raise InputFileError(f"No tools found in {path}; give a JSON list of objects with a 'name'")
    return tools
