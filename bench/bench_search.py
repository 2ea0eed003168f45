"""Benchmark the search index: index a generated archive, follow one append, time queries.

Usage: .venv/bin/python bench/bench_search.py [--size-mb 1024] [--big-mb 100] [--corpus DIR] [--repeat 30]

The archive is made of ../shared/tools/gen_session.py sessions (400 turns, about 4.3 MB each,
distinct seeds, ten projects, spread over sixty days) and kept in --corpus for the next run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

from sessiontree.archive.search import SearchFilters, SearchIndex

ROOT = Path(__file__).resolve().parents[1]
GEN = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared")) / "tools" / "gen_session.py"
if not GEN.exists():
    GEN = Path("/work/shared/tools/gen_session.py")
QUERIES = [
    ("one word", "fsync"),
    ("rare word", "zqrareword"),
    ("phrase", '"atomic writer"'),
    ("prefix", "pars*"),
    ("word + --role tool", "migration"),
    ("plain-text fallback", "c++ (parser"),
]


def _shift(value: str, days: int) -> str:
    when = datetime.fromisoformat(value.replace("Z", "+00:00")) + timedelta(days=days)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_session(path: Path, seed: int, turns: int) -> int:
    """Write one generated session with its own id, project, title and days; return its size."""
    out = subprocess.run(
        [sys.executable, str(GEN), "--turns", str(turns), "--seed", str(seed)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    days = seed % 60
    lines = []
    for n, raw in enumerate(out.splitlines()):
        entry = json.loads(raw)
        if n == 0:
            entry.update(
                id=f"bench-{seed:05d}", cwd=f"/work/project-{seed % 10}", title=f"Bench session {seed}"
            )
        if isinstance(entry.get("timestamp"), str):
            entry["timestamp"] = _shift(entry["timestamp"], days)
        if seed % 97 == 0 and n == 5 and entry.get("type") == "message":
            entry["message"]["content"] = [{"type": "text", "text": "a zqrareword here"}]
        lines.append(json.dumps(entry))
    data = "\n".join(lines) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return len(data.encode("utf-8"))


def _make(args: tuple[str, int, int]) -> int:
    return make_session(Path(args[0]), args[1], args[2])


def build_corpus(folder: Path, size_mb: int) -> int:
    """Fill ``folder`` with sessions until it holds ``size_mb`` MiB (reusing what is there)."""
    total = sum(p.stat().st_size for p in folder.rglob("*.jsonl")) if folder.exists() else 0
    seed = len(list(folder.rglob("*.jsonl"))) if folder.exists() else 0
    with ProcessPoolExecutor(2) as pool:
        while total < size_mb * 2**20:
            batch = [
                (
                    str(folder / f"--work-project-{(seed + i) % 10}--" / f"s{seed + i:05d}.jsonl"),
                    seed + i,
                    400,
                )
                for i in range(8)
            ]
            total += sum(pool.map(_make, batch))
            seed += len(batch)
    return total


def db_size(cache: Path) -> int:
    return sum(p.stat().st_size for p in cache.glob("search.db*"))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_queries(index: SearchIndex, repeat: int) -> None:
    print(f"{'query (limit 20, snippets made)':34} {'hits':>5} {'median ms':>10} {'p95 ms':>8}")
    for label, query in QUERIES:
        filters = SearchFilters(role="tool") if "--role" in label else SearchFilters()
        times = []
        hits = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            hits = index.search(query, filters)
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        print(f"{label:34} {len(hits):5} {statistics.median(times):10.1f} {p95:8.1f}")
    times = []
    for _ in range(max(3, repeat // 5)):
        t0 = time.perf_counter()
        index.update()
        index.search("fsync")
        times.append((time.perf_counter() - t0) * 1000)
    print(f"{'update (no change) + one word':34} {'':5} {statistics.median(times):10.1f} {max(times):8.1f}")


def bench_append(folder: Path, big_mb: int, cache: Path) -> None:
    """One session of ``big_mb`` MiB: index it, append one line, time the update."""
    path = folder / "big" / "big.jsonl"
    if not path.exists() or path.stat().st_size < big_mb * 2**20 * 0.9:
        make_session(path, 100_000, turns=big_mb * 93)
    size = path.stat().st_size
    with SearchIndex([path.parent], cache) as index:
        t0 = time.perf_counter()
        index.update()
        whole = time.perf_counter() - t0
        last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
        entry = {
            "type": "message",
            "id": "bench-append",
            "parentId": last.get("id"),
            "timestamp": "2026-04-01T10:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "zqappended words"}]},
        }
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
        t0 = time.perf_counter()
        report = index.update()
        append = time.perf_counter() - t0
        assert [h.entry_id for h in index.search("zqappended")] == ["bench-append"]
        path.write_bytes(path.read_bytes()[: -len(json.dumps(entry)) - 1])  # leave the corpus as it was
    print(
        f"incremental: {size / 2**20:.0f} MiB session indexed whole in {whole:.1f} s; "
        f"one appended line indexed in {append * 1000:.1f} ms ({report.rows} row, {report.appended} file)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--big-mb", type=int, default=100)
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-bench-corpus"
    )
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    sessions = args.corpus / f"sessions-{args.size_mb}"
    t0 = time.perf_counter()
    total = build_corpus(sessions, args.size_mb)
    files = len(list(sessions.rglob("*.jsonl")))
    print(f"corpus: {files} sessions, {total / 2**20:.0f} MiB (ready in {time.perf_counter() - t0:.0f} s)")
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        cache = Path(tmp) / "cache"
        with SearchIndex([sessions], cache) as index:
            t0 = time.perf_counter()
            report = index.update()
            took = time.perf_counter() - t0
            size = db_size(cache)
            print(
                f"index from empty: {took:.1f} s ({total / 2**20 / took:.1f} MiB/s), {report.rows:,} rows; "
                f"index {size / 2**20:.0f} MiB = {size / total:.2f} of the sessions; "
                f"peak RSS {peak_rss_mib():.0f} MiB"
            )
            t0 = time.perf_counter()
            index.update()
            print(f"update with nothing changed: {(time.perf_counter() - t0) * 1000:.1f} ms ({files} files)")
            bench_queries(index, args.repeat)
            t0 = time.perf_counter()
            records = index.usage()
            print(f"usage records: {len(records):,} read in {(time.perf_counter() - t0) * 1000:.0f} ms")
        bench_append(args.corpus, args.big_mb, Path(tmp) / "big-cache")


if __name__ == "__main__":
    main()
