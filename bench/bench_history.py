"""Benchmark HistoryStorage: insert 100,000 prompts through the background writer, then time searches.

Usage: .venv/bin/python bench/bench_history.py [--prompts 100000] [--repeat 30]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from sessiontree.store.history import HistoryStorage

WORDS = " ".join(
    [
        "fix refactor test parser module error build deploy staging review update docs add remove rename",
        "function class config cache database query index migration branch commit merge release bug crash",
        "performance memory leak timeout retry logging metrics api endpoint handler request response json",
        "yaml schema validate format lint type check coverage benchmark profile optimize async thread lock",
    ]
).split(" ")
QUERIES = [
    ("common word", "test"),
    ("rare word", "zebra"),
    ("two words (AND)", "parser timeout"),
    ("prefix", "refac*"),
    ("phrase", '"memory leak"'),
    ("OR", "deploy OR release"),
    ("fallback: c++", "c++"),
    ("fallback: 100%", "100%"),
    ("fallback: no match", "qqq%"),
    ("cwd-scoped", "cache"),
]


def make_prompts(n: int) -> list[tuple[str, str]]:
    """Return ``n`` varied prompts with one of 20 working directories each."""
    rng = random.Random(11)
    out = []
    for i in range(n):
        words = rng.choices(WORDS, k=rng.randint(4, 30))
        if i % 997 == 0:
            words.append("zebra")
        if i % 501 == 0:
            words.append(rng.choice(["c++ templates", "100% coverage"]))
        out.append((f"{' '.join(words)} #{i}", f"/work/project-{i % 20}"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--prompts", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    prompts = make_prompts(args.prompts)
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        storage = HistoryStorage(Path(tmp) / "history.db")
        start = time.perf_counter()
        for prompt, cwd in prompts:
            storage.add(prompt, cwd=cwd)
        queued = time.perf_counter() - start
        storage.flush()
        written = time.perf_counter() - start
        size = (Path(tmp) / "history.db").stat().st_size + (Path(tmp) / "history.db-wal").stat().st_size
        print(
            f"insert {args.prompts} prompts: add() returned after {queued:.2f} s "
            f"({queued / args.prompts * 1e6:.1f} µs per call), all written after {written:.2f} s "
            f"({args.prompts / written:,.0f} prompts/s); db + wal {size / 2**20:.1f} MiB"
        )
        print(f"{'search (limit 20)':24} {'hits':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}")
        for label, query in QUERIES:
            cwd = "/work/project-3" if label == "cwd-scoped" else None
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                hits = storage.search(query, cwd=cwd, limit=20)
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
            print(f"{label:24} {len(hits):5} {statistics.median(times):10.2f} {p95:8.2f} {times[-1]:8.2f}")
        storage.close()


if __name__ == "__main__":
    main()
