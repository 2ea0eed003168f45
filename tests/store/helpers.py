"""Small builders for hand-written sessions in store tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def header(session_id: str = "0123456789abcdef", version: int | None = 3, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "session", "id": session_id, "timestamp": "2026-02-16T10:20:30.000Z"}
    if version is not None:
        out["version"] = version
    out["cwd"] = "/work/demo"
    out.update(extra)
    return out


def entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-02-16T10:21:00.000Z",
        **fields,
    }


def msg(entry_id: str, parent: str | None, role: str, text: str = "hi", **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": role, "content": [{"type": "text", "text": text}], **extra}
    return entry("message", entry_id, parent, message=message)


def assistant(entry_id: str, parent: str | None, text: str = "ok", model: str = "m1") -> dict[str, Any]:
    return msg(entry_id, parent, "assistant", text, provider="prov", model=model)


def write_jsonl(path: Path, lines: list[Any], *, trailing_newline: bool = True) -> Path:
    text = "\n".join(json.dumps(line) if not isinstance(line, str) else line for line in lines)
    path.write_text(text + ("\n" if trailing_newline else ""), encoding="utf-8")
    return path


def dead_pid() -> int:
    """The id of a process that has exited (a writer killed mid-write)."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)
