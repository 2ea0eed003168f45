"""A small probe of serve's memory and usage answers at one size (issue 54): a real ``sessiontree
serve`` over a generated archive (``bench_scale``'s corpus: a quarter in two other machines'
kept archives) with an empty cache; it waits until the listing has read every file (never for the
search index, which ``bench_scale`` waits ~16 minutes for at 100,000), then times ``/usage``
drawn in Chromium cold and warm (and cold again on a server restarted over its cache, ``--repeat``
times: it answers from the usage store before its first listing is made), ``/api/usage-sessions``
for a filter change, ``/api/session-models``, and reads serve's peak RSS (VmHWM).

    .venv/bin/python bench/probe_usage_memory.py --sessions 10000 [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import Corpus, load, proc_figures  # noqa: E402
from bench_usage import ours_load  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


def settle(url: str) -> float:
    """Seconds until the usage page no longer says it is counting (every listed file read); asked
    every 5 s (each answer totals every session counted so far: asked more often, at 100,000 the
    probe's own requests slowed the pass it waits for)."""
    started = time.perf_counter()
    while b"data-counting" in httpx.get(url + "/usage", timeout=600).content:
        time.sleep(5)
    return time.perf_counter() - started


def filters(base: str) -> None:
    """How long ``/api/usage-sessions`` takes to answer a filter change (a project, a model, a range
    of days): the first time, and again (each answer cached per listing version)."""
    found = re.search(
        rb'id="st-usage-data">(.*?)</script>', httpx.get(base + "/usage", timeout=600).content, re.S
    )
    data = json.loads(found.group(1)) if found else {}
    times = data.get("times") or [0]
    asked = {
        "project": {"project": (data.get("projects") or [""])[0]},
        "model": {"model": (data.get("models") or [""])[0]},
        "days": {"since": times[len(times) // 2], "until": times[-1]},
    }
    for name, params in asked.items():
        took = []
        for _ in range(2):
            t0 = time.perf_counter()
            reply = httpx.get(base + "/api/usage-sessions", params=params, timeout=600)
            took.append((time.perf_counter() - t0) * 1000)
        print(
            f"/api/usage-sessions by {name}: {reply.json().get('count')} sessions, "
            f"{took[0]:.0f} ms, again {took[1]:.0f} ms ({load()})"
        )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="a folder to make (or reuse) the corpus in")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="probe-usage-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    corpus = Corpus(work, args.sessions, args.turns)
    print(f"corpus of {args.sessions:,} sessions in {time.perf_counter() - started:.0f} s ({load()})")
    for cache in (work / "serve-cache",):
        if cache.exists():
            os.system(f"rm -rf {cache}")  # an empty cache: the cold figures
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            with corpus.served() as served:
                base = served.url
                cold = ours_load(browser, base + "/usage")
                print(f"/usage drawn, cold (first, maybe counting): {cold * 1000:.0f} ms ({load()})")
                print(f"listing settled after {settle(base):.1f} s more")
                fresh = ours_load(browser, base + "/usage")
                print(f"/usage drawn, first after settling: {fresh * 1000:.0f} ms ({load()})")
                warm = [ours_load(browser, base + "/usage") for _ in range(args.repeat)]
                shown = ", ".join(f"{w * 1000:.0f}" for w in warm)
                print(
                    f"/usage drawn, warm: median {statistics.median(warm) * 1000:.0f} ms [{shown}] ({load()})"
                )
                size = len(httpx.get(base + "/usage", timeout=600).content)
                filters(base)
                t0 = time.perf_counter()
                models = len(httpx.get(base + "/api/session-models", timeout=600).content)
                took = time.perf_counter() - t0
                print(
                    f"/usage {size / 1e6:.2f} MB; /api/session-models {models / 1e6:.2f} MB "
                    f"in {took * 1000:.0f} ms"
                )
                cpu, peak = proc_figures(served)
                print(f"serve peak RSS (VmHWM) {peak:.0f} MiB, CPU {cpu:.1f} s ({load()})")
            for n in range(args.repeat):  # killed and started again over its cache dir
                with corpus.served() as served:
                    cold = ours_load(browser, served.url + "/usage")
                    said = re.search(rb'data-counting="([^"]*)"', httpx.get(served.url + "/usage").content)
                    state = f"counting: {said.group(1).decode()}" if said else "counted"
                    print(f"/usage drawn, restarted {n + 1}: {cold * 1000:.0f} ms, then {state} ({load()})")
                    settle(served.url)
                    cpu, peak = proc_figures(served)
                    print(f"  restarted serve peak RSS (VmHWM) {peak:.0f} MiB, CPU {cpu:.1f} s ({load()})")
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
