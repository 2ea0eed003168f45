#!/usr/bin/env python3
"""Render once, reuse everywhere (issue 20): figures printed, nothing asserted.

- export: the 2,000-turn session, cold fragment cache / warm cache / --no-cache, against
  claude-code-transcripts on the same conversation (its Claude Code form), runs interleaved;
  medians of wall time, CPU (user+sys of the process and its children) and peak RSS, ratios;
- serve: a real ``sessiontree serve`` process; time from the request to the first prompt's
  bytes and to the whole page, first visit (cold: the file is loaded, the cache empty) and
  next visits;
- build: ``build --force`` of an archive with an empty fragment cache, then with it warm;
- parse: json vs orjson on the load path's line decode.

The machine is shared: quote the load printed with the figures.
Usage: .venv/bin/python bench/bench_render.py [export|serve|build|parse|all] [--turns 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared"))
GEN = SHARED / "tools" / "gen_session.py"
PEERS_VENV = Path(tempfile.gettempdir()) / "sessiontree-peers"
PEER = "claude-code-transcripts"
ST = [sys.executable, "-m", "sessiontree"]


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def gen(turns: int, out: Path, *more: str, seed: int = 1) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(GEN), "--turns", str(turns), "--seed", str(seed), *more, "-o", str(out)],
        check=True,
    )
    return out


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (with children) and peak RSS (MiB) of one whole-process run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    # wait4's usage covers the process and the children it waited for (the fork worker).
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def peer_bin() -> Path | None:
    exe = PEERS_VENV / "bin" / PEER
    if not exe.exists():
        if not (PEERS_VENV / "bin" / "pip").exists():
            subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
        subprocess.run([str(PEERS_VENV / "bin" / "pip"), "install", "-q", PEER], check=False)
    return exe if exe.exists() else None


def med(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    return (
        statistics.median(r[0] for r in rows),
        statistics.median(r[1] for r in rows),
        statistics.median(r[2] for r in rows),
    )


def bench_export(turns: int, runs: int, work: Path) -> None:
    ours = gen(turns, work / "sessions" / "session.jsonl")
    theirs = gen(turns, work / "sessions" / "claude.jsonl", "--format", "claude")
    out = work / "out"
    out.mkdir(parents=True)
    cache = work / "cache"
    peer = peer_bin()
    commands: dict[str, list[str]] = {
        "sessiontree cold cache": [*ST, "export", str(ours), str(out / "a.html"), "--cache-dir", str(cache)],
        "sessiontree warm cache": [*ST, "export", str(ours), str(out / "b.html"), "--cache-dir", str(cache)],
        "sessiontree --no-cache": [*ST, "export", str(ours), str(out / "c.html"), "--no-cache"],
    }
    if peer is not None:
        commands[PEER] = [str(peer), "json", str(theirs), "-o", str(out / "cct")]
    rows: dict[str, list[tuple[float, float, float]]] = {k: [] for k in commands}
    timed(commands["sessiontree --no-cache"])  # warm-up (imports, page cache)
    for _ in range(runs):
        for name, cmd in commands.items():
            if name == "sessiontree cold cache":
                shutil.rmtree(cache, ignore_errors=True)
            rows[name].append(timed(cmd))
    print(f"export, {turns} turns ({ours.stat().st_size / 1e6:.1f} MB), {runs} runs, medians; {load()}")
    base = med(rows[PEER]) if peer is not None else None
    for name, values in rows.items():
        w, c, r = med(values)
        line = f"  {name:24s} wall {w:6.2f} s  cpu {c:6.2f} s  peak {r:6.0f} MiB"
        if base is not None and name != PEER:
            line += f"   vs {PEER}: wall {w / base[0]:.2f}x  cpu {c / base[1]:.2f}x  rss {r / base[2]:.2f}x"
        print(line)
    cold, warm = med(rows["sessiontree cold cache"]), med(rows["sessiontree warm cache"])
    print(f"  warm / cold export: wall {warm[0] / cold[0]:.2f}x  cpu {warm[1] / cold[1]:.2f}x")
    bare = med(rows["sessiontree --no-cache"])
    print(f"  cache tax, cold / --no-cache: cpu {cold[1] / bare[1]:.3f}x  peak {cold[2] / bare[2]:.2f}x")
    pages = {(out / n).read_bytes() for n in ("a.html", "b.html", "c.html")}
    print(f"  pages identical: {len(pages) == 1}")


def first_prompt(url: str) -> tuple[float, float]:
    """Seconds to the first prompt's bytes and to the end of the page."""
    start = time.perf_counter()
    first = None
    seen = b""
    with httpx.stream("GET", url, timeout=600) as response:
        for chunk in response.iter_bytes():
            if first is None:
                seen = (seen + chunk)[-200_000:]
                if b'class="st-entry st-user"' in seen:
                    first = time.perf_counter() - start
    total = time.perf_counter() - start
    return (first if first is not None else total), total


