"""A session with hostile payloads in every field a page shows (shared by the safety tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.exporter.entries import PNG_1X1

X = '"><script>alert(1)</script><img src=x onerror=alert(2)>'
JS = "javascript:alert(3)"


def hostile_entries() -> list[dict[str, Any]]:
    """Return a header and entries whose every string field carries a payload."""

    def e(entry_id: str, parent: str | None, **kw: Any) -> dict[str, Any]:
        return {"id": entry_id, "parentId": parent, "timestamp": X, **kw}

    return [
        {"type": "session", "version": 3, "id": "s" + X, "timestamp": X, "cwd": "/tmp/" + X, "title": X},
        e(
            "init",
            None,
            type="session_init",
            systemPrompt=X,
            task=X,
            tools=[X, {"name": X, "description": X}],
        ),
        e("mc", "init", type="model_change", model=X, role=X),
        e("tl", "mc", type="thinking_level_change", thinkingLevel=X),
        e("mo", "tl", type="mode_change", mode=X),
        e(
            "u1",
            "mo",
            type="message",
            message={
                "role": "user",
                "content": [
                    {"type": "text", "text": f"{X} [a]({JS}) ![i]({JS}) <a href='{JS}'>x</a>"},
                    {"type": "image", "data": PNG_1X1, "mimeType": 'image/png" onerror="alert(4)'},
                    {"type": "image", "data": PNG_1X1, "mimeType": "text/html"},
                    {"type": "image", "data": PNG_1X1, "mimeType": "image/svg+xml"},
                ],
            },
        ),
        e(
            "a1",
            "u1",
            type="message",
            message={
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": X},
                    {"type": "text", "text": f"```{X}\n{X}\n```\n[x]({JS})"},
                    {"type": "toolCall", "id": "c" + X, "name": X, "arguments": {X: X}},
                    {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": X}},
                    {"type": "toolCall", "id": "c3", "name": "edit", "arguments": {"path": X, "oldText": X}},
                    {"type": X, "x": X},
                ],
                "model": X,
                "provider": X,
                "stopReason": "error",
                "errorMessage": X,
            },
        ),
        e(
            "r1",
            "a1",
            type="message",
            message={
                "role": "toolResult",
                "toolCallId": "c" + X,
                "toolName": X,
                "content": [{"type": "text", "text": X}],
            },
        ),
        e(
            "r2",
            "r1",
            type="message",
            message={
                "role": "toolResult",
                "toolCallId": "c2",
                "toolName": "bash",
                "content": [{"type": "text", "text": f"\x1b[31m{X}\x1b[0m"}],
            },
        ),
        e(
            "r3",
            "r2",
            type="message",
            message={
                "role": "toolResult",
                "toolCallId": "c3",
                "toolName": "edit",
                "content": [],
                "details": {"diff": X},
            },
        ),
        e(
            "bx",
            "r3",
            type="message",
            message={
                "role": "bashExecution",
                "command": X,
                "output": X,
                "exitCode": 1,
                "fullOutputPath": X,
                "truncated": True,
            },
        ),
        e("lb", "bx", type="label", targetId="u1", label=X),
        e("cm", "lb", type="custom_message", customType=X, content=X, display=True),
        e("cu", "cm", type="custom", customType=X, data={X: X}),
        e("cp", "cu", type="compaction", summary=f"{X} [x]({JS})", tokensBefore=1),
        e("bs", "cp", type="branch_summary", summary=X, fromId=X),
        e("tt", "bs", type="ttsr_injection", injectedRules=[X]),
        e("un", "tt", type=X, payload=X),
        e(X, "un", type="message", message={"role": X, "content": X}),
    ]


def write_hostile_session(path: Path) -> Path:
    """Write the hostile session as JSONL."""
    path.write_text("\n".join(json.dumps(line) for line in hostile_entries()) + "\n", encoding="utf-8")
    return path
