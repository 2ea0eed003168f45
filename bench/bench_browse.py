#!/usr/bin/env python3
"""Time the sessions pane of a served session page in real Chromium, agentsview beside it.

Usage: .venv/bin/python bench/bench_browse.py [--size-mb 1024] [--runs 3]

The corpus is bench_search.py's (Claude Code + pi files from ../shared/tools/gen_session.py,
about 1,000 files at 1 GiB). Figures, printed, not asserted (targets: the pane within 0.5 s warm
and 1.5 s cold; a filter change redrawn within 100 ms; a site page's HTML+JS+data under 2 MB):

- pane cold: a fresh ``sessiontree serve`` (empty cache dir), the time from navigation start to
  the pane's first drawn list (the ``st-browse-drawn`` performance mark); warm: the same page
  loaded again (median of --runs);
- filter change: the pane's own redraw time (its ``data-draw-ms``) when "All projects" is chosen,
  and the wall time from the change to the next frame;
- site: the pane's data file (``sessions.json``, made by the same code a build uses) and the
  pane's JS+CSS a session page carries;
- agentsview (pip, its own venv, temporary HOME and AGENTSVIEW_DATA_DIR, no update check):
  ``agentsview sync`` from empty (what its list needs first), then its served app's first load in
  Chromium to network idle.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_search import Agentsview, build_corpus, run_timed

from sessiontree.archive.catalog import Catalog
from sessiontree.exporter.templating import read_asset
from sessiontree.pages.nav import PANE_SCRIPTS
from sessiontree.pages.sessions_data import sessions_data

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def fan_out(corpus: Path, sessions: int) -> Path:
    """The corpus with at least ``sessions`` files: its own, then hard links of them under new names
    (the generator writes files of ~4 MB; 1,000 distinct ones would take an hour to make here)."""
    own = sorted(corpus.rglob("*.jsonl"))
    fanned = corpus.parent / f"{corpus.name}-x{sessions}"
    if fanned.exists():
        return fanned
    for i in range(max(sessions, len(own))):
        src = own[i % len(own)]
        rel = src.relative_to(corpus)
        if i >= len(own):
            stem = (
                f"{i:08x}-0000-4000-8000-{i:012x}"
                if rel.parts[0] == "claude"
                else f"2026-01-01T00-00-00-000Z_fan-{i:05d}"
            )
            rel = rel.parent.with_name(rel.parent.name + f"-fan{i % 7}") / f"{stem}.jsonl"
        target = fanned / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        os.link(src, target)
    return fanned


def start_serve(roots: list[Path], cache: Path, agent: Path) -> tuple[subprocess.Popen[str], str]:
    each = [arg for root in roots for arg in ("--root", str(root))]
    cmd = [sys.executable, "-m", "sessiontree", "--agent-dir", str(agent), "serve", *each,
           "--port", "0", "--cache-dir", str(cache)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if "http://" in line:
            return proc, line[line.index("http://") :].split()[0].rstrip("/")
    raise SystemExit("serve did not start")


def pane_ms(page: Page, url: str) -> float:
    page.goto(url, wait_until="commit", timeout=120_000)  # the pane, not the whole page's load event
    page.wait_for_selector("#st-browse .st-browse-row", timeout=120_000)
    return float(page.evaluate("performance.getEntriesByName('st-browse-drawn')[0].startTime"))


def filter_ms(page: Page) -> tuple[float, float]:
    wall = page.evaluate(
        """() => new Promise((done) => {
          const box = document.querySelector('#st-browse .st-browse-scope');
          const t0 = performance.now();
          box.value = box.value === 'all' ? 'project' : 'all';
          box.dispatchEvent(new Event('change'));
          requestAnimationFrame(() => done(performance.now() - t0));
        })"""
    )
    return float(page.get_attribute("#st-browse", "data-draw-ms") or "nan"), float(wall)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-bench-search"
    )
    parser.add_argument(
        "--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers-av"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-peer", action="store_true", help="Skip agentsview.")
    parser.add_argument("--sessions", type=int, default=1000, help="Files listed (hard links fill up to it).")
    args = parser.parse_args()
    corpus = args.corpus / f"corpus-{args.size_mb}"
    size, _phrases, _big = build_corpus(corpus, args.size_mb)
    fanned = fan_out(corpus, args.sessions)
    roots = [fanned / "claude", fanned / "omp" / "agent" / "sessions"]
    files = [p for root in roots for p in root.rglob("*.jsonl")]
    apparent = sum(p.stat().st_size for p in files)
    print(
        f"corpus: {len(files)} files, {apparent / 2**20:.0f} MiB listed"
        f" ({size / 2**20:.0f} MiB of distinct files, the rest hard links);"
        f" load average {os.getloadavg()[0]:.1f} (2 cores)"
    )

    # Listed from prefixes (counts of big files pending) as a cold server first lists them.
    entries = [e for root in roots for e in Catalog(root).scan(exact=False)]
    data = json.dumps(sessions_data(entries, lambda e: "sessions/" + e.key), separators=(",", ":"))
    pane = sum(len(read_asset(n).encode()) for n in (*PANE_SCRIPTS, "browse/pane.css"))
    kib = len(data) / 1024
    print(
        f"site: sessions.json {kib:.0f} KiB for {len(entries)} sessions;"
        f" pane JS+CSS {pane / 1024:.1f} KiB a page"
    )

    with tempfile.TemporaryDirectory(prefix="bench-browse-") as tmp_name, sync_playwright() as pw:
        tmp = Path(tmp_name)
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        proc, url = start_serve(roots, tmp / "cache", tmp / "agent")
        try:
            listing = json.loads(run_timed(["curl", "-s", url + "/api/sessions"])[1])["sessions"]
            target = listing[len(listing) // 2]["h"]
            cpu0 = os.times()
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            cold = pane_ms(page, url + target)
            warm = [pane_ms(page, url + target) for _ in range(args.runs)]
            redraws = [filter_ms(page) for _ in range(max(4, args.runs))]
            cpu = os.times()
            print(f"\n{'sessiontree serve':28} {'ms':>8}   (load {os.getloadavg()[0]:.1f})")
            print(f"{'pane cold (fresh server)':28} {cold:8.0f}")
            print(f"{'pane warm (median)':28} {statistics.median(warm):8.0f}")
            print(f"{'filter redraw (pane)':28} {statistics.median(r[0] for r in redraws):8.0f}")
            print(f"{'filter to next frame':28} {statistics.median(r[1] for r in redraws):8.0f}")
            print(f"bench process CPU {cpu.user - cpu0.user + cpu.system - cpu0.system:.1f} s "
                  f"(children {cpu.children_user - cpu0.children_user:.1f} s)")  # fmt: skip
        finally:
            proc.terminate()
            proc.wait(30)
        if not args.no_peer:
            venv = args.peers_venv
            if not (venv / "bin" / "agentsview").exists():
                subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
                subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "agentsview"], check=True)
            peer = Agentsview(fanned, tmp, venv)
            wall, _rss = peer.index()
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            server = subprocess.Popen(
                [peer.bin, "serve", "--no-sync", "--no-browser", "--no-update-check", "--host", "127.0.0.1",
                 "--port", str(port)], env={**peer.env, "AGENTSVIEW_DISABLE_AUTO_SYNC": "1"},
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            try:
                page = browser.new_page()
                deadline = time.monotonic() + 60
                while True:
                    try:
                        page.goto(f"http://127.0.0.1:{port}/", wait_until="networkidle", timeout=120_000)
                        break
                    except Exception:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.3)  # a benchmark waiting for a server, not a test
                loads = []
                for _ in range(args.runs):
                    start = time.perf_counter()
                    page.goto(f"http://127.0.0.1:{port}/", wait_until="networkidle", timeout=120_000)
                    loads.append((time.perf_counter() - start) * 1000)
                print(f"\n{'agentsview':28} {'ms':>8}   (load {os.getloadavg()[0]:.1f})")
                print(f"{'sync from empty (cold)':28} {wall * 1000:8.0f}")
                print(f"{'app load to idle (median)':28} {statistics.median(loads):8.0f}")
            finally:
                server.terminate()
                server.wait(30)
        browser.close()


if __name__ == "__main__":
    main()
