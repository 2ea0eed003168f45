#!/usr/bin/env python3
"""Benchmarks of ``sessiontree serve`` (figures printed, nothing asserted).

- latency: ``write()`` of an appended line -> the entry in Chromium's DOM, median/p95 over N appends
  (target p95 <= 150 ms);
- cpu: server CPU time per append on a big session (must follow the appended bytes, not the
  file size), against the same on a small session;
- clients: C concurrent SSE clients while A appends a second go in for S seconds (errors, p95);
- index: the index page of N generated sessions (default 1,000 of ~1 MB: ~1 GB), cold (no cache)
  and warm (cache kept): the catalog in process (exact, and from prefixes), and a real server's
  first GET / with the time until its event stream has every count;
- stop: Ctrl-C (SIGINT) with open event streams until the process is gone (target <= 2 s).

Usage: .venv/bin/python bench/bench_serve.py [latency|cpu|clients|index|stop|all]
         [--appends 100] [--big-turns 9500] [--clients 50] [--rate 10] [--seconds 60] [--sessions 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.serve.process import EventReader, serve_process  # noqa: E402

GEN = Path("/work/shared/tools/gen_session.py")
KEY = "--home-dev-demo--/bench.jsonl"


def gen(path: Path, turns: int, seed: int = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, str(GEN), "--turns", str(turns), "--seed", str(seed), "-o", str(path)], check=True
    )


def last_id(path: Path) -> str:
    with open(path, "rb") as fh:
        fh.seek(max(0, path.stat().st_size - 200_000))
        tail = fh.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    ident: str = json.loads(tail)["id"]
    return ident


def line(entry_id: str, parent: str, text: str) -> bytes:
    entry = {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-02-16T11:00:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}]},
    }
    return (json.dumps(entry) + "\n").encode()


def write_line(path: Path, data: bytes) -> float:
    """Append one line; return the wall time (ms since the epoch) just before write()."""
    with open(path, "ab") as fh:
        t = time.time() * 1000
        fh.write(data)
    return t


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- latency ------------------------------------------------------------------------------------

OBSERVE = """
window.__seen = {};
new MutationObserver((records) => {
  const now = performance.timeOrigin + performance.now();
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    const arts = n.matches('article[data-id]') ? [n] : n.querySelectorAll('article[data-id]');
    for (const a of arts) {
      const id = a.getAttribute('data-id');
      if (!(id in window.__seen)) window.__seen[id] = now;
    }
  }
}).observe(document.getElementById('st-messages'), { childList: true, subtree: true });
"""


def bench_latency(args: argparse.Namespace) -> None:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "agent"
        path = agent / "sessions" / KEY
        gen(path, 30)
        parent = last_id(path)
        with serve_process(agent / "sessions", agent, Path(tmp) / "cache") as served, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1200, "height": 800})
            page.goto(f"{served.url}/s/{KEY}")
            page.wait_for_selector("html[data-st-ready]")
            while page.evaluate("document.documentElement.getAttribute('data-st-live')") != "open":
                page.wait_for_timeout(20)
            page.evaluate(OBSERVE)
            page.evaluate(
                "(() => { const m = document.getElementById('st-main'); m.scrollTop = m.scrollHeight; })()"
            )
            latencies: list[float] = []
            for n in range(args.appends):
                ident = f"bench-{n}"
                written = write_line(path, line(ident, parent, f"append number {n}"))
                parent = ident
                while (seen := page.evaluate(f"window.__seen[{json.dumps(ident)}]")) is None:
                    page.wait_for_timeout(2)
                latencies.append(seen - written)
            browser.close()
    print(
        f"append -> visible in Chromium over {len(latencies)} appends: "
        f"median {statistics.median(latencies):.1f} ms, "
        f"p95 {pct(latencies, 95):.1f} ms, max {max(latencies):.1f} ms (target p95 <= 150 ms)"
    )


# --- cpu per append -----------------------------------------------------------------------------


def cpu_per_append(path: Path, agent: Path, cache: Path, appends: int) -> tuple[float, float]:
    """Server CPU ms per append and the load time (s) of the session, for one session file."""
    parent = last_id(path)
    with serve_process(agent / "sessions", agent, cache) as served, httpx.Client(timeout=600) as http:
        started = time.perf_counter()
        reader = EventReader(http, f"{served.url}/events/s/{KEY}?g=&n=-1", timeout=900)
        reader.next_named("replaced")  # the server has read the session whole by now
        loaded = time.perf_counter() - started
        before = proc_cpu(served.proc.pid)
        for n in range(appends):
            ident = f"cpu-{n}"
            write_line(path, line(ident, parent, f"cpu append {n}"))
            parent = ident
            while ident not in [e[0]["id"] for e in reader.next_named("append").data["entries"]]:
                pass
        spent = proc_cpu(served.proc.pid) - before
        reader.close()
    return spent / appends * 1000, loaded


def bench_cpu(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for label, turns in (("small", 30), ("big", args.big_turns)):
            agent = Path(tmp) / label
            path = agent / "sessions" / KEY
            gen(path, turns)
            size = path.stat().st_size
            per, loaded = cpu_per_append(path, agent, Path(tmp) / f"cache-{label}", args.appends)
            print(
                f"server CPU per append, {label} session ({size / 1e6:.1f} MB): {per:.2f} ms "
                f"over {args.appends} appends (whole load took {loaded:.1f} s)"
            )


# --- many clients -------------------------------------------------------------------------------


async def run_clients(url: str, path: Path, clients: int, rate: float, seconds: float) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    done = asyncio.Event()
    connected = 0

    async def client(k: int) -> None:
        nonlocal connected
        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as http:  # noqa: SIM117
                async with http.stream("GET", f"{url}/events/s/{KEY}?g=&n=-1") as response:
                    if response.status_code != 200:
                        errors.append(f"client {k}: HTTP {response.status_code}")
                        return
                    connected += 1
                    name = ""
                    async for raw in response.aiter_lines():
                        if raw.startswith("event:"):
                            name = raw.split(":", 1)[1].strip()
                        elif raw.startswith("data:") and name == "append":
                            now = time.time() * 1000
                            for item in json.loads(raw[5:])["entries"]:
                                text = item[0].get("preview", "")
                                if text.startswith("t="):
                                    latencies.append(now - float(text[2:].split()[0]))
                        if done.is_set():
                            return
        except (httpx.HTTPError, OSError) as exc:
            if not done.is_set():
                errors.append(f"client {k}: {type(exc).__name__}")

    tasks = [asyncio.create_task(client(k)) for k in range(clients)]
    while connected < clients and not errors:
        await asyncio.sleep(0.05)
    parent = last_id(path)
    sent = 0
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        ident = f"many-{sent}"
        write_line(path, line(ident, parent, f"t={time.time() * 1000:.1f} append {sent}"))
        parent = ident
        sent += 1
        await asyncio.sleep(max(0.0, start + sent / rate - time.monotonic()))
    await asyncio.sleep(2)
    done.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    expected = sent * clients
    print(
        f"{clients} SSE clients, {rate:g} appends/s for {seconds:g} s: {sent} appends, "
        f"{len(latencies)}/{expected} deliveries, {len(errors)} errors, "
        f"latency median {statistics.median(latencies):.1f} ms, p95 {pct(latencies, 95):.1f} ms"
    )
    for e in errors[:5]:
        print("  error:", e)


def bench_clients(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "agent"
        path = agent / "sessions" / KEY
        gen(path, 30)
        with serve_process(agent / "sessions", agent, Path(tmp) / "cache") as served:
            asyncio.run(run_clients(served.url, path, args.clients, args.rate, args.seconds))


# --- index --------------------------------------------------------------------------------------


def index_folder(tmp: Path, sessions: int, turns_each: int) -> Path:
    """``sessions`` copies of one generated session (own id, 40 projects) under ``tmp/sessions``."""
    root = tmp / "sessions"
    template = tmp / "one.jsonl"
    gen(template, turns_each)
    data = template.read_bytes()
    first, rest = data.split(b"\n", 1)
    head = json.loads(first)
    for n in range(sessions):
        head.update(id=f"{n:016x}", cwd=f"/work/project-{n % 40}")
        out = root / f"--work-project-{n % 40}--" / f"2026-01-01_{n:05d}.jsonl"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(json.dumps(head).encode() + b"\n" + rest)
    return root


def served_index(root: Path, agent: Path, cache: Path) -> tuple[float, float | None, float]:
    """A real server's first GET / (s), the time until no count is pending on the index's event
    stream (s; None when none was pending) and the best of three GETs after."""
    with serve_process(root, agent, cache) as served, httpx.Client(timeout=600) as http:
        started = time.perf_counter()
        first = http.get(served.url + "/")
        answered = time.perf_counter() - started
        settled = None
        if "messages pending" in first.text:
            reader = EventReader(http, served.url + "/events", timeout=900)
            while "messages pending" in reader.next_named("index").data["html"]:
                pass
            settled = time.perf_counter() - started
            reader.close()
        again = []
        for _ in range(3):
            t = time.perf_counter()
            http.get(served.url + "/")
            again.append(time.perf_counter() - t)
    return answered, settled, min(again)


def bench_index(args: argparse.Namespace) -> None:
    from sessiontree.archive.catalog import Catalog
    from sessiontree.pages.index_page import render_index

    with tempfile.TemporaryDirectory() as tmp:
        root = index_folder(Path(tmp), args.sessions, args.turns_each)
        total = sum(p.stat().st_size for p in root.rglob("*.jsonl"))
        what = f"{args.sessions} sessions ({total / 1e6:.0f} MB)"
        # In process: the exact catalog (every file read whole: what the index waited for before
        # issue 21.6, and what build still does) against the prefix listing serve answers from.
        for exact in (True, False):
            cache = Path(tmp) / f"cache-{exact}"
            for label in ("cold", "warm"):
                started = time.perf_counter()
                entries = Catalog(root, cache).scan(exact=exact)
                scanned = time.perf_counter() - started
                html = render_index(entries, lambda e: "/s/" + e.key)
                whole = time.perf_counter() - started
                print(
                    f"index of {what}, {'exact' if exact else 'prefix'} catalog, {label}: "
                    f"scan {scanned * 1000:.0f} ms, with the page {whole * 1000:.0f} ms "
                    f"({len(html) / 1e3:.0f} KB)"
                )
        cache = Path(tmp) / "cache-served"
        for label in ("cold", "warm"):
            answered, settled, after = served_index(root, Path(tmp), cache)
            counts = "none pending" if settled is None else f"every count in after {settled:.2f} s"
            print(
                f"serve, {label} start, {what}: first GET / {answered * 1000:.0f} ms "
                f"(target {'1 s' if label == 'cold' else '0.2 s'}), {counts}, "
                f"next GETs best {after * 1000:.0f} ms"
            )
        print(f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")


def bench_stop(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        agent = Path(tmp) / "agent"
        gen(agent / "sessions" / KEY, 30)
        times = []
        for _ in range(3):
            with (
                serve_process(agent / "sessions", agent, Path(tmp) / "cache") as served,
                httpx.Client() as http,
            ):
                readers = [EventReader(http, f"{served.url}/events/s/{KEY}?g=&n=-1") for _ in range(5)]
                readers.append(EventReader(http, f"{served.url}/events"))
                started = time.perf_counter()
                served.proc.send_signal(signal.SIGINT)
                served.proc.wait(timeout=60)
                times.append(time.perf_counter() - started)
                for reader in readers:
                    reader.close()
        print(
            "Ctrl-C with 6 open event streams -> process gone: "
            + ", ".join(f"{t:.2f}" for t in times)
            + " s (target <= 2 s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "which", nargs="?", default="all", choices=["latency", "cpu", "clients", "index", "stop", "all"]
    )
    parser.add_argument("--appends", type=int, default=100)
    parser.add_argument("--big-turns", type=int, default=9500, help="turns of the big session (~100 MB)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--turns-each", type=int, default=100, help="turns per index session (~1 MB)")
    args = parser.parse_args()
    for name, run in (
        ("latency", bench_latency),
        ("cpu", bench_cpu),
        ("clients", bench_clients),
        ("index", bench_index),
        ("stop", bench_stop),
    ):
        if args.which in (name, "all"):
            run(args)


if __name__ == "__main__":
    threading.stack_size(0)
    main()
