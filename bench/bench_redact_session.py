"""CPU seconds to redact the 2,000-turn generated session (~22 MB), now and at other revisions.

    python bench/bench_redact_session.py [--turns 2000] [--rev REV ...] [--runs 3]

Generates the session with the shared gen_session.py (seed 7), loads it once per process and
times ``redact_session`` (what ``share`` runs before rendering) with ``time.process_time``: the
median of ``--runs``, each revision in its own process on a ``git archive`` of its ``src``. Prints
CPU and wall seconds and the load average. Figures, not assertions (issue 32's target: 1 s).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_TIMER = """
import json, statistics, sys, time
from pathlib import Path
from sessiontree.readers import load_for_export
from sessiontree.share.publish import redact_session
session = load_for_export(Path(sys.argv[1]))
cpu, wall = [], []
for _ in range(int(sys.argv[2])):
    c, w = time.process_time(), time.perf_counter()
    _, report = redact_session(session)
    cpu.append(time.process_time() - c)
    wall.append(time.perf_counter() - w)
print(json.dumps([statistics.median(cpu), statistics.median(wall), report.total]))
"""


def _src_at(rev: str, into: Path) -> Path:
    """Return a folder holding ``src`` as it was at ``rev``."""
    archive = into / f"{rev}.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), rev, "src"], check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / rev, filter="data")
    return into / rev / "src"


def _time(src: Path, session: Path, runs: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", _TIMER, str(session), str(runs)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [float(x) for x in out.stdout.strip().strip("[]").split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--rev", action="append", default=[], help="also time src at this git revision")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    gen = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared")) / "tools" / "gen_session.py"
    if not gen.exists():
        gen = Path("/work/shared/tools/gen_session.py")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        session = work / "session.jsonl"
        subprocess.run(
            [sys.executable, str(gen), "--turns", str(args.turns), "--seed", "7", "-o", str(session)],
            check=True,
        )
        print(f"session: {args.turns} turns, {session.stat().st_size / 1e6:.1f} MB; load {os.getloadavg()}")
        for rev in [*args.rev, "now"]:
            src = ROOT / "src" if rev == "now" else _src_at(rev, work)
            cpu, wall, masked = _time(src, session, args.runs)
            print(f"  redact_session {rev:<10} CPU {cpu:6.2f} s  wall {wall:6.2f} s  ({masked:.0f} masked)")
        print(f"  load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
