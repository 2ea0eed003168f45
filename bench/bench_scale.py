#!/usr/bin/env python3
"""How browsing costs grow with the archive: every figure of issues 42 and 54 at 1,000, 10,000
and 100,000 sessions.

For each size, a generated corpus of pi sessions (bench_usage's: 40 projects, five models, 25
days; a rare word planted in three sessions), a quarter of them moved into two other machines'
kept archives (``keep``'s shown copies: ``kept/<machine>/index.json`` and the files, written
directly), served and built as a user's default folders are (no folder given: ours and every
kept copy), then:

- serve, fresh (empty cache dir): ``GET /``, ``/api/sessions``, ``/api/session-models`` (HTTP,
  bytes); the pane's first rows on a session page and the usage dashboard drawn (Chromium, a new
  context each); the first ``/api/search`` of the rare word (what is indexed within its budget),
  and the time until every file is indexed and counted;
- serve, warm (the same server, once its search index and counts are complete): the same, median
  of ``--repeat``, and the rare word searched;
- serve's CPU for one warm request of each many-session answer (its /proc stat around it);
- serve's peak RSS (VmHWM) and the CPU it used;
- build (``--no-build`` skips it): wall, CPU and peak RSS of ``sessiontree build`` from empty
  (its own process and its largest worker), again with no change, and after one new session
  (median of ``--repeat``, a new one each); the bytes of the site's index page, its row files, the
  pane's data every session page fetches (its first file and chunks), the usage and search pages;
  in Chromium, the index until its first rows and the search page until Pagefind shows the rare
  word (in the page's clock from its navigation's start; median of ``--repeat``; its requests
  watched, not intercepted), each with the requests and bytes it fetched.

The load average is printed with every size: quote CPU figures when the machine is not idle. At
the end, each figure at every size and its growth from one size to the next.

Usage: .venv/bin/python bench/bench_scale.py [--sizes 1000,10000,100000] [--turns 30,3]
       [--repeat 3] [--no-build] [--no-serve] [--keep]
1,000 x 30 turns is about 0.35 GB, 10,000 x 3 turns about 0.3 GB and 100,000 x 3 turns about
3 GB (written in about a minute), made under $TMPDIR and removed at the end (``--keep`` keeps them).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
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
from playwright.sync_api import Browser, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_usage import corpus, fresh_page, ours_load  # noqa: E402
from tests.browser.test_site import serve_folder  # noqa: E402
from tests.chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.serve.process import Served, serve_process  # noqa: E402

RARE = "zqxjwvrareword"
LOCAL = ("http://127.0.0.1", "blob:", "data:")
"""Where a built site's pages may ask (``bench_usage.offline``'s hosts)."""
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


FIGURES: dict[str, dict[int, float]] = {}
"""Each figure (its name with its unit) at each size, for the growth table at the end."""


class Rows:
    """The figures of one size: printed as they come, kept for the growth table."""

    def __init__(self, size: int) -> None:
        self.size = size

    def add(self, name: str, value: float, unit: str, detail: str = "") -> None:
        FIGURES.setdefault(f"{name} ({unit})", {})[self.size] = value
        shown = f"{value:7.1f}" if unit in ("s", "MB") else f"{value:7.0f}"
        print(f"  {name:58s} {shown} {unit} {detail}".rstrip(), flush=True)

    def times(self, name: str, values: list[float]) -> None:
        self.add(name, statistics.median(values) * 1000, "ms", str([round(v * 1000) for v in values]))


WARM_CPU = (
    ("GET /", "/"),
    ("/api/index-rows (next window)", "/api/index-rows?offset=100&limit=200"),
    ("/api/index-rows (filtered, by size)", "/api/index-rows?q=project-3&sort=size"),
    ("/api/sessions", "/api/sessions"),
    ("/api/session-models", "/api/session-models"),
    ("/usage", "/usage"),
)


def request_cpu(served: Served, url: str, repeat: int) -> list[float]:
    """Serve's CPU seconds for each of ``repeat`` requests of ``url`` (its /proc stat around each)."""
    used = []
    for _ in range(repeat):
        before, _ = proc_figures(served)
        get(url)
        used.append(proc_figures(served)[0] - before)
    return used


def until_settled(served: Served) -> float:
    """Seconds until the search index and the listing's counts are complete (the background work a
    fresh server does after its first answers; the warm figures are taken after it)."""
    started = time.perf_counter()
    while httpx.get(served.url + "/api/search?q=" + RARE, timeout=600).json().get("pending"):
        time.sleep(0.5)
    while b"data-counting" in httpx.get(served.url + "/usage", timeout=600).content:
        time.sleep(0.5)
    return time.perf_counter() - started


