#!/usr/bin/env python3
"""Time `sessiontree build` as the archive grows (full build, one appended line, no change) against
claude-code-log --all-projects on the same conversations written as Claude Code files.

Usage (from the project root, sessiontree installed in .venv):
  .venv/bin/python bench/bench_build.py --sizes 16,64,256 --turns 300 --claude-turns 2000
  .venv/bin/python bench/bench_build.py --sizes 16 --turns 50 --no-peer

Figures are printed, not asserted. Peak memory is the whole process tree's (the builder, its
render workers and Pagefind summed, sampled every 20 ms from /proc), so it is what the machine
has to hold; the largest single process is printed beside it. Memory should stay flat as the
archive grows: render workers follow the largest session and Pagefind the largest batch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared"))
GEN = SHARED / "tools" / "gen_session.py"
PROJECTS = 4
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _tree_rss(root: int) -> tuple[int, int]:
    """Summed and largest RSS (bytes) of ``root`` and its descendants, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat[stat.rindex(")") + 2 :].split()[1]), []).append(int(entry))
    total = largest = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        try:
            rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            rss = 0
        total += rss
        largest = max(largest, rss)
        stack.extend(children.get(pid, ()))
    return total, largest


def run(cmd: list[str], ok_codes: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """Wall seconds, peak summed RSS of the process tree and peak RSS of its largest process (MiB)."""
    peak = [0, 0]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            total, largest = _tree_rss(proc.pid)
            peak[0], peak[1] = max(peak[0], total), max(peak[1], largest)
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    err = proc.stderr.read()
    code = proc.wait()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if code not in ok_codes:
        raise SystemExit(f"failed ({code}): {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return wall, peak[0] / 2**20, peak[1] / 2**20


def _gen(fmt: str, turns: int, seed: int, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    args = [
        sys.executable,
        str(GEN),
        "--turns",
        str(turns),
        "--seed",
        str(seed),
        "--format",
        fmt,
        "-o",
        str(out),
    ]
    subprocess.run(args, check=True)


def generate(work: Path, sessions: int, turns: int, claude_turns: int) -> tuple[Path, Path, Path]:
    """``sessions`` of ours plus one big Claude Code file; the same conversations for the peer."""
    ours = work / "agent" / "sessions"
    theirs = work / "claude" / "projects"
    big = work / "big" / "projects"
    for i in range(sessions):
        p = i % PROJECTS
        _gen(
            "xcsh",
            turns,
            i,
            ours / f"--home-dev-p{p}--" / f"2026-11-{1 + i % 28:02d}T10-00-00-{i:06d}Z_{i:04d}.jsonl",
        )
        _gen("claude", turns, i, theirs / f"-home-dev-p{p}" / f"{i:08d}-0000-4000-8000-000000000000.jsonl")
    if claude_turns:
        name = "-home-dev-big/ffffffff-0000-4000-8000-000000000000.jsonl"
        _gen("claude", claude_turns, 9999, big / name)
        (theirs / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(big / name, theirs / name)
    return ours, theirs, big


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


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} / {fifteen:.1f} on {os.cpu_count()} cores"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="16,64,256", help="session counts, comma-separated")
    ap.add_argument("--turns", type=int, default=300, help="turns per generated session (300: ~3 MB)")
    ap.add_argument(
        "--claude-turns", type=int, default=2000, help="one Claude Code file of this many turns (0: none)"
    )
    ap.add_argument("--sessiontree", default=str(ROOT / ".venv" / "bin" / "sessiontree"))
    ap.add_argument("--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers")
    ap.add_argument("--no-peer", action="store_true", help="time sessiontree only")
    ap.add_argument("--keep", action="store_true", help="keep the work folders")
    a = ap.parse_args()

    peer = a.peers_venv / "bin" / "claude-code-log"
    if not a.no_peer and not peer.exists():
        subprocess.run([sys.executable, "-m", "venv", str(a.peers_venv)], check=True)
        subprocess.run([str(a.peers_venv / "bin" / "pip"), "install", "-q", "claude-code-log"], check=True)
    st = a.sessiontree
    rows: list[tuple[str, float, float, float]] = []
    print(_load())
    for n in (int(x) for x in a.sizes.split(",")):
        work = Path(tempfile.mkdtemp(prefix=f"bench-build-{n}-"))
        env_cache = work / "cache"  # a cold fragment cache and archive index for each size
        os.environ["XDG_CACHE_HOME"] = str(env_cache)
        ours, theirs, big = generate(work, n, a.turns, a.claude_turns)
        print(
            f"{n} sessions x {a.turns} turns ({size_mb(ours):.0f} MB) + "
            f"one {a.claude_turns}-turn Claude Code "
            f"file ({size_mb(big):.0f} MB); peer input {size_mb(theirs):.0f} MB; {_load()}"
        )
        site = work / "site"
        cmd = [st, "build", str(ours), "--root", str(big), "-o", str(site), "--quiet"]
        if not a.claude_turns:
            cmd = [st, "build", str(ours), "-o", str(site), "--quiet"]
        rows.append((f"{n:3d} sessiontree full", *run(cmd)))
        rows.append((f"{n:3d} sessiontree no change", *run(cmd)))
        grow(next(iter(sorted(ours.rglob("*.jsonl")))))
        rows.append((f"{n:3d} sessiontree one line appended", *run(cmd)))
        site_mb = size_mb(site)
        bundles = len(list(site.glob("pagefind-*")))
        if not a.no_peer:
            out = work / "ccl"
            peer_cmd = [str(peer), "--all-projects", str(theirs), "-o", str(out)]
            rows.append((f"{n:3d} claude-code-log full", *run(peer_cmd)))
            grow(next(iter(sorted(theirs.rglob("*.jsonl")))))
            rows.append((f"{n:3d} claude-code-log one line appended", *run(peer_cmd)))
            peer_mb = size_mb(out)
            print(f"  output: sessiontree {site_mb:.0f} MB ({bundles} bundles), peer {peer_mb:.0f} MB")
        else:
            print(f"  output: sessiontree {site_mb:.0f} MB ({bundles} search bundles)")
        for name, wall, tree, largest in rows[-5:] if not a.no_peer else rows[-3:]:
            print(f"  {name:40s} wall {wall:8.2f} s   tree peak {tree:6.0f} MiB   largest {largest:6.0f} MiB")
        if a.keep:
            print(f"  kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(_load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
