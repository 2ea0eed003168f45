#!/usr/bin/env python3
"""Export a 2,000-turn generated session: wall time, peak memory, HTML size vs JSONL size.

Prints figures only (targets: wall <= 0.5x the fastest peer of ../shared/bench/vs_peers.py,
peak RSS <= the leanest peer's, HTML size <= JSONL size). Usage:
  .venv/bin/python bench/bench_export.py [--turns 2000] [--runs 3] [--profile]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GEN = Path(__file__).resolve().parents[2] / "shared" / "tools" / "gen_session.py"
CLI = [sys.executable, "-m", "sessiontree"]


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one whole-process run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def stages(path: Path, out: Path) -> None:
    """Print the time of each stage in this process (load, render, assemble, write)."""
    from sessiontree.exporter.api import render_session
    from sessiontree.exporter.page import iter_page
    from sessiontree.store import load_session
    from sessiontree.store.atomic import write_atomic

    t0 = time.perf_counter()
    session = load_session(path)
    t1 = time.perf_counter()
    r = render_session(session)
    t2 = time.perf_counter()
    html = "".join(iter_page(r))
    t3 = time.perf_counter()
    write_atomic(out, html)
    t4 = time.perf_counter()
    print(
        f"stages: load {t1 - t0:.2f} s, render {t2 - t1:.2f} s ({len(r.entries)} entries, "
        f"{(t2 - t1) / max(1, len(r.entries)) * 1e6:.0f} us/entry), "
        f"assemble {t3 - t2:.2f} s, write {t4 - t3:.2f} s"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="also print the cProfile top 25 of one export")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-export-"))
    path, out = work / "session.jsonl", work / "out.html"
    subprocess.run([sys.executable, str(GEN), "--turns", str(a.turns), "-o", str(path)], check=True)
    cmd = [*CLI, "export", str(path), str(out)]
    timed(cmd)  # warm-up (page cache, .pyc)
    runs = [timed(cmd) for _ in range(a.runs)]
    walls, rss = [w for w, _ in runs], [r for _, r in runs]
    jsonl, html = path.stat().st_size, out.stat().st_size
    print(f"session: {a.turns} turns, {jsonl / 1e6:.1f} MB JSONL; {a.runs} runs")
    print(f"export wall: median {statistics.median(walls):.2f} s (best {min(walls):.2f} s)")
    print(f"export peak RSS: median {statistics.median(rss):.0f} MiB")
    print(f"HTML size: {html / 1e6:.1f} MB = {html / jsonl:.2f}x the JSONL (target <= 1.00x)")
    stages(path, work / "stages.html")
    if a.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.runcall(stages, path, work / "profile.html")
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    return 0


if __name__ == "__main__":
    sys.exit(main())