def session_link(base: str) -> str:
    """A session page a third of the way down the pane's first part (its keys name the roots)."""
    first = httpx.get(base + "/api/sessions", timeout=600).json()["sessions"]
    return str(first[len(first) // 3]["h"])


def bench_serve(corpus_: Corpus, browser: Browser, repeat: int, rows: Rows) -> None:
    with corpus_.served() as served:
        base = served.url
        for label, path in (("GET /", "/"), ("/api/sessions", "/api/sessions")):
            started = time.perf_counter()
            size = get(base + path)
            rows.add(f"{label} cold", (time.perf_counter() - started) * 1000, "ms", f"({size / 1e3:.0f} kB)")
        session_url = base + session_link(base)
        rows.add("pane first rows, cold (Chromium)", pane_load(browser, session_url) * 1000, "ms")
        rows.add("/usage drawn, cold (Chromium)", ours_load(browser, base + "/usage") * 1000, "ms")
        rows.add("/api/session-models cold", timed(lambda: get(base + "/api/session-models")) * 1000, "ms")
        search = base + "/api/search?q=" + RARE
        found = 0

        def first_search() -> None:
            nonlocal found
            found = httpx.get(search, timeout=3600).json().get("sessions", 0)

        rows.add("search, first answer", timed(first_search) * 1000, "ms", f"({found} of 3 sessions)")
        rows.add("search, every file indexed", until_settled(served) * 1000, "ms", "(since the first answer)")
        cold_cpu, _ = proc_figures(served)
        rows.times("pane first rows, warm", [pane_load(browser, session_url) for _ in range(repeat)])
        rows.times("/usage drawn, warm", [ours_load(browser, base + "/usage") for _ in range(repeat)])
        rows.times("GET / warm", [timed(lambda: get(base + "/")) for _ in range(repeat)])
        rows.times("/api/sessions warm", [timed(lambda: get(base + "/api/sessions")) for _ in range(repeat)])
        rows.times(
            "/api/session-models warm",
            [timed(lambda: get(base + "/api/session-models")) for _ in range(repeat)],
        )
        rows.times("search rare word, warm", [timed(lambda: get(search)) for _ in range(repeat)])
        for label, path in WARM_CPU:
            rows.times(f"serve CPU of one warm {label}", request_cpu(served, base + path, repeat))
        cpu, peak = proc_figures(served)
        rows.add("serve CPU, cold phase", cold_cpu, "s")
        rows.add("serve CPU, whole run", cpu, "s")
        rows.add("serve peak RSS", peak, "MiB")
        served.stop()


def fetching(page: Page) -> list[int]:
    """The body sizes of the requests ``page`` makes from now on (its workers' too)."""
    sizes: list[int] = []
    page.context.on("requestfinished", lambda r: sizes.append(r.sizes()["responseBodySize"]))
    return sizes


SHOWN_AT = """new MutationObserver((_, seen) => {
  if (document.querySelector(%s)) { window.__stShown = performance.now(); seen.disconnect(); }
}).observe(document, { subtree: true, childList: true });"""
"""Notes in the page's clock when an element first matches (from its navigation's start)."""


def site_page(browser: Browser, url: str, selector: str, repeat: int) -> tuple[list[float], list[int]]:
    """A site's page in Chromium until ``selector`` shows (a new context each), in the page's clock
    from its navigation's start (the harness's own start-up left out): the times, and the body
    sizes of the requests the last one made until then. Its requests are watched, not intercepted
    (``fresh_page``'s route handler answers each in this process: 140-200 ms of a search page's
    17 requests at load 6-7, which no reader pays); one to another host stops the benchmark."""
    times: list[float] = []
    fetched: list[int] = []
    elsewhere: list[str] = []
    for _ in range(repeat):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(120_000)
        context.on("request", lambda r: None if r.url.startswith(LOCAL) else elsewhere.append(r.url))
        page.add_init_script(SHOWN_AT % json.dumps(selector))
        fetched = fetching(page)
        page.goto(url, wait_until="commit")
        page.wait_for_selector(selector, timeout=600_000)
        shown = None
        while shown is None:  # the observer's callback runs right after the change it saw
            shown = page.evaluate("window.__stShown")
        times.append(float(shown) / 1000)
        context.close()
        if elsewhere:
            raise SystemExit(f"the site asked for {elsewhere[0]} (not on 127.0.0.1)")
    return times, fetched


def site_browsing(browser: Browser, site: Path, repeat: int, rows: Rows) -> None:
    """The site's index until its first rows, and its search page until Pagefind's hits of the
    rare word are shown, with what each fetched."""
    with serve_folder(site) as url:
        times, fetched = site_page(browser, f"{url}/index.html", ".st-session", repeat)
        rows.times("site index, first rows (Chromium)", times)
        rows.add("site index, bytes fetched for them", sum(fetched) / 1e3, "kB", f"({len(fetched)} requests)")
        times, fetched = site_page(browser, f"{url}/search.html?q={RARE}", ".st-fulltext-group", repeat)
        rows.times("site search, rare word (Pagefind, Chromium)", times)
        rows.add(
            "site search, rare word: bytes fetched", sum(fetched) / 1e3, "kB", f"({len(fetched)} requests)"
        )


PEAK_RSS = """
import resource, runpy, sys
try:
    runpy.run_module("sessiontree", run_name="__main__", alter_sys=True)
finally:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"peak-rss {own} {workers}", file=sys.stderr)
"""
"""``python -m sessiontree`` that says its own peak RSS and its largest worker's (KiB) at exit."""


def run_build(corpus_: Corpus, site: Path) -> tuple[float, float, list[int]]:
    """One ``sessiontree build``: wall and CPU seconds (workers included), and the peak RSS (KiB)
    of its own process and of its largest worker."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    cmd = [sys.executable, "-c", PEAK_RSS, *corpus_.agent_args, "build", "-o", str(site), "--quiet"]
    done = subprocess.run(cmd, check=True, env=corpus_.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    said = [line.split() for line in done.stderr.decode().splitlines() if line.startswith("peak-rss ")]
    return wall, cpu, [int(x) for x in said[-1][1:]] if said else []


def new_session(root: Path, n: int) -> None:
    """A new session in ours (a copy of one with its own id and name, newer than every other)."""
    source = sorted(root.rglob("*.jsonl"))[1]  # not [0]: plant's, whose copies would hold the rare word
    lines = source.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    head["id"] = f"bench-new-{n}"
    # Named as the agent names it, by its start: newer than every other, the newest last.
    target = source.parent / f"2099-01-01T00-{n // 60:02d}-{n % 60:02d}-000Z_bench-new-{n}.jsonl"
    target.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")


def bench_build(corpus_: Corpus, browser: Browser, repeat: int, rows: Rows) -> None:
    site = corpus_.work / "site"
    wall, cpu, peaks = run_build(corpus_, site)
    rows.add("build from empty, wall", wall, "s")
    rows.add("build from empty, CPU (workers included)", cpu, "s")
    if peaks:
        rows.add("build peak RSS (its own process)", peaks[0] / 1024, "MiB")
        rows.add("build peak RSS (its largest worker)", peaks[1] / 1024, "MiB")
    unchanged = [run_build(corpus_, site) for _ in range(repeat)]  # one run said 1.84 s for 1.2-1.5
    rows.times("build with no change, wall", [wall for wall, _, _ in unchanged])
    rows.times("build with no change, CPU", [cpu for _, cpu, _ in unchanged])
    walls, cpus = [], []
    for n in range(repeat):
        new_session(corpus_.root, n)
        wall, cpu, _ = run_build(corpus_, site)
        walls.append(wall)
        cpus.append(cpu)
    rows.times("build after one new session, wall", walls)
    rows.times("build after one new session, CPU", cpus)
    for name in ("index.html", "sessions.json", "usage.html", "search.html"):
        path = site / name
        if path.exists():
            rows.add("site " + name, path.stat().st_size / 1e6, "MB")
    for label, pattern in (("index row", "index-rows-*.json"), ("pane data", "sessions-*.json")):
        files = list(site.glob(pattern))
        if files:
            largest = max(p.stat().st_size for p in files) / 1e3
            rows.add(f"site {label} files", len(files), "files", f"of at most {largest:.0f} kB")
    site_browsing(browser, site, repeat, rows)


MACHINES = ("laptop", "desktop")
"""Other machines whose kept archives hold a quarter of each corpus."""


class Corpus:
    """A generated archive as a user's default folders: ours (an agent dir's sessions) and other
    machines' kept copies under the keep dir, served and built with no folder given."""

    def __init__(self, work: Path, sessions: int, turns: int) -> None:
        self.work = work
        self.root = corpus(work / "corpus", sessions, turns)
        self.agent_dir = self.root.parent
        self.keep_dir = work / "keep"
        self.kept = self._move_to_machines()
        self.env = {
            **os.environ,
            "HOME": str(work / "home"),  # no other agent's default folder
            "XDG_CACHE_HOME": str(work / "build-cache"),
            "SESSIONTREE_KEEP_DIR": str(self.keep_dir),
            "SESSIONTREE_MACHINE": "bench-here",
        }
        self.agent_args = ["--agent-dir", str(self.agent_dir)]

    def _move_to_machines(self) -> int:
        """Move every fourth project's sessions into another machine's kept archive (as ``keep``
        shows them: ``kept/<machine>/index.json`` naming the slot, the files under it). A corpus
        made before is reused as it is: its moved projects are counted, none moved again."""
        kept, made = self.keep_dir / "kept", self.work / "corpus" / "corpus.json"
        if kept.is_dir() and kept.stat().st_mtime_ns >= made.stat().st_mtime_ns:
            return sum(1 for _ in kept.glob("*/r0/sessions/*/*.jsonl"))
        shutil.rmtree(self.keep_dir, ignore_errors=True)  # moved out of a corpus made again since
        moved = 0
        for n, project in enumerate(sorted(p for p in self.root.iterdir() if p.is_dir())):
            if n % 4 != 3:
                continue
            machine = MACHINES[(n // 4) % len(MACHINES)]
            folder = self.keep_dir / "kept" / machine
            (folder / "r0" / "sessions").mkdir(parents=True, exist_ok=True)
            moved += sum(1 for _ in project.glob("*.jsonl"))
            project.rename(folder / "r0" / "sessions" / project.name)
            index = {
                "machine": machine,
                "roots": {
                    "r0": {
                        "name": "sessions",
                        "origin": f"/home/{machine}/.omp/agent/sessions",
                        "agent": "pi",
                    }
                },
                "gone": {},
            }
            (folder / "index.json").write_text(json.dumps(index), encoding="utf-8")
        return moved

    def served(self) -> contextlib.AbstractContextManager[Served]:
        return serve_process(
            None, self.agent_dir, self.work / "serve-cache", home=self.work / "home", env=self.env
        )


def growth(sizes: list[int]) -> None:
    """Each figure at every size, and how many times it grew from one size to the next."""
    print(f"growth between sizes ({' -> '.join(f'{n:,}' for n in sizes)} sessions):")
    for name, by_size in FIGURES.items():
        values = [by_size.get(n) for n in sizes]
        shown = " / ".join("-" if v is None else f"{v:.0f}" if v >= 10 else f"{v:.2f}" for v in values)
        ratios = [f"x{b / a:.1f}" if a and b is not None else "-" for a, b in itertools.pairwise(values)]
        print(f"  {name:56s} {shown:>24s}   {' '.join(ratios)}")


def compiled() -> str:
    """Compile the package's modules, as an install leaves them (pip compiles a wheel's; an
    interpreter writes them on a first run): with PYTHONDONTWRITEBYTECODE set (as on the project's
    machines) every build and serve of a source checkout compiled ~110 modules again, ~0.2 s of
    each build's wall time at 10,000 sessions, which no user's build pays."""
    import compileall

    import sessiontree

    folder = Path(sessiontree.__file__).parent
    compileall.compile_dir(folder, quiet=1)
    return str(folder)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="1000,10000,100000", help="session counts, comma-separated")
    parser.add_argument(
        "--turns",
        default=None,
        help="turns per session for each size (the last for the rest); default 30 up to 1,000 "
        "sessions, else 3 (100,000 x 30 turns would be 33 GB)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--no-serve", action="store_true", help="build's figures only")
    parser.add_argument("--keep", action="store_true", help="keep the corpora and sites")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    turns = [int(x) for x in args.turns.split(",")] if args.turns else [30 if n <= 1000 else 3 for n in sizes]
    turns += [turns[-1]] * (len(sizes) - len(turns))
    uptime = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"bench_scale: {load()}; uptime: {uptime}; bytecode compiled in {compiled()}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for sessions, each in zip(sizes, turns[: len(sizes)], strict=True):
            work = Path(tempfile.mkdtemp(prefix=f"bench-scale-{sessions}-"))
            started = time.perf_counter()
            made = Corpus(work, sessions, each)
            plant(made.root)
            files = [*made.root.rglob("*.jsonl"), *made.keep_dir.rglob("*.jsonl")]
            size = sum(p.stat().st_size for p in files)
            print(
                f"{sessions} sessions x {each} turns ({made.kept} in {len(MACHINES)} other machines' kept "
                f"archives), {size / 1e6:.0f} MB (made in {time.perf_counter() - started:.0f} s); {load()}",
                flush=True,
            )
            rows = Rows(sessions)
            if not args.no_serve:
                bench_serve(made, browser, args.repeat, rows)
            if not args.no_build:
                bench_build(made, browser, args.repeat, rows)
            print(f"  {load()}")
            if args.keep:
                print(f"  kept: {work}")
            else:
                shutil.rmtree(work, ignore_errors=True)
        browser.close()
    growth(sizes)
    print(f"bench_scale done: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
