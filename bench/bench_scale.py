#!/usr/bin/env python3
"""How browsing costs grow with the archive: every figure of issue 42 at 1,000 and 10,000 sessions.

For each size, a generated corpus of pi sessions (bench_usage's: 40 projects, five models, 25
days; a rare word planted in three sessions), then:

- serve, fresh (empty cache dir): ``GET /``, ``/api/sessions``, ``/api/session-models`` (HTTP,
  bytes); the pane's first rows on a session page and the usage dashboard drawn (Chromium, a new
  context each); the first ``/api/search`` of the rare word (it builds the full-text index);
- serve, warm (the same server): the same, median of ``--repeat``, and the rare word searched;
- serve's peak RSS (VmHWM) and the CPU it used;
- build (``--no-build`` skips it): wall and CPU of ``sessiontree build`` from empty, the bytes of
  the site's index page and of the pane's data every session page fetches (its first file and
  chunks), and the site's search page until Pagefind shows the rare word (median of ``--repeat``).

The load average is printed with every size: quote CPU figures when the machine is not idle.

Usage: .venv/bin/python bench/bench_scale.py [--sizes 1000,10000] [--turns 30,3] [--repeat 3]
       [--no-build] [--keep]
1,000 x 30 turns is about 0.35 GB and 10,000 x 3 turns about 0.4 GB, made under $TMPDIR and
removed at the end (``--keep`` keeps them).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx
from playwright.sync_api import Browser, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_usage import corpus, fresh_page, ours_load  # noqa: E402
from tests.browser.test_site import serve_folder  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.serve.process import Served, serve_process  # noqa: E402

RARE = "zqxjwvrareword"
PANE_DRAWN = "html[data-st-browse]"
"""Set by the pane when it drew its rows (with the ``st-browse-drawn`` performance mark)."""


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} / {five:.2f} on {os.cpu_count()} cores"


def plant(root: Path) -> list[Path]:
    """Append a user message holding the rare word to three sessions."""
    files = sorted(root.rglob("*.jsonl"))
    chosen = [files[0], files[len(files) // 2], files[-1]]
    for path in chosen:
        last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        entry = {"type": "message", "id": f"rare-{path.stem[-6:]}", "parentId": last.get("id")}
        entry["timestamp"] = last.get("timestamp")
        entry["message"] = {"role": "user", "content": f"where is the {RARE} kept?"}
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
    return chosen


def timed(func: Callable[[], object]) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def get(url: str) -> int:
    reply = httpx.get(url, timeout=600)
    reply.raise_for_status()
    return len(reply.content)


def pane_load(browser: Browser, url: str) -> float:
    """A session page until the pane drew its first rows, in the page's clock (seconds)."""
    page = fresh_page(browser)
    page.goto(url, wait_until="commit")
    page.wait_for_selector(PANE_DRAWN, state="attached", timeout=600_000)
    took = page.evaluate("performance.getEntriesByName('st-browse-drawn')[0].startTime") / 1000
    page.context.close()
    return float(took)


