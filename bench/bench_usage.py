#!/usr/bin/env python3
"""Benchmark the usage dashboard (figures printed, nothing asserted; issue 30 item 3).

Over N generated pi sessions (default 1,000 of ~1 MB: ~1 GB; 40 projects, five models, spread
over the last 25 days so agentsview's default "last 30 days" shows the same usage):

- serve: a real ``sessiontree serve`` process over an index already built, /usage in Chromium
  until every panel is drawn: cold (a new server and browser context) and warm (the same server,
  a new context), medians; the bytes of the page; a filter change until redrawn, median of 10;
- site: the bytes of ``usage.html`` as ``build`` writes it for the same sessions;
- agentsview (its own venv, a temp HOME and AGENTSVIEW_DATA_DIR, never updating): ``agentsview
  sync`` once, then its /usage in Chromium until its summary and top-sessions calls have
  answered, cold and warm, in the same run. Chromium is kept off the network (agentsview's page
  asks for web fonts: refused).

Usage: .venv/bin/python bench/bench_usage.py [--sessions 1000] [--turns 80] [--repeat 3]
         [--peers-venv /tmp/sessiontree-peers-av] [--no-peer]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page, Route, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.serve.process import serve_process  # noqa: E402

GEN = Path("/work/shared/tools/gen_session.py")
MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "claude-sonnet-4", "claude-3-7-sonnet")
TEMPLATES = 10
DRAWN = '#st-usage:not([data-drawn="0"])'


def corpus(folder: Path, sessions: int, turns: int) -> Path:
    """``sessions`` pi files under ``folder/omp/agent/sessions`` (reused when already made)."""
    root = folder / "omp" / "agent" / "sessions"
    marker = folder / "corpus.json"
    today = datetime.now(UTC).date()
    wanted = {"sessions": sessions, "turns": turns, "day": today.isoformat()}
    if marker.exists() and json.loads(marker.read_text()) == wanted:
        return root
    subprocess.run(["rm", "-rf", str(folder)], check=True)
    templates = []
    for seed in range(TEMPLATES):
        out = folder / f"template-{seed}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, str(GEN), "--turns", str(turns), "--seed", str(seed + 1), "-o", str(out)],
            check=True,
        )
        templates.append(out.read_bytes())
    for n in range(sessions):
        data = templates[n % TEMPLATES]
        day = (today - timedelta(days=1 + n % 25)).isoformat()
        data = data.replace(b'"timestamp": "2026-02-16T', f'"timestamp": "{day}T'.encode())
        data = data.replace(b'"model": "claude-sonnet-4-5"', f'"model": "{MODELS[n % len(MODELS)]}"'.encode())
        data = own_ids(data, f"-{n}".encode())
        first, rest = data.split(b"\n", 1)
        head = json.loads(first)
        head.update(id=f"bench-{n:06d}", cwd=f"/work/project-{n % 40}")
        out = root / f"--work-project-{n % 40}--" / f"{day}T00-00-00-000Z_bench-{n:06d}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(json.dumps(head).encode() + b"\n" + rest)
    marker.write_text(json.dumps(wanted))
    return root


_IDS = re.compile(rb'"(id|parentId)": "([0-9a-f]{8})"')


def own_ids(data: bytes, suffix: bytes) -> bytes:
    """Each copy's entries its own (a fork's copies of its parent's messages would count once)."""
    return _IDS.sub(lambda m: b'"' + m.group(1) + b'": "' + m.group(2) + suffix + b'"', data)


def offline(route: Route) -> None:
    if route.request.url.startswith(("http://127.0.0.1", "blob:", "data:")):
        route.continue_()
    else:
        route.abort()


def fresh_page(browser: Browser) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.route("**/*", offline)
    page.set_default_timeout(120_000)
    return page


def ours_load(browser: Browser, url: str) -> float:
    page = fresh_page(browser)
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.wait_for_selector(DRAWN)
    took = time.perf_counter() - started
    page.context.close()
    return took


def ours_redraw(browser: Browser, url: str, repeat: int = 10) -> list[float]:
    """A filter change (project, then back to all) until redrawn and painted, in the page's clock."""
    page = fresh_page(browser)
    page.goto(url)
    page.wait_for_selector(DRAWN)
    projects = page.eval_on_selector_all("#st-project option", "os => os.map(o => o.value)")[1:]
    times = []
    for n in range(repeat):
        value = projects[n % len(projects)] if n % 2 == 0 else ""
        ms = page.evaluate(
            """async (value) => {
                const select = document.getElementById('st-project');
                const start = performance.now();
                select.value = value;
                select.dispatchEvent(new Event('change'));
                await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
                return performance.now() - start;
            }""",
            value,
        )
        times.append(float(ms))
    page.context.close()
    return times


