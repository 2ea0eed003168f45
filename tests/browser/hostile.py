"""A session file with hostile payloads in every field a page shows (for the browser XSS test)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.browser.pages import tiny_png

# Each payload that ran would set window.__xss or open a dialog; the test checks for both.
PAYLOADS = [
    "<script>window.__xss=1;alert(1)</script>",
    '<img src=x onerror="window.__xss=2;alert(2)">',
    '"><svg onload="window.__xss=3;alert(3)">',
    "javascript:window.__xss=4;alert(4)",
    "[x](javascript:window.__xss=5;alert(5))",
    "![x](https://evil.example/x.png)",
    "</script><script>window.__xss=6;alert(6)</script>",
    '<a href="javascript:window.__xss=7;alert(7)">click</a>',
    '<iframe src="javascript:parent.__xss=8;alert(8)"></iframe>',
    "'-alert(9)-'",
]
P = " ".join(PAYLOADS)
HOSTILE_ID = '"><img src=x onerror=alert(10)>'


def hostile_entries() -> list[dict[str, Any]]:
    """Return header + entries with the payloads in text, markdown, tools, labels, types, models, mimes."""
    png_b64 = tiny_png().split(",", 1)[1]
    svg = base64.b64encode(b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(11)"/>').decode()
    ts = "2026-02-16T10:21:00.000Z"
    md = f"# {P}\n\n[x](javascript:alert(12)) [y](https://example.com/{P}) ![z](https://evil.example/x.png)\n\n`{P}`"
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": P, "timestamp": ts, "cwd": P, "title": P},
        {
            "type": "session_init",
            "id": "e0",
            "parentId": None,
            "timestamp": ts,
            "systemPrompt": P,
            "task": P,
            "tools": [P, {"name": P, "description": P, "parameters": {P: {"type": P}}}],
        },
        {"type": "model_change", "id": "e1", "parentId": "e0", "timestamp": ts, "model": P, "role": P},
        {"type": "thinking_level_change", "id": "e2", "parentId": "e1", "timestamp": ts, "thinkingLevel": P},
        {
            "type": "message",
            "id": "e3",
            "parentId": "e2",
            "timestamp": ts,
            "message": {
                "role": "user",
                "content": [
                    {"type": "text", "text": md},
                    {
                        "type": "image",
                        "data": png_b64,
                        "mimeType": 'image/png"><img src=x onerror=alert(13)>',
                    },
                    {"type": "image", "data": svg, "mimeType": "image/svg+xml"},
                    {"type": "image", "data": png_b64, "mimeType": "text/html"},
                ],
            },
        },
        {
            "type": "message",
            "id": HOSTILE_ID,
            "parentId": "e3",
            "timestamp": ts,
            "message": {
                "role": "assistant",
                "model": P,
                "provider": P,
                "stopReason": "error",
                "errorMessage": P,
                "content": [
                    {"type": "thinking", "thinking": P},
                    {"type": "text", "text": md},
                    {"type": "toolCall", "id": P, "name": P, "arguments": {P: P, "command": P, "path": P}},
                    {"type": "toolCall", "id": "c-bash", "name": "bash", "arguments": {"command": P}},
                    {
                        "type": "toolCall",
                        "id": "c-edit",
                        "name": "edit",
                        "arguments": {"path": P, "oldText": P, "newText": P + "!"},
                    },
                ],
                "usage": {"input": 1, "output": 2, "cost": {"total": 0.01}},
            },
        },
        {
            "type": "message",
            "id": "e5",
            "parentId": HOSTILE_ID,
            "timestamp": ts,
            "message": {
                "role": "toolResult",
                "toolCallId": P,
                "toolName": P,
                "isError": True,
                "content": [{"type": "text", "text": P}, {"type": "image", "data": png_b64, "mimeType": P}],
            },
        },
        {
            "type": "message",
            "id": "e6",
            "parentId": "e5",
            "timestamp": ts,
            "message": {
                "role": "toolResult",
                "toolCallId": "c-bash",
                "toolName": "bash",
                "isError": False,
                "content": [{"type": "text", "text": "\x1b[31m" + P + "\x1b[0m\n" * 40}],
            },
        },
        {
            "type": "message",
            "id": "e7",
            "parentId": "e6",
            "timestamp": ts,
            "message": {
                "role": "bashExecution",
                "command": P,
                "output": P,
                "exitCode": 1,
                "cancelled": False,
                "truncated": True,
                "fullOutputPath": P,
            },
        },
        {
            "type": "message",
            "id": "e8",
            "parentId": "e7",
            "timestamp": ts,
            "message": {"role": "pythonExecution", "code": P, "output": P, "exitCode": 0},
        },
        {"type": "label", "id": "e9", "parentId": "e8", "timestamp": ts, "targetId": "e3", "label": P},
        {"type": "label", "id": "e9b", "parentId": "e9", "timestamp": ts, "targetId": HOSTILE_ID, "label": P},
        {
            "type": "custom_message",
            "id": "e10",
            "parentId": "e9b",
            "timestamp": ts,
            "customType": P,
            "content": md,
            "display": True,
            "details": {P: P},
        },
        {
            "type": "custom_message",
            "id": "e11",
            "parentId": "e10",
            "timestamp": ts,
            "customType": P,
            "content": P,
            "display": False,
        },
        {"type": "custom", "id": "e12", "parentId": "e11", "timestamp": ts, "customType": P, "data": {P: P}},
        {
            "type": "compaction",
            "id": "e13",
            "parentId": "e12",
            "timestamp": ts,
            "summary": md,
            "firstKeptEntryId": "e3",
            "tokensBefore": 1000,
        },
        {
            "type": "branch_summary",
            "id": "e14",
            "parentId": "e3",
            "timestamp": ts,
            "fromId": P,
            "summary": md,
        },
        {"type": "ttsr_injection", "id": "e15", "parentId": "e13", "timestamp": ts, "injectedRules": [P]},
        {"type": "mode_change", "id": "e16", "parentId": "e15", "timestamp": ts, "mode": P, "data": {P: P}},
        {"type": P, "id": "e17", "parentId": "e16", "timestamp": ts, P: P},
        {
            "type": "message",
            "id": "e18",
            "parentId": "e17",
            "timestamp": ts,
            "message": {"role": P, "content": P},
        },
    ]
    return entries


def write_hostile_session(path: Path) -> Path:
    """Write the hostile session as JSONL."""
    path.write_text("\n".join(json.dumps(e) for e in hostile_entries()) + "\n", encoding="utf-8")
    return path
