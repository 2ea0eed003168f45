#!/usr/bin/env python3
"""Export one Claude Code file with sessiontree, claude-code-transcripts and claude-code-log.

The identical input for all three: ../shared/tools/gen_session.py --format claude. Each tool
turns it into HTML; runs are interleaved after a warm-up and the medians printed: wall time,
peak RSS, and output size (all files a tool wrote), with sessiontree / peer ratios. Figures
only, no assertions. The peers come from PyPI into a venv (as ../shared/bench/vs_peers.py).
Usage:
  .venv/bin/python bench/bench_claude_peers.py [--turns 2000] [--runs 3] [--peers-venv DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_export import timed  # one whole-process timing for the benchmarks (bench/ is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
SHARED = next(
    (p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()), ROOT.parent
)
GEN = SHARED / "tools" / "gen_session.py"
PEERS = ["claude-code-transcripts", "claude-code-log"]


def ensure_peers(venv: Path) -> Path:
    """The peers' bin folder, installing them from PyPI the first time."""
    bin_dir = venv / "bin"
    if all((bin_dir / p).exists() for p in PEERS):
        return bin_dir
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(bin_dir / "pip"), "install", "-q", *PEERS], check=True)
    return bin_dir


def output_size(path: Path) -> int:
    """Bytes of a written file, or of every file under a written folder."""
    if path.is_dir():
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
    return path.stat().st_size if path.exists() else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers")
    a = ap.parse_args()

    bin_dir = ensure_peers(a.peers_venv)
    work = Path(tempfile.mkdtemp(prefix="bench-claude-peers-"))
    source = work / "claude.jsonl"
    gen = [sys.executable, str(GEN), "--turns", str(a.turns), "--format", "claude", "-o", str(source)]
    subprocess.run(gen, check=True)
    outputs = {
        "sessiontree": work / "ours.html",
        "claude-code-transcripts": work / "cct",
        "claude-code-log": work / "ccl.html",
    }
    src = str(source)
    cct, ccl = bin_dir / "claude-code-transcripts", bin_dir / "claude-code-log"
    commands = {
        "sessiontree": [sys.executable, "-m", "sessiontree", "export", src, str(outputs["sessiontree"])],
        "claude-code-transcripts": [str(cct), "json", src, "-o", str(outputs["claude-code-transcripts"])],
        "claude-code-log": [str(ccl), src, "-o", str(outputs["claude-code-log"]), "--no-cache"],
    }
    walls: dict[str, list[float]] = {k: [] for k in commands}
    rss: dict[str, list[float]] = {k: [] for k in commands}
    for cmd in commands.values():  # warm-up (imports compiled, files cached)
        timed(cmd)
    for _ in range(a.runs):
        for name, cmd in commands.items():
            wall, peak = timed(cmd)
            walls[name].append(wall)
            rss[name].append(peak)
    sizes = {name: output_size(path) for name, path in outputs.items()}
    megabytes = source.stat().st_size / 1e6
    print(f"input: {a.turns} turns, Claude Code JSONL {megabytes:.1f} MB; {a.runs} runs, medians")
    ours = (
        statistics.median(walls["sessiontree"]),
        statistics.median(rss["sessiontree"]),
        sizes["sessiontree"],
    )
    for name in commands:
        wall, peak, size = statistics.median(walls[name]), statistics.median(rss[name]), sizes[name]
        line = f"{name:24s} wall {wall:6.2f} s  peak {peak:6.0f} MiB  output {size / 1e6:6.1f} MB"
        if name != "sessiontree":
            ratios = f"wall {ours[0] / wall:.2f}  rss {ours[1] / peak:.2f}  size {ours[2] / size:.2f}"
            line += f"   sessiontree/peer: {ratios}"
        print(line)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
