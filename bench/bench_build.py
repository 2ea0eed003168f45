#!/usr/bin/env python3
"""Time `sessiontree build` (full, -j 1 and all cores, no change, one session grown) against
claude-code-log --all-projects on the same conversations written as Claude Code files.

Usage (from the project root, sessiontree installed in .venv):
  .venv/bin/python bench/bench_build.py --sessions 200 --turns 500
  .venv/bin/python bench/bench_build.py --sessions 20 --turns 200 --no-peer

Figures are printed, not asserted. Peak memory is the largest process of the run (the builder
or one of its workers): bounded by the largest session, not the sum.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared"))
GEN = SHARED / "tools" / "gen_session.py"
PROJECTS = 10


def run(cmd: list[str], ok_codes: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB, the largest process of the tree) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok_codes:
        raise SystemExit(f"failed ({code}): {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def generate(work: Path, sessions: int, turns: int) -> tuple[Path, Path]:
    ours = work / "agent" / "sessions"
    claude = work / "claude" / "projects"
    for i in range(sessions):
        p = i % PROJECTS
        mine = ours / f"--home-dev-p{p}--" / f"2026-11-{1 + i % 28:02d}T10-00-00-000Z_{i:04d}.jsonl"
        theirs = claude / f"-home-dev-p{p}" / f"{i:08d}-0000-4000-8000-000000000000.jsonl"
        for fmt, out in (("xcsh", mine), ("claude", theirs)):
            out.parent.mkdir(parents=True, exist_ok=True)
            args = [
                sys.executable,
                str(GEN),
                "--turns",
                str(turns),
                "--seed",
                str(i),
                "--format",
                fmt,
                "-o",
                str(out),
            ]
            subprocess.run(args, check=True)
    return ours, claude


def grow(path: Path) -> None:
    """Append one user turn to a session (either format), as an agent would."""
    last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
    if "uuid" in last:  # Claude Code
        line = {
            **last,
            "uuid": "grown-0000",
            "parentUuid": last["uuid"],
            "type": "user",
            "message": {"role": "user", "content": "one more question"},
        }
    else:
        line = {
            "type": "message",
            "id": "grown000",
            "parentId": last.get("id"),
            "timestamp": last.get("timestamp"),
            "message": {"role": "user", "content": "one more question", "timestamp": 0},
        }
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=200)
    ap.add_argument("--turns", type=int, default=500)
    ap.add_argument("--sessiontree", default=str(ROOT / ".venv" / "bin" / "sessiontree"))
    ap.add_argument("--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers")
    ap.add_argument("--no-peer", action="store_true", help="time sessiontree only")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    a = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    t0 = time.perf_counter()
    ours, claude = generate(work, a.sessions, a.turns)
    print(
        f"input: {a.sessions} sessions x {a.turns} turns in {PROJECTS} projects; "
        f"{size_mb(ours):.0f} MB ours, {size_mb(claude):.0f} MB Claude Code "
        f"(generated in {time.perf_counter() - t0:.0f} s)"
    )
    st = a.sessiontree

    def build(site: Path, *extra: str) -> tuple[float, float]:
        return run([st, "build", str(ours), "-o", str(site), "--quiet", *extra])

    rows: list[tuple[str, float, float]] = []
    rows.append(("sessiontree full, -j 1", *build(work / "site1", "-j", "1")))
    rows.append((f"sessiontree full, -j {os.cpu_count()}", *build(work / "site")))
    rows.append(("sessiontree no change", *build(work / "site")))
    grow(next(iter(sorted(ours.rglob("*.jsonl")))))
    rows.append(("sessiontree one session grew", *build(work / "site")))
    rows.append(("sessiontree full, no search, all cores", *build(work / "site-nosearch", "--no-search")))
    site_mb = size_mb(work / "site")

    peer_mb = None
    if not a.no_peer:
        peer = a.peers_venv / "bin" / "claude-code-log"
        if not peer.exists():
            subprocess.run([sys.executable, "-m", "venv", str(a.peers_venv)], check=True)
            subprocess.run(
                [str(a.peers_venv / "bin" / "pip"), "install", "-q", "claude-code-log"], check=True
            )
        out = work / "ccl"
        cmd = [str(peer), "--all-projects", str(claude), "-o", str(out)]
        rows.append(("claude-code-log full", *run(cmd)))
        rows.append(("claude-code-log no change", *run(cmd)))
        grow(next(iter(sorted(claude.rglob("*.jsonl")))))
        rows.append(("claude-code-log one session grew", *run(cmd)))
        peer_mb = size_mb(out)

    for name, wall, rss in rows:
        print(f"{name:40s} wall {wall:8.2f} s   peak {rss:7.0f} MiB")
    print(
        f"output: sessiontree site {site_mb:.0f} MB"
        + (f", claude-code-log {peer_mb:.0f} MB" if peer_mb else "")
    )
    if a.keep:
        print(f"kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
