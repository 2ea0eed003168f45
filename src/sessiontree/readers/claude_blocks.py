"""Claude Code message parts -> the session model's content blocks, usage and stop reasons.

Claude Code (no public source) writes the Anthropic Messages API's blocks as the API returns them: a
server tool's result (``web_search_tool_result``, ``web_fetch_tool_result``, the code-execution
results, ``tool_search_tool_result``) follows its ``server_tool_use`` in the reply and is shown as
one (the page's server-tool row); a ``document`` (a PDF the Read tool returned, a text document) and
a ``tool_reference`` (what the tool-search tool loaded, Claude Code 2.1's changelog: "MCP tool
search") in a tool result are named in one line, never printed as their JSON and base64.
"""

from __future__ import annotations

import math
from typing import Any

from sessiontree.readers.base import as_str

STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "toolUse", "max_tokens": "length"}


def convert_image(block: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic image block as the model's ``{type: image, data, mimeType}`` (URL sources kept)."""
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "base64" and isinstance(source.get("data"), str):
        media = source.get("media_type")
        return {"type": "image", "data": source["data"], "mimeType": media if isinstance(media, str) else ""}
    return block


def _document(block: dict[str, Any]) -> str:
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    if source.get("type") == "text" and isinstance(source.get("data"), str):
        return str(source["data"])  # a text document: its text is what it says
    what = (
        as_str(block.get("title")) or as_str(source.get("media_type")) or as_str(source.get("url")) or "file"
    )
    return f"[document: {what}]"


def _search_result(block: dict[str, Any]) -> str:
    texts = [b.get("text") for b in block.get("content") or () if isinstance(b, dict)]
    head = " ".join(t for t in (as_str(block.get("title")), as_str(block.get("source"))) if t)
    return "\n".join(t for t in (head, *texts) if isinstance(t, str) and t)


NAMED_BLOCKS = {
    "document": _document,
    "tool_reference": lambda b: f"[tool loaded: {as_str(b.get('tool_name')) or 'tool'}]",
    "search_result": _search_result,
}
"""Tool-result blocks shown as one text line: type -> its text."""

SERVER_RESULTS = frozenset(
    {"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
     "bash_code_execution_tool_result", "text_editor_code_execution_tool_result", "tool_search_tool_result",
     "mcp_tool_result"}
)  # fmt: skip
"""The results of the API's server tools, written in the reply after their ``server_tool_use``."""


def convert_content(content: Any) -> list[Any]:
    """User or tool-result content (a string or blocks) as model content blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return [] if content is None else [{"type": "text", "text": str(content)}]
    out: list[Any] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "image":
            out.append(convert_image(block))
        elif isinstance(block, dict) and block.get("type") in NAMED_BLOCKS:
            out.append({"type": "text", "text": NAMED_BLOCKS[block["type"]](block)})
        elif isinstance(block, str):
            out.append({"type": "text", "text": block})
        else:
            out.append(block)  # text blocks are already model blocks; others are carried as they are
    return out


def convert_assistant_block(block: Any) -> Any:
    """One assistant content block as a model block (unknown blocks carried unchanged)."""
    if not isinstance(block, dict):
        return {"type": "text", "text": block} if isinstance(block, str) else block
    kind = block.get("type")
    if kind == "thinking":
        out = {"type": "thinking", "thinking": block.get("thinking", "")}
        if isinstance(block.get("signature"), str):
            out["thinkingSignature"] = block["signature"]
        return out
    if kind == "redacted_thinking":
        return {"type": "redactedThinking", "data": block.get("data")}
    if kind in ("tool_use", "server_tool_use"):
        return {
            "type": "toolCall",
            "id": block.get("id"),
            "name": block.get("name"),
            "arguments": block.get("input"),
        }
    if kind == "image":
        return convert_image(block)
    if kind in SERVER_RESULTS:
        return {"type": "anthropicServerTool", "block": block}
    return block


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return int(value)


def convert_usage(usage: Any, cost_usd: Any = None) -> dict[str, Any] | None:
    """Anthropic usage as the model's ``{input, output, cacheRead, cacheWrite, totalTokens, cost}``."""
    if not isinstance(usage, dict):
        return None
    out: dict[str, Any] = {
        "input": _count(usage.get("input_tokens")),
        "output": _count(usage.get("output_tokens")),
        "cacheRead": _count(usage.get("cache_read_input_tokens")),
        "cacheWrite": _count(usage.get("cache_creation_input_tokens")),
    }
    out["totalTokens"] = sum(out.values())
    if isinstance(cost_usd, int | float) and not isinstance(cost_usd, bool) and math.isfinite(cost_usd):
        out["cost"] = {"total": float(cost_usd)}  # only the old CLI versions wrote a cost
    return out


def tool_calls_of(content: Any) -> list[tuple[str, str, Any]]:
    """(id, name, input) of each tool_use block of an assistant content list."""
    calls = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") in ("tool_use", "server_tool_use"):
            call_id = as_str(block.get("id"))
            if call_id:
                calls.append((call_id, as_str(block.get("name")) or "tool", block.get("input")))
    return calls