def peer_load(browser: Browser, url: str) -> float:
    page = fresh_page(browser)
    started = time.perf_counter()
    with (
        page.expect_response(lambda r: "/api/v1/usage/summary" in r.url),
        page.expect_response(lambda r: "/api/v1/usage/top-sessions" in r.url),
    ):
        page.goto(url, wait_until="commit")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)))")
    took = time.perf_counter() - started
    page.context.close()
    return took


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def peer(args: argparse.Namespace, folder: Path, tmp: Path, browser: Browser) -> None:
    binary = args.peers_venv / "bin" / "agentsview"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(args.peers_venv)], check=True)
        subprocess.run([str(args.peers_venv / "bin" / "pip"), "install", "-q", "agentsview"], check=True)
    home, data = tmp / "av-home", tmp / "av-data"
    home.mkdir()
    data.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "AGENTSVIEW_DATA_DIR": str(data),
        "OMP_DIR": str(folder / "omp"),
        "AGENTSVIEW_DISABLE_UPDATE_CHECK": "1",
        "AGENTSVIEW_TELEMETRY_ENABLED": "0",
        "AGENTSVIEW_NO_BROWSER": "1",
    }
    started = time.perf_counter()
    subprocess.run(
        [str(binary), "sync"], env={**env, "AGENTSVIEW_NO_DAEMON": "1"}, check=True, capture_output=True
    )
    print(f"agentsview sync: {time.perf_counter() - started:.1f} s")
    loads: dict[str, list[float]] = {"cold": [], "warm": []}
    for _ in range(args.repeat):
        port = free_port()
        proc = subprocess.Popen(
            [str(binary), "serve", "--no-sync", "--no-browser", "--no-update-check", "--host", "127.0.0.1",
             "--port", str(port)],
            env={**env, "AGENTSVIEW_DISABLE_AUTO_SYNC": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    httpx.get(url + "/api/v1/version", timeout=2)
                    break
                except httpx.HTTPError:
                    time.sleep(0.1)  # a benchmark waiting for a server to listen, not a test
            loads["cold"].append(peer_load(browser, url + "/usage"))
            loads["warm"].append(peer_load(browser, url + "/usage"))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    for label, times in loads.items():
        print(
            f"agentsview /usage, {label}: median {statistics.median(times):.2f} s "
            f"{[round(t, 2) for t in times]}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--corpus", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-bench-usage"
    )
    parser.add_argument(
        "--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers-av"
    )
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument(
        "--index", type=Path, help="An index of this corpus already built (its cache dir), reused"
    )
    args = parser.parse_args()
    folder = args.corpus / f"corpus-{args.sessions}"
    root = corpus(folder, args.sessions, args.turns)
    files = list(root.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in files)
    print(
        f"corpus: {len(files)} pi sessions, {size / 1e9:.2f} GB; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    with tempfile.TemporaryDirectory(prefix="bench-usage-") as tmp_name, sync_playwright() as pw:
        tmp = Path(tmp_name)
        cache = args.index or tmp / "cache"
        started = time.perf_counter()
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [sys.executable, "-m", "sessiontree", "stats", "--root", str(root), "--cache-dir", str(cache)],
            check=True, capture_output=True,
        )  # fmt: skip
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        print(
            f"sessiontree index {'brought up to date' if args.index else 'from empty'} (stats): "
            f"{time.perf_counter() - started:.1f} s wall, "
            f"{used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime:.1f} s CPU"
        )
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        loads: dict[str, list[float]] = {"cold": [], "warm": []}
        redraws: list[float] = []
        page_bytes = 0
        for _ in range(args.repeat):
            with serve_process(root, tmp / "agent", cache) as served:
                url = served.url + "/usage"
                loads["cold"].append(ours_load(browser, url))
                loads["warm"].append(ours_load(browser, url))
                page_bytes = len(httpx.get(url, timeout=120).content)
                redraws += ours_redraw(browser, url)
        for label, times in loads.items():
            target = "1.5 s" if label == "cold" else "0.5 s"
            print(
                f"sessiontree serve /usage, {label}: median {statistics.median(times):.2f} s "
                f"{[round(t, 2) for t in times]} (target {target})"
            )
        print(
            f"filter change -> redrawn and painted: median {statistics.median(redraws):.0f} ms, "
            f"max {max(redraws):.0f} ms over {len(redraws)} (target 100 ms)"
        )
        print(f"serve /usage page: {page_bytes / 1e6:.2f} MB (HTML + JS + data, one file)")
        print(f"built usage.html: {site_page_bytes(root, cache) / 1e6:.2f} MB (target < 2 MB)")
        if not args.no_peer:
            peer(args, folder, tmp, browser)
        browser.close()
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


def site_page_bytes(root: Path, cache: Path) -> int:
    """The bytes of usage.html as ``build`` writes it: every session linked to its page."""
    from sessiontree.archive.search import SearchIndex
    from sessiontree.pages.usage_page import UsagePageOptions, render_usage_page
    from sessiontree.site.layout import page_path

    with SearchIndex([root], cache) as index:
        index.update()
        records = index.usage()
    options = UsagePageOptions(link_for=lambda path: page_path(Path(path).relative_to(root).as_posix()))
    return len(render_usage_page(records, options).encode())


if __name__ == "__main__":
    main()
