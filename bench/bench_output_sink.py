"""Benchmark OutputSink: throughput and peak memory for streamed output (default 500 MB in 4 KB chunks).

Each mode runs in its own process so its peak RSS (VmHWM) is its own:
- ``tail``:  no artifact path, tail-only truncation;
- ``spill``: everything past 50 KB goes to an artifact file (in a temp dir, removed afterwards).

Content: ``plain`` log lines (nothing to strip) or ``ansi`` (colour codes and CRLFs to strip).

Usage: .venv/bin/python bench/bench_output_sink.py [--mb 500] [--chunk 4096] [--mode tail|spill|both]
       [--content plain|ansi|both]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sessiontree.store.output_sink import DEFAULT_MAX_BYTES, OutputSink


def rss_kib(field: str) -> int:
    """Return a memory figure of this process from /proc/self/status, in KiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def make_chunks(size: int, content: str, count: int = 64) -> list[bytes]:
    """Build varied log-like chunks with multibyte text; ``ansi`` adds colour codes and CRLFs."""
    rng = random.Random(4)
    words = ["compiling", "test", "PASSED", "warning:", "naïve", "日本語", "ε", "\t", "x" * 20, "ok"]
    if content == "ansi":
        words[-1] = "\x1b[32mok\x1b[0m"
    chunks = []
    for _ in range(count):
        out = bytearray()
        while len(out) < size:
            line = " ".join(rng.choice(words) for _ in range(rng.randint(3, 15)))
            crlf = content == "ansi" and rng.random() < 0.1
            out += (line + ("\r\n" if crlf else "\n")).encode()
        chunks.append(bytes(out[:size]))  # cut anywhere: split UTF-8 sequences exercise the decoder
    return chunks


def run_mode(mode: str, content: str, total_mb: int, chunk_size: int) -> None:
    """Stream ``total_mb`` MB through one sink and print one result line."""
    chunks = make_chunks(chunk_size, content)
    n_chunks = total_mb * 1024 * 1024 // chunk_size
    with tempfile.TemporaryDirectory(prefix="bench-sink-") as tmp:
        path = Path(tmp) / "0.bash.log" if mode == "spill" else None
        base = rss_kib("VmRSS")
        sink = OutputSink(path, "0" if path else None)
        start = time.perf_counter()
        for i in range(n_chunks):
            sink.push(chunks[i % len(chunks)])
        summary = sink.dump()
        elapsed = time.perf_counter() - start
        peak = rss_kib("VmHWM")
        written = path.stat().st_size if path else 0
    mb = n_chunks * chunk_size / (1024 * 1024)
    print(
        f"{mode:5} {content:5}  {mb:5.0f} MB in {chunk_size} B chunks  {elapsed:6.2f} s  "
        f"{mb / elapsed:7.1f} MB/s  "
        f"RSS before {base / 1024:6.1f} MiB, peak {peak / 1024:6.1f} MiB (+{(peak - base) / 1024:.1f})  "
        f"tail {summary.output_bytes} B (window {DEFAULT_MAX_BYTES} B)  artifact {written / 2**20:.0f} MiB  "
        f"lines {summary.total_lines}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--chunk", type=int, default=4096)
    parser.add_argument("--mode", choices=["tail", "spill", "both"], default="both")
    parser.add_argument("--content", choices=["plain", "ansi", "both"], default="both")
    args = parser.parse_args()
    if args.mode != "both" and args.content != "both":
        run_mode(args.mode, args.content, args.mb, args.chunk)
        return
    for content in ("plain", "ansi") if args.content == "both" else (args.content,):
        for mode in ("tail", "spill") if args.mode == "both" else (args.mode,):
            cmd = [sys.executable, __file__, "--mode", mode, "--content", content]
            subprocess.run([*cmd, "--mb", str(args.mb), "--chunk", str(args.chunk)], check=True)


if __name__ == "__main__":
    main()
