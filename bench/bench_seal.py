#!/usr/bin/env python3
"""Encrypted shares' figures (issue 51): figures printed, nothing asserted.

On the generated 2,000-turn session (../shared/tools/gen_session.py, seed 1, as bench/headline.py
makes it), the load average first:

- the plain page's size, the sealed page's size and their ratio (target <= 1.4x);
- sealing's CPU in-process (compress, encrypt, base64, the sealed page), median of --runs;
- share's extra CPU: ``sessiontree share --yes`` as a whole process (a share script in a temporary
  agent dir takes the page: no network), encrypted against ``--no-encrypt``, medians of --runs
  (target <= 0.3 s);
- decryption in Chromium after the page's first byte: the sealed page served by a
  ``python -m http.server`` process on 127.0.0.1, opened with its key; from the navigation's
  responseStart to the sealed script's ``st-sealed-opened`` mark (decrypted, inflated, about to be
  written), and on to the viewer's ``data-st-ready`` (target <= 300 ms for the first);
- a password page (``export --password``): PBKDF2-SHA-256's 600,000 rounds in Python and in
  Chromium (from Enter to the page decrypted).

Usage: .venv/bin/python bench/bench_seal.py [--turns 2000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.test_site import serve_folder  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from sessiontree.exporter.seal import key_text, new_key, seal_page, seal_page_with_password  # noqa: E402
from sessiontree.pages.export import export_to_file  # noqa: E402

SHARED_GEN = ROOT.parent / "shared" / "tools" / "gen_session.py"
GEN = SHARED_GEN if SHARED_GEN.is_file() else ROOT / "tests" / "tools" / "gen_session.py"
ST = [sys.executable, "-m", "sessiontree"]
TIMES = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = (name) => performance.getEntriesByName(name)[0].startTime;
  return { first: nav.responseStart, last: nav.responseEnd, start: mark('st-sealed-start'),
           opened: mark('st-sealed-opened'), ready: performance.now() };
}"""


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu(cmd: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + sys) of one whole process and the children it waited for."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err.decode(errors='replace')[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def bench_sizes(plain: str, runs: int) -> str:
    times = []
    for _ in range(runs):
        start = cpu()
        sealed = seal_page(plain, new_key())
        times.append(cpu() - start)
    plain_size, sealed_size = len(plain.encode("utf-8")), len(sealed.encode("utf-8"))
    print(f"page sizes: plain {plain_size / 1e6:.2f} MB, sealed {sealed_size / 1e6:.2f} MB")
    print(f"  sealed / plain: {sealed_size / plain_size:.3f}x")
    print(f"sealing in-process, CPU median of {runs}: {statistics.median(times):.3f} s; {load()}")
    return sealed


def bench_share(session: Path, runs: int, work: Path) -> None:
    agent = work / "agent"
    agent.mkdir()
    (agent / "share.py").write_text("def share(html_path):\n    return 'https://pages.example.test/1'\n")
    rows: dict[str, list[float]] = {"encrypted": [], "--no-encrypt": []}
    for i in range(runs):
        for label in rows:
            env = {**os.environ, "SESSIONTREE_AGENT_DIR": str(agent), "XDG_CACHE_HOME": str(work / f"c{i}")}
            more = ["--no-encrypt"] if label == "--no-encrypt" else []
            rows[label].append(
                process_cpu([*ST, "share", "--yes", "--no-open", *more, str(session)], env, work)
            )
    enc, plain = statistics.median(rows["encrypted"]), statistics.median(rows["--no-encrypt"])
    print(f"share --yes through a share script, whole process CPU, median of {runs}; {load()}")
    print(f"  encrypted {enc:.2f} s, --no-encrypt {plain:.2f} s: extra {enc - plain:+.2f} s")


def bench_password(plain: str, runs: int, work: Path) -> None:
    from playwright.sync_api import sync_playwright

    start = cpu()
    locked = seal_page_with_password(plain.encode("utf-8"), "correct horse")
    print(f"password page sealed (PBKDF2 600,000 rounds included): {cpu() - start:.2f} s of CPU; {load()}")
    path = work / "locked.html"
    path.write_text(locked, encoding="utf-8")
    opened = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(runs):
            page = browser.new_page()
            page.goto(path.as_uri())
            page.get_by_label("Password").fill("correct horse")
            begin = page.evaluate("performance.now()")
            page.keyboard.press("Enter")
            page.wait_for_selector("html[data-st-ready]", timeout=120_000)
            opened.append(
                page.evaluate("performance.getEntriesByName('st-sealed-opened')[0].startTime") - begin
            )
            page.close()
        browser.close()
    median = statistics.median(opened)
    print(f"  Chromium, Enter -> decrypted (PBKDF2, AES-GCM, inflate), median of {runs}: {median:.0f} ms")


def bench_browser(sealed: str, key: str, runs: int, work: Path) -> None:
    from playwright.sync_api import sync_playwright

    site = work / "site"
    site.mkdir()
    (site / "sealed.html").write_text(sealed, encoding="utf-8")
    (site / "favicon.ico").write_bytes(b"")
    rows: dict[str, list[float]] = {k: [] for k in ("last", "start", "opened", "decrypt", "ready")}
    with serve_folder(site) as server, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for _ in range(runs):
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{server}/sealed.html#{key}")
            page.wait_for_selector("html[data-st-ready]", timeout=120_000)
            t = page.evaluate(TIMES)
            for name in ("last", "start", "opened", "ready"):
                rows[name].append(t[name] - t["first"])
            rows["decrypt"].append(t["opened"] - t["start"])
            page.close()
        browser.close()
    print(f"Chromium, the sealed page over http://127.0.0.1, median of {runs}; {load()}")
    ms = {name: statistics.median(values) for name, values in rows.items()}
    print(f"  first byte -> decrypted and inflated (st-sealed-opened): {ms['opened']:.0f} ms")
    received, started = ms["last"], ms["start"]
    print(f"    of which: first byte -> last byte {received:.0f} ms, -> script runs {started:.0f} ms;")
    print(f"    the script: key, base64, AES-GCM, inflate {ms['decrypt']:.0f} ms")
    print(f"  first byte -> the viewer ready (data-st-ready, read after): {ms['ready']:.0f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-seal-") as tmp:
        work = Path(tmp)
        session = work / "sessions" / "session.jsonl"
        session.parent.mkdir()
        cmd = [sys.executable, str(GEN), "--turns", str(args.turns), "--seed", "1", "-o", str(session)]
        subprocess.run(cmd, check=True)
        start = time.perf_counter()
        plain = export_to_file(session, work / "plain.html").read_text(encoding="utf-8")
        print(f"{args.turns}-turn session exported in {time.perf_counter() - start:.1f} s wall")
        key = new_key()
        bench_sizes(plain, args.runs)
        bench_browser(seal_page(plain, key), key_text(key), args.runs, work)
        bench_password(plain, args.runs, work)
        bench_share(session, args.runs, work)


if __name__ == "__main__":
    main()