def proc_figures(served: Served) -> tuple[float, float]:
    """The server's CPU seconds so far and its peak RSS (MiB)."""
    stat = Path(f"/proc/{served.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    status = Path(f"/proc/{served.proc.pid}/status").read_text()
    hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
    return cpu, hwm / 1024


def med(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.0f} ms {[round(v * 1000) for v in values]}"


def bench_serve(root: Path, work: Path, browser: Browser, repeat: int, session_url: str) -> None:
    with serve_process(root, work / "agent", work / "serve-cache") as served:
        base = served.url
        rows: list[tuple[str, str]] = []
        for label, path in (("GET /", "/"), ("/api/sessions", "/api/sessions")):
            started = time.perf_counter()
            size = get(base + path)
            rows.append(
                (f"{label} cold ({size / 1e3:.0f} kB)", f"{(time.perf_counter() - started) * 1000:7.0f} ms")
            )
        rows.append(
            ("pane first rows, cold (Chromium)", f"{pane_load(browser, base + session_url) * 1000:7.0f} ms")
        )
        rows.append(
            ("/usage drawn, cold (Chromium)", f"{ours_load(browser, base + '/usage') * 1000:7.0f} ms")
        )
        rows.append(
            ("/api/session-models cold", f"{timed(lambda: get(base + '/api/session-models')) * 1000:7.0f} ms")
        )
        search = base + "/api/search?q=" + RARE
        found = 0

        def first_search() -> None:
            nonlocal found
            found = httpx.get(search, timeout=3600).json().get("sessions", 0)

        rows.append(("search, first (builds the index)", f"{timed(first_search) * 1000:7.0f} ms"))
        cold_cpu, _ = proc_figures(served)
        rows.append(
            ("pane first rows, warm", med([pane_load(browser, base + session_url) for _ in range(repeat)]))
        )
        rows.append(("/usage drawn, warm", med([ours_load(browser, base + "/usage") for _ in range(repeat)])))
        rows.append(("GET / warm", med([timed(lambda: get(base + "/")) for _ in range(repeat)])))
        rows.append(
            ("/api/sessions warm", med([timed(lambda: get(base + "/api/sessions")) for _ in range(repeat)]))
        )
        rows.append(
            (
                "/api/session-models warm",
                med([timed(lambda: get(base + "/api/session-models")) for _ in range(repeat)]),
            )
        )
        rows.append(
            (
                f"search rare word, warm ({found} of 3 sessions)",
                med([timed(lambda: get(search)) for _ in range(repeat)]),
            )
        )
        cpu, peak = proc_figures(served)
        rows.append(("serve CPU: cold phase / whole run", f"{cold_cpu:7.1f} s / {cpu:.1f} s"))
        rows.append(("serve peak RSS", f"{peak:7.0f} MiB"))
        served.stop()
    for name, figure in rows:
        print(f"  {name:46s} {figure}")


def site_search(browser: Browser, site: Path, repeat: int) -> None:
    """The site's search page until Pagefind's hits of the rare word are shown (a new context each)."""
    times: list[float] = []
    with serve_folder(site) as url:
        for _ in range(repeat):
            page = fresh_page(browser)
            started = time.perf_counter()
            page.goto(f"{url}/search.html?q={RARE}", wait_until="commit")
            page.wait_for_selector(".st-fulltext-group", timeout=600_000)
            times.append(time.perf_counter() - started)
            page.context.close()
    print(f"  {'site search, rare word (Pagefind, Chromium)':46s} {med(times)}")


def bench_build(root: Path, work: Path, browser: Browser, repeat: int) -> None:
    site = work / "site"
    env = {**os.environ, "XDG_CACHE_HOME": str(work / "build-cache")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "sessiontree", "build", str(root), "-o", str(site), "--quiet"]
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"  {'build from empty':46s} {wall:7.1f} s wall, {cpu:.1f} s CPU (workers included)")
    for name in ("index.html", "sessions.json", "usage.html"):
        path = site / name
        if path.exists():
            print(f"  {'site ' + name:46s} {path.stat().st_size / 1e6:7.2f} MB")
    chunks = sorted(site.glob("sessions-*.json"))
    if chunks:
        largest = max(p.stat().st_size for p in chunks) / 1e3
        print(f"  {'site pane data chunks':46s} {len(chunks)} of at most {largest:.0f} kB")
    site_search(browser, site, repeat)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000", help="session counts, comma-separated")
    parser.add_argument("--turns", default="30,3", help="turns per session for each size")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the corpora and sites")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    turns = [int(x) for x in args.turns.split(",")]
    turns += [turns[-1]] * (len(sizes) - len(turns))
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"bench_scale: {load()}; uptime: {uptime}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for sessions, each in zip(sizes, turns, strict=True):
            work = Path(tempfile.mkdtemp(prefix=f"bench-scale-{sessions}-"))
            started = time.perf_counter()
            root = corpus(work / "corpus", sessions, each)
            plant(root)
            files = sorted(root.rglob("*.jsonl"))
            size = sum(p.stat().st_size for p in files)
            print(
                f"{sessions} sessions x {each} turns, {size / 1e6:.0f} MB "
                f"(made in {time.perf_counter() - started:.0f} s); {load()}"
            )
            key = files[len(files) // 3].relative_to(root).as_posix()
            bench_serve(root, work, browser, args.repeat, "/s/" + key)
            if not args.no_build:
                bench_build(root, work, browser, args.repeat)
            print(f"  {load()}")
            if args.keep:
                print(f"  kept: {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
        browser.close()
    print(f"bench_scale done: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
