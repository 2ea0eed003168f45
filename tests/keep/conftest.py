"""Helpers of the keep tests: small Claude Code and pi sessions written by hand, run in a home."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sessiontree.archive.keep.manifest import Places


def claude_session(
    folder: Path, session_id: str, phrase: str, turns: int = 3, day: str = "2026-01-05"
) -> Path:
    """A Claude Code session of ``turns`` prompts and answers that each say ``phrase``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.jsonl"
    lines, parent = [], None
    for n in range(turns):
        for role in ("user", "assistant"):
            uid = f"{session_id[:8]}-{n:04d}-4000-8000-{role[:1]}{n:011d}"
            content: object = (
                f"{phrase} prompt {n}"
                if role == "user"
                else [{"type": "text", "text": f"{phrase} answer {n}"}]
            )
            lines.append(
                {
                    "parentUuid": parent,
                    "isSidechain": False,
                    "type": role,
                    "uuid": uid,
                    "sessionId": session_id,
                    "cwd": "/home/dev/demo",
                    "version": "2.0.0",
                    "timestamp": f"{day}T10:{n:02d}:00.000Z",
                    "message": {"role": role, "content": content}
                    | (
                        {"model": "claude-sonnet-4-5", "usage": {"input_tokens": 10, "output_tokens": 5}}
                        if role == "assistant"
                        else {}
                    ),
                }
            )
            parent = uid
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    old = 1_767_600_000  # 2026-01-05: the copy must keep this time, not the copy's
    os.utime(path, (old, old))
    return path


@pytest.fixture
def claude_root() -> Path:
    """The default Claude Code folder in the test's home (picked up by every command)."""
    root = Path.home() / ".claude" / "projects"
    root.mkdir(parents=True)
    return root


@pytest.fixture
def places() -> Places:
    return Places.default()


def stored_bytes(folder: Path) -> bytes:
    """Every byte of every file under a folder (an archive), names included."""
    return b"".join(p.as_posix().encode() + p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())
