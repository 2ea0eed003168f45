"""Three small pi sessions on known days, one holding a planted secret in a long tool result."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

PLANTED_TOKEN = "ghp_" + "Zq7Rt2Lk9Wm4Xv8Np3Hs6Jd1Fb5Gc0Ya2Ue"
MACHINE_PASSWORD = "tundra" + "-Mellow-4451"
"""A password no detector finds in prose: only this machine's environment names it."""
USAGE = {"input": 1_000, "output": 200, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1_200}
MODEL = {"api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5"}


def _iso(when: datetime) -> str:
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _session(path: Path, title: str, start: datetime, messages: list[dict[str, Any]]) -> None:
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": f"{path.stem}-0000-4000-8000-000000000001",
            "timestamp": _iso(start),
        }
        | {"cwd": f"/home/dev/{path.stem}", "title": title}
    ]
    parent = None
    for n, message in enumerate(messages, 1):
        when = start + timedelta(seconds=10 * n)
        entry_id = f"{path.stem[:3]}{n:05d}"
        message = {**message, "timestamp": int(when.timestamp() * 1000)}
        lines.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": _iso(when),
                "message": message,
            }
        )
        parent = entry_id
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _assistant(text: str, *, usage: bool = False, call: str | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if call is not None:
        content.append({"type": "toolCall", "id": "call-1", "name": "bash", "arguments": {"command": call}})
    message: dict[str, Any] = {"role": "assistant", "content": content, **MODEL}
    if usage:
        message["usage"] = {**USAGE, "cost": {"total": 0.006}}
    return message


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def write_corpus(root: Path) -> None:
    """``oldest``, ``middle`` and ``newest``: one usage each; the newest holds the flaky-upload fix."""
    root.mkdir(parents=True, exist_ok=True)
    utc = UTC
    _session(
        root / "oldest.jsonl",
        "Oldest",
        datetime(2026, 1, 10, 9, tzinfo=utc),
        [_user("Set up the project layout"), _assistant("Done: src and tests folders.", usage=True)],
    )
    _session(
        root / "middle.jsonl",
        "Middle",
        datetime(2026, 2, 20, 9, tzinfo=utc),
        [
            _user("Rename the config loader"),
            _assistant(
                f"Renamed it to load_settings; the database still answers to {MACHINE_PASSWORD}.", usage=True
            ),
        ],
    )
    output = "\n".join(f"line {n}: the upload harness printed nothing useful" for n in range(60))
    _session(
        root / "newest.jsonl",
        "Newest: fix the upload",
        datetime(2026, 3, 5, 9, tzinfo=utc),
        [
            _user("The upload test is flaky; can we retry the upload twice?"),
            _assistant("Let me look at the test run.", usage=True, call="pytest tests/test_upload.py -x"),
            {
                "role": "toolResult",
                "toolCallId": "call-1",
                "toolName": "bash",
                "content": [{"type": "text", "text": f"export DEPLOYTOKEN={PLANTED_TOKEN}\n{output}"}],
                "isError": False,
            },
            _assistant("The retry now wraps the upload call; the flaky test passes ten times in a row."),
            _user("Thanks, commit it"),
            _assistant("Committed as 'retry the upload twice'."),
        ],
    )
