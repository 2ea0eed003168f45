"""Generated sessions for the archive tests: gen_session.py output with its own title, cwd and days."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.conftest import GEN_SESSION

_DAY_MS = 86_400_000


@functools.cache
def _generated_text(turns: int, seed: int) -> str:
    return subprocess.run(
        [sys.executable, str(GEN_SESSION), "--turns", str(turns), "--seed", str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def generate(turns: int, seed: int) -> list[dict[str, Any]]:
    """Run the shared generator (once per arguments in a test run) and return fresh dicts of its lines."""
    return [json.loads(line) for line in _generated_text(turns, seed).splitlines() if line.strip()]


def _shift_iso(value: str, days: int) -> str:
    when = datetime.fromisoformat(value.replace("Z", "+00:00")) + timedelta(days=days)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def shift_days(lines: list[dict[str, Any]], days: int) -> None:
    """Move every timestamp of a session (ISO strings and epoch ms) by whole days."""
    for line in lines:
        if isinstance(line.get("timestamp"), str):
            line["timestamp"] = _shift_iso(line["timestamp"], days)
        message = line.get("message")
        if isinstance(message, dict) and isinstance(message.get("timestamp"), int):
            message["timestamp"] += days * _DAY_MS


def set_times(
    lines: list[dict[str, Any]], part_of: Callable[[int], int], starts: Sequence[datetime]
) -> list[int]:
    """Put line ``n`` at ``starts[part_of(n)]`` plus ``n`` seconds (ISO strings and epoch ms alike);
    how many assistant messages with a usage each part holds."""
    counts = [0] * len(starts)
    for n, line in enumerate(lines):
        part = part_of(n)
        when = starts[part] + timedelta(seconds=n)
        line["timestamp"] = when.isoformat().replace("+00:00", "Z")
        message = line.get("message")
        if isinstance(message, dict):
            if isinstance(message.get("timestamp"), int):
                message["timestamp"] = int(when.timestamp() * 1000)
            if message.get("role") == "assistant" and message.get("usage"):
                counts[part] += 1
    assert all(counts), counts
    return counts


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    """Write dicts as a JSONL file (every line with its newline)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def make_session(
    folder: Path,
    name: str,
    *,
    seed: int,
    turns: int = 12,
    title: str | None = None,
    cwd: str = "/home/dev/demo",
    days: int = 0,
    session_id: str | None = None,
) -> tuple[Path, list[dict[str, Any]]]:
    """Write one generated session into ``folder`` and return its path and lines."""
    lines = generate(turns, seed)
    header = lines[0]
    header["id"] = session_id or f"{seed:08x}-{name}"
    header["cwd"] = cwd
    if title is None:
        header.pop("title", None)
    else:
        header["title"] = title
    shift_days(lines, days)
    return write_lines(folder / f"{name}.jsonl", lines), lines
