"""Small hand-written entries, one per message kind and tool, for fragment tests."""

from __future__ import annotations

import base64
from typing import Any

# A real 1x1 PNG.
PNG_1X1 = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
        "0000000d49444154789c6360f8cfc0f01f0005000201e2b3a1e30000000049454e44ae426082"
    )
).decode()

TS = "2026-02-16T10:21:00.000Z"


def msg(entry_id: str, message: dict[str, Any], parent: str | None = None) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": TS, "message": message}


def assistant_call(entry_id: str, call_id: str, name: str, args: Any, text: str = "") -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
    return msg(entry_id, {"role": "assistant", "content": content, "stopReason": "toolUse"})


def tool_result(
    entry_id: str, call_id: str, name: str, text: str, *, is_error: bool = False, details: Any = None
) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    }
    if details is not None:
        message["details"] = details
    return msg(entry_id, message, parent=f"a-{entry_id}")
