#!/usr/bin/env python3
"""Highlighting of the real fixtures' code (issue 35 item 2): figures printed, nothing asserted.

Every fenced block of every real fixture, highlighted to our HTML through Pygments' own
RegexLexer loop and through exporter/fastlex.py (the same tokens, fewer regex attempts);
CPU seconds, medians of --runs, the load printed.
Usage: .venv/bin/python bench/bench_highlight.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import time
from pathlib import Path
from typing import Any

from sessiontree.exporter import highlight
from sessiontree.exporter.fastlex import lex

ROOT = Path(__file__).resolve().parents[1]
REAL = Path(os.environ.get("SESSIONTREE_SHARED", ROOT.parent / "shared")) / "fixtures" / "real"
FENCE = re.compile(r"^```([A-Za-z0-9_+-]+)\n(.*?)^```", re.M | re.S)


def blocks() -> list[tuple[Any, str]]:
    found = []
    for path in sorted(REAL.rglob("*.jsonl")):
        text = path.read_text(encoding="utf-8", errors="replace").replace("\\n", "\n")
        for lang, code in FENCE.findall(text):
            lexer = highlight.lexer_by_name(lang)
            if lexer is not None:
                found.append((lexer, code))
    return found


def pygments_html(lexer: Any, code: str) -> str:
    return highlight._format_tokens(lexer.get_tokens_unprocessed(code))


def fastlex_html(lexer: Any, code: str) -> str:
    return highlight._format_tokens(lex(lexer, code))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    runs = ap.parse_args().runs
    code = blocks()
    for lexer, text in code:  # warm-up: lexers built, fastlex's per-lexer probe done
        fastlex_html(lexer, text)
    same = all(pygments_html(lx, c) == fastlex_html(lx, c) for lx, c in code)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    size = sum(len(c) for _, c in code)
    print(
        f"{len(code)} fenced blocks, {size / 1e3:.0f} kB, {runs} runs; load {load} on {os.cpu_count()} cores"
    )
    figures = {}
    for name, fn in (("pygments", pygments_html), ("fastlex", fastlex_html)):
        times = []
        for _ in range(runs):
            start = time.process_time()
            for lexer, text in code:
                fn(lexer, text)
            times.append(time.process_time() - start)
        figures[name] = statistics.median(times)
        print(f"  {name:9s} cpu {figures[name]:6.3f} s")
    print(f"  fastlex / pygments: {figures['fastlex'] / figures['pygments']:.2f}x; same HTML: {same}")


if __name__ == "__main__":
    main()
