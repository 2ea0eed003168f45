"""Benchmark `sessiontree mcp` as an agent meets it: start-up, a search call, a read, memory.

Usage: .venv/bin/python bench/bench_mcp.py [--sessions 1000] [--repeat 7]

The corpus: ``--sessions`` small pi sessions (tests/tools/gen_session.py, 4 turns, copied under
fresh ids with one rare word each), in a temporary HOME. The server runs as a real process,
driven through the SDK's own stdio client, as Claude Code or Codex would start it. Printed:

- start-up: process start to the ``initialize`` answer (median of ``--repeat`` fresh processes);
- a search call for a rare word on a warm index (the first call builds it, printed apart);
- list_sessions' first page, a read_session page, usage_totals by day;
- the server's peak resident memory (VmHWM) after all of it.

Figures are printed, not asserted; medians, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parents[1]
GEN = ROOT / "tests" / "tools" / "gen_session.py"


def make_corpus(folder: Path, count: int) -> None:
    """``count`` sessions from 8 generated ones, each under its own id with its own rare word."""
    bases = [
        subprocess.run(
            [sys.executable, str(GEN), "--turns", "4", "--seed", str(seed)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        for seed in range(8)
    ]
    folder.mkdir(parents=True)
    for n in range(count):
        lines = [json.loads(line) for line in bases[n % len(bases)] if line.strip()]
        lines[0]["id"] = f"{n:08d}-0000-4000-8000-{n:012d}"
        lines[0]["title"] = f"session {n} zqword{n}x"
        (folder / f"s{n:06d}.jsonl").write_text(
            "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8"
        )


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def session_run(params: StdioServerParameters, repeat: int, count: int) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()

        async def timed(name: str, arguments: dict[str, Any]) -> float:
            start = time.perf_counter()
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            return time.perf_counter() - start

        figures["first search (builds the index)"] = await timed("search_sessions", {"query": "zqword1x"})
        figures["search, warm"] = statistics.median(
            [await timed("search_sessions", {"query": f"zqword{(n * 37) % count}x"}) for n in range(repeat)]
        )
        figures["list_sessions, first page"] = statistics.median(
            [await timed("list_sessions", {}) for _ in range(repeat)]
        )
        figures["read_session, 20 messages"] = statistics.median(
            [await timed("read_session", {"session": f"s{n:06d}.jsonl"}) for n in range(repeat)]
        )
        figures["usage_totals by day"] = statistics.median(
            [await timed("usage_totals", {"by": "day"}) for _ in range(repeat)]
        )
        pids = subprocess.run(
            ["pgrep", "-f", "sessiontree mcp --root"], capture_output=True, text=True
        ).stdout
        figures["peak RSS MiB"] = (
            max(peak_rss_mib(int(p)) for p in pids.split()) if pids.strip() else float("nan")
        )
    return figures


async def start_up(params: StdioServerParameters) -> float:
    start = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        root = home / "sessions"
        make_corpus(root, args.sessions)
        env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
        env["SESSIONTREE_AGENT_DIR"] = str(home / ".xcsh" / "agent")
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "sessiontree", "mcp", "--root", str(root)],
            env=env,
            cwd=str(home),
        )
        print(f"load average {os.getloadavg()} on {os.cpu_count()} cores; {args.sessions} sessions")
        figures = anyio.run(session_run, params, args.repeat, args.sessions)
        starts = [anyio.run(start_up, params) for _ in range(args.repeat)]
        figures["start-up to ready"] = statistics.median(starts)
        for name, value in figures.items():
            unit = "" if "MiB" in name else " ms"
            shown = value if "MiB" in name else value * 1000
            print(f"  {name:<34} {shown:8.1f}{unit}")
        print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
