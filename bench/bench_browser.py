#!/usr/bin/env python3
"""Time the exported page in real Chromium: active path visible, branch switch, a 100,000-entry page.

Prints figures only (targets: the active path visible <= 1.0 s after navigation starts; switching
branch <= 150 ms; a 100,000-entry session opens without freezing the page). Times come from the
performance marks viewer.js sets (`st-path-visible`, `st-path-painted`, the `st-branch-switch`
measure from the input event to the next frame) and a `longtask` observer. Usage:
  .venv/bin/python bench/bench_browser.py [--turns 2000] [--entries 100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import html
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, sync_playwright

from sessiontree.exporter import ExportOptions
from sessiontree.exporter.page import assemble_page
from sessiontree.pages.export import export_to_file

GEN = Path(__file__).resolve().parents[2] / "shared" / "tools" / "gen_session.py"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
# Registered before the page's own script: every long task (> 50 ms) of the main thread.
LONGTASKS = """
window.__longtasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longtasks.push([e.startTime, e.duration]);
}).observe({ type: 'longtask', buffered: true });
"""
MARKS = """() => {
  const m = {};
  for (const e of performance.getEntriesByType('mark')) m[e.name] = e.startTime;
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  if (fcp) m.fcp = fcp.startTime;
  return m;
}"""


def generated_export(work: Path, turns: int) -> Path:
    """Generate a session of ``turns`` turns (branches, blobs) and export it with the real exporter."""
    src = work / "session.jsonl"
    blobs = work / "blobs"
    subprocess.run(
        [sys.executable, str(GEN), "--turns", str(turns), "--blobs-dir", str(blobs), "-o", str(src)],
        check=True,
    )
    out = export_to_file(src, work / "session.html", ExportOptions(blobs_dir=blobs))
    mb_in, mb_out = src.stat().st_size / 1e6, out.stat().st_size / 1e6
    print(f"{turns}-turn session: JSONL {mb_in:.2f} MB, HTML {mb_out:.2f} MB")
    return out


def huge_page(work: Path, n: int) -> Path:
    """Assemble an ``n``-entry page directly (mostly linear, a side branch every 1,000 entries)."""
    entries: list[dict[str, Any]] = []
    frags: list[str] = []
    parent: str | None = None
    for k in range(n):
        eid = f"e{k}"
        side = k % 1000 == 999
        cat = "user" if k % 2 == 0 else "assistant"
        text = f"{cat} message {k} about the session tree and its branches"
        entries.append(
            {
                "id": eid,
                "parentId": entries[-2]["id"] if side and k > 1 else parent,
                "type": "message",
                "role": cat,
                "cat": cat,
                "preview": text,
                "ts": "2026-02-16T10:21:00.000Z",
            }
        )
        frags.append(
            f'<article class="st-entry st-{cat}" data-id="{eid}"><header class="st-head">'
            f'<span class="st-role">{cat}</span>'
            '<button class="st-link" type="button" title="Copy link">#</button>'
            f'</header><div class="st-body"><p>{html.escape(text)}</p></div></article>'
        )
        if not side:
            parent = eid
    session = {"id": "huge", "title": f"{n} entries", "cwd": "/tmp", "timestamp": "2026-02-16T10:20:00Z"}
    page = assemble_page(session, entries, frags, {}, "<h1>huge</h1>", "", "auto", leaf_id=parent)
    out = work / "huge.html"
    out.write_text(page, encoding="utf-8")
    print(f"{n}-entry page: HTML {out.stat().st_size / 1e6:.2f} MB")
    return out


def open_and_measure(browser: Browser, url: str) -> tuple[Page, dict[str, float], list[list[float]]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(LONGTASKS)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("html[data-st-ready]", timeout=120_000)
    page.wait_for_timeout(300)
    return page, page.evaluate(MARKS), page.evaluate("window.__longtasks")


def branch_switches(page: Page, presses: int) -> list[float]:
    """Switch branch with ] / [ and with tree clicks; return the st-branch-switch durations (ms)."""
    page.evaluate("performance.clearMeasures('st-branch-switch')")
    page.locator("#st-messages").click(position={"x": 5, "y": 5})
    for k in range(presses):
        page.keyboard.press("]" if k % 2 == 0 else "[")
        page.wait_for_timeout(120)
    rows = page.locator("#st-tree [role=treeitem]")
    for k in range(min(presses, rows.count())):
        rows.nth(k * 3 % rows.count()).click()
        page.wait_for_timeout(120)
    durations: list[float] = page.evaluate(
        "performance.getEntriesByName('st-branch-switch').map(m => m.duration)"
    )
    return durations


def summary(label: str, values: list[float], unit: str = "ms") -> str:
    if not values:
        return f"{label}: no samples"
    p90 = statistics.quantiles(values, n=10, method="inclusive")[-1] if len(values) > 1 else values[0]
    return (
        f"{label}: median {statistics.median(values):.0f} {unit}, p90 {p90:.0f} {unit}, "
        f"max {max(values):.0f} {unit} ({len(values)} samples)"
    )


def bench_generated(browser: Browser, url: str, turns: int, runs: int) -> None:
    """Open the generated export ``runs`` times; switch branches each time."""
    visible: list[float] = []
    painted: list[float] = []
    switches: list[float] = []
    for _ in range(runs):
        page, marks, _tasks = open_and_measure(browser, url)
        visible.append(marks["st-path-visible"])
        painted.append(marks.get("st-path-painted", float("nan")))
        switches += branch_switches(page, 6)
        page.context.close()
    print(f"\n{turns}-turn export (target: path visible <= 1000 ms, branch switch <= 150 ms)")
    print(summary("  active path visible (after navigation start)", visible))
    print(summary("  active path painted", painted))
    print(summary("  branch switch (input -> next frame)", switches))


def bench_huge(browser: Browser, url: str, entries: int) -> None:
    """Open the huge page once: long tasks while loading, DOM sizes, a branch switch, a first search."""
    page, marks, tasks = open_and_measure(browser, url)
    nan = float("nan")
    print(f"\n{entries}-entry page (target: opens without freezing)")
    print(
        f"  tree ready {marks['st-tree-ready']:.0f} ms, path visible {marks['st-path-visible']:.0f} ms, "
        f"painted {marks.get('st-path-painted', nan):.0f} ms, FCP {marks.get('fcp', nan):.0f} ms"
    )
    durations = [d for _, d in tasks]
    print(
        f"  long tasks while loading: {len(durations)}, longest {max(durations, default=0):.0f} ms, "
        f"total {sum(durations):.0f} ms"
    )
    print(
        f"  tree rows in the DOM: {page.locator('#st-tree [role=treeitem]').count()}, "
        f"messages in the DOM: {page.locator('#st-messages .st-entry').count()}"
    )
    print(summary("  branch switch", branch_switches(page, 6)))
    page.evaluate("window.__longtasks = []")
    page.fill("#st-search", "message 99999")
    page.wait_for_timeout(1500)
    search_tasks = [d for _, d in page.evaluate("window.__longtasks")]
    print(
        f"  first search over all entries: status {page.inner_text('#st-status')!r}, "
        f"longest task {max(search_tasks, default=0):.0f} ms"
    )
    page.context.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        work = Path(tmp)
        gen = generated_export(work, args.turns)
        huge = huge_page(work, args.entries)
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            bench_generated(browser, gen.as_uri(), args.turns, args.runs)
            bench_huge(browser, huge.as_uri(), args.entries)
        finally:
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
