#!/usr/bin/env python3
"""Load a 2,000-turn generated session and compare with reading it and json.loads on each line.

Prints figures only (the target is a ratio of at most 1.5x). Usage:
  .venv/bin/python bench/bench_load.py [--turns 2000] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sessiontree.store import load_session

GEN = Path(__file__).resolve().parents[2] / "shared" / "tools" / "gen_session.py"


def baseline(path: Path) -> int:
    with open(path, encoding="utf-8") as fh:
        return len([json.loads(line) for line in fh if line.strip()])


def ours(path: Path) -> int:
    session = load_session(path, blobs_dir=path.parent / "blobs")
    session.tree  # noqa: B018 - the tree is part of a useful load
    return len(session.entries) + 1


def best_of(fn: object, path: Path, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(path)  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--blobs", action="store_true", help="generate with a blob store (rehydration cost)")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-load-"))
    path = work / "session.jsonl"
    cmd = [sys.executable, str(GEN), "--turns", str(a.turns), "-o", str(path)]
    if a.blobs:
        cmd += ["--blobs-dir", str(work / "blobs")]
    subprocess.run(cmd, check=True)
    assert baseline(path) == ours(path)
    base = best_of(baseline, path, a.runs)
    mine = best_of(ours, path, a.runs)
    size = path.stat().st_size / 1e6
    print(
        f"session: {a.turns} turns, {size:.1f} MB, {baseline(path)} lines, blobs={'yes' if a.blobs else 'no'}"
    )
    for name, times in (("read + json.loads per line", base), ("load_session + tree", mine)):
        print(
            f"{name:28s} best {min(times) * 1000:7.1f} ms   median {statistics.median(times) * 1000:7.1f} ms"
        )
    print(
        f"ratio (best of {a.runs}): {min(mine) / min(base):.2f}x   (median: "
        f"{statistics.median(mine) / statistics.median(base):.2f}x; target <= 1.5x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
