#!/usr/bin/env python3
"""Every headline figure of issue 39 in one run (``scripts/bench``): figures printed, nothing asserted.

On the generated 2,000-turn conversation (../shared/tools/gen_session.py, or the copy in
tests/tools when ../shared is absent), medians of --runs, CPU (user+sys of the process and the
children it waited for) beside wall, the load average first:

- first export (empty cache) and warm export against claude-code-transcripts (installed from
  PyPI into .bench-venv, never into .venv) on the same conversation in its Claude Code form:
  wall, CPU, peak RSS and the ratios;
- the cache tax: a first export's CPU over ``export --no-cache``'s;
- serve in Chromium: a fresh ``sessiontree serve`` process (given a second after it prints its
  address, as a reader takes to open it), navigation to the first prompt visible, first visit,
  then a second visit (a new tab) on the same server; with --big-turns also a ~100 MB session;
- ``share --dry-run``'s CPU beyond ``export --no-cache`` (the redaction);
- ``search`` as a whole process for a rare word of the session on a warm index;
- a fresh process's first highlighting of five languages (bench_highlight.py).

Usage: scripts/bench [--turns 2000] [--runs 3] [--big-turns 0]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_highlight import first_use_cpu, first_use_samples  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.serve.process import serve_process  # noqa: E402

SHARED_GEN = ROOT.parent / "shared" / "tools" / "gen_session.py"
GEN = SHARED_GEN if SHARED_GEN.is_file() else ROOT / "tests" / "tools" / "gen_session.py"
PEER = "claude-code-transcripts"
PEERS_VENV = ROOT / ".bench-venv"
ST = [sys.executable, "-m", "sessiontree"]

Run = tuple[float, float, float]  # wall s, CPU s, peak RSS MiB


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def gen(turns: int, out: Path, *more: str) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(GEN), "--turns", str(turns), "--seed", "1", *more, "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


def timed(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None) -> Run:
    """Wall seconds, CPU seconds (with the children it waited for) and peak RSS of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1) or (b"Traceback" in err):
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def med(rows: list[Run]) -> Run:
    return (
        statistics.median(r[0] for r in rows),
        statistics.median(r[1] for r in rows),
        statistics.median(r[2] for r in rows),
    )


