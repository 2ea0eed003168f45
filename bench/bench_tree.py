"""Benchmark the entry index: ``SessionManager.get_branch`` per call, and building the tree.

Before the incremental tree, every ``get_branch`` built a whole ``SessionTree``; now the
manager keeps one tree up to date and a call only walks the path.

Usage: .venv/bin/python bench/bench_tree.py SESSION.jsonl [--calls 50]
  (make one: python ../shared/tools/gen_session.py --turns 2000 -o /tmp/s2000.jsonl)
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from sessiontree.store import SessionTree, load_session
from sessiontree.store.jsonl import paused_gc
from sessiontree.store.manager import SessionManager


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("session")
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    session = load_session(args.session)
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / Path(args.session).name
        shutil.copyfile(args.session, copy)
        with SessionManager.open(
            copy, agent_dir=Path(tmp) / "agent", term="", rewrite_migrated=False
        ) as manager:
            start = time.perf_counter()
            for _ in range(args.calls):
                branch = manager.get_branch()
            per_call = (time.perf_counter() - start) / args.calls
            start = time.perf_counter()
            for n in range(1000):
                manager.append_custom_entry("bench", n)
            append_s = (time.perf_counter() - start) / 1000
    build_s = float("inf")
    for _ in range(5):
        with paused_gc():  # as Session.tree builds it
            start = time.perf_counter()
            tree = SessionTree(session.entries)
            build_s = min(build_s, time.perf_counter() - start)
    print(f"entries: {len(session.entries):,}  active path: {len(branch):,} entries")
    print(f"get_branch: {per_call * 1000:.2f} ms per call")
    print(f"append (file write included, tree kept up to date): {append_s * 1e6:.0f} us per entry")
    print(f"SessionTree of the whole file: {build_s * 1000:.1f} ms, best of 5 ({len(tree):,} ids)")


if __name__ == "__main__":
    main()
