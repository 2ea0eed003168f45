#!/usr/bin/env python3
"""A fresh server's first screen and first search (issue 54): bench_scale's corpora (pi sessions,
a quarter in two other machines' kept archives, a rare word in three sessions), a real
``sessiontree serve`` with no folder given, over HTTP alone (no browser):

- fresh (empty cache dir): the time until it prints its URL, the first ``GET /``, then the first
  ``/api/search`` of the rare word (what it found and how many files it said were left);
- the same server stopped (Ctrl-C: it saves its listing) and started again over its cache dir:
  the first ``GET /`` and the first search again.

Each figure is printed with the load average. Usage:
  .venv/bin/python bench/bench_first_screen.py [--sizes 10000,100000] [--keep]
100,000 sessions x 3 turns is about 3 GB under $TMPDIR (written in about a minute), removed at the end.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import RARE, Corpus, load, plant  # noqa: E402


def first_figures(corpus: Corpus, label: str) -> None:
    """Start a server over the corpus, time its first ``GET /`` and its first search, stop it."""
    started = time.perf_counter()
    with corpus.served() as served:
        print(f"  {label}: serving after {(time.perf_counter() - started) * 1000:,.0f} ms; {load()}")
        started = time.perf_counter()
        reply = httpx.get(served.url + "/", timeout=3600)
        page = time.perf_counter() - started
        reply.raise_for_status()
        print(f"  {label}: first GET / {page * 1000:,.0f} ms ({len(reply.content) / 1e3:.0f} kB); {load()}")
        started = time.perf_counter()
        found = httpx.get(served.url + "/api/search", params={"q": RARE}, timeout=3600).json()
        took = time.perf_counter() - started
        print(
            f"  {label}: first search {took * 1000:,.0f} ms ({found.get('sessions', 0)} of 3 sessions, "
            f"{found.get('pending', 0):,} files left); {load()}",
            flush=True,
        )
        served.stop()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="10000,100000", help="session counts, comma-separated")
    parser.add_argument("--keep", action="store_true", help="keep the corpora")
    args = parser.parse_args()
    for sessions in [int(x) for x in args.sizes.split(",")]:
        work = Path(tempfile.mkdtemp(prefix=f"bench-first-{sessions}-"))
        try:
            made = Corpus(work, sessions, 3)
            plant(made.root)
            print(
                f"{sessions:,} sessions x 3 turns ({made.kept:,} kept from other machines); {load()}",
                flush=True,
            )
            first_figures(made, "fresh (empty cache)")
            first_figures(made, "restarted (its cache kept)")
        finally:
            if args.keep:
                print(f"  kept: {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
