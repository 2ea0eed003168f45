#!/usr/bin/env python3
"""What containing every decoded line costs: the real session files read with and without it.

Per line, ``decode_line`` clamps numbers while decoding (parse hooks), replaces lone surrogates
(only on lines holding a surrogate escape) and drops wrong-typed naming fields. Prints, for
the real files of every format: json's plain decode against ``decode_line``, then ``load_any``
of every file with each decoder; medians of interleaved runs. Figures, not assertions. Usage:
  .venv/bin/python bench/bench_contain.py [--runs 9]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sessiontree.store.jsonl as jsonl
from sessiontree.readers import load_any

REAL = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "real"


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def decode_all(decode: Callable[[str], Any], lines: list[str]) -> None:
    for line in lines:
        with contextlib.suppress(ValueError):
            decode(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    files = sorted(REAL.rglob("*.jsonl"))
    lines = [line for f in files for line in f.read_text(encoding="utf-8").split("\n") if line.strip()]
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} real files, {size / 1e6:.1f} MB, {len(lines):,} lines; median of {args.runs} runs")
    plain, contained = json.JSONDecoder().decode, jsonl.decode_line
    decoders = {"json.decode": plain, "decode_line": contained}
    times: dict[str, list[float]] = {name: [] for name in decoders}
    loads: dict[str, list[float]] = {name: [] for name in decoders}
    for _ in range(args.runs):
        for name, decode in random.sample(list(decoders.items()), len(decoders)):
            times[name].append(timed(lambda d=decode: decode_all(d, lines)))  # type: ignore[misc]
            jsonl.decode_line = decode  # what parse_jsonl_lines calls for every reader
            loads[name].append(timed(lambda: [load_any(f) for f in files]))
            jsonl.decode_line = contained
    for label, table in (("decode every line", times), ("load_any every file", loads)):
        base, ours = statistics.median(table["json.decode"]), statistics.median(table["decode_line"])
        print(f"{label}: plain {base * 1000:.0f} ms, contained {ours * 1000:.0f} ms ({ours / base:.2f}x)")


if __name__ == "__main__":
    main()
