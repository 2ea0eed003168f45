#!/usr/bin/env python3
"""Highlighting (issues 35 and 39): figures printed, nothing asserted.

Throughput: every fenced block of every real fixture, highlighted to our HTML through Pygments'
own RegexLexer loop and through exporter/fastlex.py (the same tokens, fewer regex attempts).
First use: a fresh process's first highlighting of five languages (~60 lines each, from this
repository's own files), as the exporter does it (Pygments' loop until a lexer has done 50 kB)
and with the fast driver from the first character; with ``--peers``, the native highlighters
syntect-py and fastpylight too when they are installed (they are not dependencies).
CPU seconds, medians of --runs, the load printed.
Usage: .venv/bin/python bench/bench_highlight.py [--runs 3] [--first-use-only] [--peers]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from sessiontree.exporter import fastlex, highlight
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


def _head(path: Path, lines: int = 60) -> str:
    return "".join(path.read_text(encoding="utf-8").splitlines(True)[:lines])


def first_use_samples() -> dict[str, str]:
    """Five languages of ~60 lines each, from files every clone has."""
    data = {f"key{i}": [i, f"<value {i}>", {"on": True, "off": None, "ratio": i / 7}] for i in range(12)}
    return {
        "python": _head(ROOT / "src/sessiontree/exporter/highlight.py"),
        "typescript": _head(ROOT / "src/sessiontree/templates/index.js"),
        "bash": _head(ROOT / "scripts/setup"),
        "json": json.dumps(data, indent=2),
        "markdown": _head(ROOT / "README.md"),
    }


# Run in a fresh interpreter: the CPU of importing the engine and highlighting each sample once.
_FIRST_USE = """
import json, sys, time
samples = json.loads(sys.stdin.read())
engine = sys.argv[1]
start = time.process_time()
if engine in ("exporter", "fastlex"):
    from sessiontree.exporter import fastlex, highlight
    if engine == "fastlex":
        fastlex.expect_bulk()
    for lang, code in samples.items():
        highlight.highlight_code(code, highlight.lexer_by_name(lang))
elif engine == "syntect":
    import syntect
    syntaxes = syntect.load_assets().get_syntax_set()
    for lang, code in samples.items():
        html = syntect.ClassedHTMLGenerator(
            syntaxes.find_syntax_by_token(lang), syntaxes, syntect.ClassStyle.spaced())
        for line in code.splitlines(True):
            html.parse_html_for_line_which_includes_newline(line)
        html.finalize()
elif engine == "fastpylight":
    import fastpylight
    for lang, code in samples.items():
        fastpylight.tokenize(code, lang)
print(time.process_time() - start)
"""


def first_use_cpu(engine: str, runs: int) -> float | None:
    """Median CPU seconds of a fresh process's first highlighting (None: the engine is missing)."""
    samples = json.dumps(first_use_samples())
    times = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", _FIRST_USE, engine], input=samples, capture_output=True, text=True
        )
        if done.returncode != 0:
            return None
        times.append(float(done.stdout))
    return statistics.median(times)


def print_first_use(runs: int, peers: bool) -> None:
    lines = sum(code.count("\n") + 1 for code in first_use_samples().values())
    print(f"a fresh process's first highlighting of 5 languages ({lines} lines), CPU, median of {runs}:")
    engines = ["exporter", "fastlex"] + (["syntect", "fastpylight"] if peers else [])
    for engine in engines:
        cpu = first_use_cpu(engine, runs)
        shown = "not installed" if cpu is None else f"{cpu * 1000:6.0f} ms"
        print(f"  {engine:11s} {shown}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--first-use-only", action="store_true", help="skip the fixtures' throughput")
    ap.add_argument("--peers", action="store_true", help="native highlighters too, if installed")
    args = ap.parse_args()
    runs = args.runs
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load {load} on {os.cpu_count()} cores")
    print_first_use(runs, args.peers)
    if args.first_use_only or not REAL.is_dir():
        return
    code = blocks()
    fastlex.expect_bulk()  # the fast driver itself, not its warm-up through Pygments' loop
    for lexer, text in code:  # warm-up: lexers built, fastlex's per-lexer probe done
        fastlex_html(lexer, text)
    same = all(pygments_html(lx, c) == fastlex_html(lx, c) for lx, c in code)
    size = sum(len(c) for _, c in code)
    print(f"throughput: the real fixtures' {len(code)} fenced blocks, {size / 1e3:.0f} kB, {runs} runs")
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