def peer_bin() -> Path | None:
    """claude-code-transcripts in .bench-venv (made and filled on first use), or None."""
    exe = PEERS_VENV / "bin" / PEER
    if not exe.exists():
        if not (PEERS_VENV / "bin" / "pip").exists():
            subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
        pip = [str(PEERS_VENV / "bin" / "pip"), "install", "-q", PEER]
        subprocess.run(pip, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return exe if exe.exists() else None


def show(name: str, run: Run, base: Run | None = None) -> None:
    line = f"  {name:28s} wall {run[0]:6.2f} s  cpu {run[1]:6.2f} s  peak {run[2]:5.0f} MiB"
    if base is not None:
        ratios = (run[0] / base[0], run[1] / base[1], run[2] / base[2])
        line += "  vs {}: wall {:.2f}x cpu {:.2f}x rss {:.2f}x".format(PEER, *ratios)
    print(line, flush=True)


def bench_export(ours: Path, theirs: Path, runs: int, work: Path) -> float:
    """Print the export figures; return ``export --no-cache``'s median CPU."""
    out, cache = work / "out", work / "export-cache"
    out.mkdir(parents=True, exist_ok=True)
    peer = peer_bin()
    commands: dict[str, list[str]] = {
        "first export (empty cache)": [
            *ST,
            "export",
            str(ours),
            str(out / "a.html"),
            "--cache-dir",
            str(cache),
        ],
        "warm export (same file)": [*ST, "export", str(ours), str(out / "b.html"), "--cache-dir", str(cache)],
        "export --no-cache": [*ST, "export", str(ours), str(out / "c.html"), "--no-cache"],
    }
    if peer is not None:
        commands[PEER] = [str(peer), "json", str(theirs), "-o", str(out / "cct")]
    rows: dict[str, list[Run]] = {name: [] for name in commands}
    timed(commands["export --no-cache"])  # the files in the OS's page cache, the bytecode written
    for _ in range(runs):
        for name, cmd in commands.items():
            if name.startswith("first export"):
                shutil.rmtree(cache, ignore_errors=True)
            if name == PEER:
                shutil.rmtree(out / "cct", ignore_errors=True)
            rows[name].append(timed(cmd))
    print(f"export, {ours.stat().st_size / 1e6:.1f} MB session, median of {runs}; {load()}")
    base = med(rows[PEER]) if peer is not None else None
    if base is None:
        print(f"  ({PEER} could not be installed into {PEERS_VENV}: no ratios)")
    for name, values in rows.items():
        show(name, med(values), None if name == PEER else base)
    cold, bare = med(rows["first export (empty cache)"]), med(rows["export --no-cache"])
    print(f"  cache tax (first export cpu / --no-cache cpu): {cold[1] / bare[1]:.3f}x")
    same = len({(out / n).read_bytes() for n in ("a.html", "b.html", "c.html")}) == 1
    print(f"  the three pages byte-identical: {same}", flush=True)
    return bare[1]


def bench_share(ours: Path, runs: int, work: Path, export_cpu: float) -> None:
    folder = work / "share-out"
    folder.mkdir(exist_ok=True)
    cpu = []
    for i in range(runs):
        env = {**os.environ, "XDG_CACHE_HOME": str(work / f"share-cache-{i}")}  # nothing cached before
        cpu.append(timed([*ST, "share", str(ours), "--dry-run"], cwd=folder, env=env)[1])
    share = statistics.median(cpu)
    print(f"share --dry-run, median of {runs}; {load()}")
    print(f"  cpu {share:.2f} s; beyond export --no-cache ({export_cpu:.2f} s): {share - export_cpu:.2f} s")


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            yield value["text"]
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def rare_word(path: Path) -> str:
    """A word of six letters or more in exactly one message text of the session (the rarest)."""
    counts: collections.Counter[str] = collections.Counter()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            for text in _texts(json.loads(line)):
                counts.update(set(re.findall(r"\b[a-z]{6,}\b", text)))
    return min(counts, key=lambda w: (counts[w], w))


def bench_search(ours: Path, runs: int, work: Path) -> None:
    root, cache = ours.parent, work / "search-cache"
    word = rare_word(ours)
    cmd = [*ST, "search", word, "--root", str(root), "--cache-dir", str(cache)]
    timed(cmd)  # builds the index
    timed(cmd)  # and once warm
    rows = [timed(cmd) for _ in range(runs)]
    wall, cpu, rss = med(rows)
    print(f"search for a rare word ({word!r}) on a warm index, the whole process, median of {runs}; {load()}")
    print(f"  wall {wall * 1000:.0f} ms  cpu {cpu * 1000:.0f} ms  peak {rss:.0f} MiB")


# In the page's own clock (ms from navigation start): when the server's first byte came, when
# the first prompt was in the DOM, and the frame after it (its paint): where a visit's time goes
# beside the wall time Playwright sees (its own round trips included).
_IN_PAGE = """
window.__stFirst = {};
new MutationObserver((records, observer) => {
  if (!document.querySelector('.st-entry.st-user')) return;
  observer.disconnect();
  window.__stFirst.dom = performance.now();
  requestAnimationFrame(() => setTimeout(() => { window.__stFirst.painted = performance.now(); }, 0));
}).observe(document, { childList: true, subtree: true });
"""
_IN_PAGE_READ = """() => new Promise((resolve) => {
  const done = () => window.__stFirst.painted !== undefined;
  const give = () => resolve({
    byte: performance.getEntriesByType('navigation')[0].responseStart,
    dom: window.__stFirst.dom, painted: window.__stFirst.painted,
  });
  if (done()) give(); else { const t = setInterval(() => { if (done()) { clearInterval(t); give(); } }, 5); }
})"""


def to_first_prompt(browser: object, url: str, in_page: list[dict[str, float]] | None = None) -> float:
    """Seconds from navigating a new tab to the first prompt shown (and, into ``in_page``, the
    page's own times of its first byte, the prompt in the DOM and painted)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    try:
        if in_page is not None:
            page.add_init_script(_IN_PAGE)
        start = time.perf_counter()
        page.goto(url, wait_until="commit", timeout=120_000)
        page.wait_for_selector(".st-entry.st-user", state="visible", timeout=120_000)
        spent = time.perf_counter() - start
        if in_page is not None:
            in_page.append(page.evaluate(_IN_PAGE_READ))
        return spent
    finally:
        page.close()


def _in_page_medians(rows: list[dict[str, float]]) -> str:
    return ", ".join(
        f"{label} {statistics.median(row[name] for row in rows) / 1000:.2f}"
        for name, label in (("byte", "first byte"), ("dom", "prompt in the DOM"), ("painted", "painted"))
    )


def bench_serve(source: Path, runs: int, work: Path, label: str) -> None:
    from playwright.sync_api import sync_playwright

    key = "--bench--/session.jsonl"
    agent = work / f"agent-{label}"
    (agent / "sessions" / key).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, agent / "sessions" / key)
    first: list[float] = []
    second: list[float] = []
    first_in: list[dict[str, float]] = []
    second_in: list[dict[str, float]] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for i in range(runs):
                with serve_process(agent / "sessions", agent, work / f"serve-cache-{label}-{i}") as server:
                    url = server.url
                    time.sleep(1.0)  # a reader opens the address a moment after it is printed
                    first.append(to_first_prompt(browser, f"{url}/s/{key}", first_in))
                    second.append(to_first_prompt(browser, f"{url}/s/{key}", second_in))
        finally:
            browser.close()
    size = source.stat().st_size / 1e6
    print(f"serve in Chromium, {size:.0f} MB session, a fresh server each run, median of {runs}; {load()}")
    print(f"  first prompt on screen: first visit {statistics.median(first):.2f} s, "
          f"second visit {statistics.median(second):.2f} s")  # fmt: skip
    print(f"  in the page's clock (s): first visit {_in_page_medians(first_in)}; "
          f"second visit {_in_page_medians(second_in)}")  # fmt: skip


def bench_highlight(runs: int) -> None:
    lines = sum(code.count("\n") + 1 for code in first_use_samples().values())
    cpu = first_use_cpu("exporter", runs)
    print(f"a fresh process's first highlighting of 5 languages ({lines} lines), median of {runs}; {load()}")
    print(f"  cpu {cpu * 1000:.0f} ms" if cpu is not None else "  failed")


def _commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--big-turns", type=int, default=0, help="also serve a session this long (9500: ~100 MB)")
    args = ap.parse_args()
    # Measured as installed: with the bytecode written once and read after (an environment that
    # forbids writing it makes every process compile the package: +0.15 s of CPU for search).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    print(f"uptime: {subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    version = subprocess.run([*ST, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{version}; commit {_commit()}; generator {GEN}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="sessiontree-bench-"))
    try:
        ours = gen(args.turns, work / "sessions" / "session.jsonl")
        theirs = gen(args.turns, work / "claude" / "claude.jsonl", "--format", "claude")
        steps: list[Callable[[], object]] = [
            lambda: bench_highlight(args.runs),
            lambda: bench_search(ours, args.runs, work),
            lambda: bench_serve(ours, args.runs, work, "main"),
        ]
        export_cpu = bench_export(ours, theirs, args.runs, work)
        for step in steps:
            step()
        bench_share(ours, args.runs, work, export_cpu)
        if args.big_turns:
            big = gen(args.big_turns, work / "big" / "session.jsonl")
            bench_serve(big, args.runs, work, "big")
        print(f"done; {load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