def bench_serve(turns: int, runs: int, work: Path) -> None:
    agent = work / "agent"
    key = "--bench--/session.jsonl"
    gen(turns, agent / "sessions" / key)
    cmd = [*ST, "--agent-dir", str(agent), "serve", str(agent / "sessions"), "--port", "0"]
    cmd += ["--cache-dir", str(work / "serve-cache")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = next(line.split(" at ")[1].strip().rstrip("/") for line in proc.stdout if " at http" in line)
        cold = first_prompt(f"{url}/s/{key}")
        warm = [first_prompt(f"{url}/s/{key}") for _ in range(runs)]
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    print(f"serve, {turns} turns, first visit then {runs} more, medians; {load()}")
    print(f"  first visit: first prompt {cold[0]:.2f} s, whole page {cold[1]:.2f} s")
    print(
        f"  next visits: first prompt {statistics.median(w[0] for w in warm):.2f} s, "
        f"whole page {statistics.median(w[1] for w in warm):.2f} s"
    )


def bench_build(sessions: int, turns: int, work: Path) -> None:
    root = work / "archive"
    for i in range(sessions):
        gen(turns, root / f"--p{i}--" / "s.jsonl", seed=i)
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "xdg")}
    cmd = [*ST, "build", str(root), "-o", str(work / "site"), "--force", "--no-search", "--no-usage", "-q"]
    cold = timed(cmd, env)
    warm = timed(cmd, env)
    print(f"build --force, {sessions} sessions x {turns} turns; {load()}")
    print(f"  empty cache: wall {cold[0]:.2f} s cpu {cold[1]:.2f} s")
    print(f"  warm cache:  wall {warm[0]:.2f} s cpu {warm[1]:.2f} s")
    print(f"  warm / cold: wall {warm[0] / cold[0]:.2f}x  cpu {warm[1] / cold[1]:.2f}x")


def bench_parse(turns: int, runs: int, work: Path) -> None:
    """The load path's line decode (json with the clamping hooks) against orjson, bare and with
    the guards that would keep its values identical (json decides lines nested near its limit
    and lines with a number that may need clamping: 16 digits in a row, a positive exponent)."""
    import gc
    import json
    import re

    import orjson

    from sessiontree.store.jsonl import decode_line

    path = gen(turns, work / "parse" / "session.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    hooks = re.compile(r"\d{16}|\d[eE]\+?\d+(?![\w\"])")

    def guarded(line: str) -> object:
        if (len(line) > 1800 and line.count("[") + line.count("{") >= 900) or hooks.search(line):
            return decode_line(line)
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            return decode_line(line)

    funcs = {
        "decode_line (today)": decode_line,
        "json, no hooks": json.JSONDecoder().decode,
        "orjson bare": orjson.loads,
        "orjson + guards": guarded,
    }
    times: dict[str, list[float]] = {name: [] for name in funcs}
    gc.disable()  # as the loader does
    for _ in range(max(runs, 5)):
        for name, fn in funcs.items():
            start = time.process_time()
            for line in lines:
                fn(line)
            times[name].append(time.process_time() - start)
    gc.enable()
    print(f"line decode, {len(lines):,} lines ({path.stat().st_size / 1e6:.1f} MB), CPU medians; {load()}")
    for name, values in times.items():
        print(f"  {name:22s} {statistics.median(values):.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", nargs="?", default="all", choices=["export", "serve", "build", "parse", "all"])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build-sessions", type=int, default=8)
    ap.add_argument("--build-turns", type=int, default=200)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-render-"))
    try:
        if a.what in ("export", "all"):
            bench_export(a.turns, a.runs, work / "export")
        if a.what in ("serve", "all"):
            bench_serve(a.turns, a.runs, work / "serve")
        if a.what in ("build", "all"):
            bench_build(a.build_sessions, a.build_turns, work / "build")
        if a.what in ("parse", "all"):
            bench_parse(a.turns, a.runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
