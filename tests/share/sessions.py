"""Small session files for the share tests, written with secrets in them on purpose."""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

from sessiontree.exporter.page import unpack_fragments

# Assembled at run time so no literal credential sits in the repository.
GITHUB_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0" + "P9o8N7m6L5k4J3i2"
AWS_KEY = "AKIA" + "Q3XZ7TBW4HNC2KD9"
DB_PASSWORD = "S3cr3t-" + "Pa55w0rd"


def write_session(path: Path, *, title: str = "Fix the login bug", image_bytes: int = 0) -> Path:
    """Write a v3 session whose user and tool text hold a GitHub token, an AWS key and a password."""
    header = {
        "type": "session",
        "version": 3,
        "id": "5e5510ab5e5510ab",
        "timestamp": "2026-02-16T10:20:34.000Z",
        "cwd": "/home/dev/app",
        "title": title,
    }
    user_content: list[dict[str, object]] = [
        {"type": "text", "text": f"Login fails. My token is {GITHUB_TOKEN}, please check."}
    ]
    if image_bytes:
        data = base64.b64encode(os.urandom(image_bytes)).decode()
        user_content.append({"type": "image", "data": data, "mimeType": "image/png"})
    entries = [
        {
            "type": "message",
            "id": "a0000001",
            "parentId": None,
            "timestamp": "2026-02-16T10:21:00.000Z",
            "message": {"role": "user", "content": user_content, "timestamp": 1771237260000},
        },
        {
            "type": "message",
            "id": "a0000002",
            "parentId": "a0000001",
            "timestamp": "2026-02-16T10:21:05.000Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look at the environment."},
                    {
                        "type": "toolCall",
                        "id": "call_1",
                        "name": "bash",
                        "arguments": {"command": "cat .env"},
                    },
                ],
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
                "stopReason": "toolUse",
                "timestamp": 1771237265000,
            },
        },
        {
            "type": "message",
            "id": "a0000003",
            "parentId": "a0000002",
            "timestamp": "2026-02-16T10:21:06.000Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "call_1",
                "toolName": "bash",
                "content": [
                    {
                        "type": "text",
                        "text": f"AWS_ACCESS_KEY_ID={AWS_KEY}\nDB_PASSWORD={DB_PASSWORD}\nDEBUG=1\n",
                    }
                ],
                "isError": False,
                "timestamp": 1771237266000,
            },
        },
    ]
    lines = [json.dumps(header)] + [json.dumps(e) for e in entries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


SECRETS = (GITHUB_TOKEN, AWS_KEY, DB_PASSWORD)


def page_text(html: str) -> str:
    """Return the page plus its fragments unpacked (they are gzip+base64 inside st-data)."""
    match = re.search(r'<script type="application/json" id="st-data">(.*?)</script>', html, re.DOTALL)
    assert match, "no st-data in the page"
    data = json.loads(match.group(1))
    return html + "\n".join(unpack_fragments(data["frags"]))
