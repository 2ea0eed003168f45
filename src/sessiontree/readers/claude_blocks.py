"""Claude Code message parts -> the session model's content blocks, usage and stop reasons."""

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
