#!/usr/bin/env python3
"""One Claude Code file read in sessiontree and its peers' pages, measured in Chromium.

Each tool turns the file into its page (claude-code-transcripts: its first page, the index);
each page is opened from disk in Debian's Chromium with the time zone America/New_York and a
1280 x 900 window, every request that is not a file refused and counted. What is measured is
what a reader meets, by the same rules for every page, counted from the rendered DOM:

- prompts indexed: typed prompts (counted from the raw file) whose first words are the text
  of a link on the first page;
- copy controls: buttons whose text, label or title says "copy"; a resume command on the page;
- times: the first prompt's time shown in New York time, the zone named ("EST"/"EDT"), or UTC;
- on load: the visible text (closed tool calls hide theirs) and the page's scroll height;
- the page itself: files written, bytes, scripts, requests to the network, axe-core
  WCAG 2.x A/AA violations (axe from .tools, as the tests use it).

agentsview (its own venv, temporary HOME and AGENTSVIEW_DATA_DIR, no update check) syncs the
file and serves it on 127.0.0.1; its session view is measured the same way (requests to other
hosts refused and counted). Figures only, no assertions. Peers from PyPI into venvs (as
bench_claude_peers.py).
Usage:
  .venv/bin/python bench/bench_reading.py [--file F.jsonl] [--peers-venv DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bench_claude_peers import ensure_peers, output_size

ROOT = Path(__file__).resolve().parents[1]
SHARED = next(
    (p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()), ROOT.parent
)
DEFAULT = (
    SHARED / "fixtures" / "real" / "claude"
    / "claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
    "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
)  # fmt: skip
AXE_JS = ROOT / ".tools" / "node_modules" / "axe-core" / "axe.min.js"
ZONE = "America/New_York"

_MEASURE = r"""(prompts) => {
  const norm = (s) => s.replace(/\s+/g, ' ').trim().toLowerCase();
  const links = [...document.querySelectorAll('a')].map((a) => norm(a.textContent || ''));
  const indexed = prompts.filter((p) => links.some((t) => t.includes(p))).length;
  const said = (b) => [b.textContent, b.getAttribute('aria-label'), b.getAttribute('title')].join(' ');
  const buttons = [...document.querySelectorAll('button, [role=button]')];
  const copy = buttons.filter((b) => /copy/i.test(said(b))).length;
  const scrolls = (e) => e.scrollHeight > e.clientHeight + 10 && getComputedStyle(e).overflowY !== 'visible';
  const scrollers = [document.scrollingElement, ...[...document.querySelectorAll('*')].filter(scrolls)];
  const height = Math.max(...scrollers.map((e) => e.scrollHeight));
  const text = document.body.innerText;
  return {
    indexed, copy, height, chars: text.length, text,
    scripts: document.querySelectorAll('script').length,
    external: document.querySelectorAll('script[src], link[rel=stylesheet][href^=http]').length,
    nav: document.querySelectorAll('nav, [role=navigation]').length,
    times: document.querySelectorAll('time[datetime]').length,
  };
}"""


def typed_prompts(path: Path) -> list[dict[str, Any]]:
    """The user lines a person typed, from the raw file: their text and time."""
    out = []
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        if obj.get("type") != "user" or obj.get("isMeta") or obj.get("isCompactSummary"):
            continue
        content = obj["message"]["content"]
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        texts = (
            [content]
            if isinstance(content, str)
            else [b.get("text", "") for b in content if b.get("type") == "text"]
        )
        text = re.sub(
            r"<(ide_selection|ide_opened_file|system-reminder)>.*?</\1>", "", "\n".join(texts), flags=re.S
        )
        if text.strip() and not re.match(
            r"\s*(<command-|<local-command-|<bash-|\[Request interrupted)", text
        ):
            out.append({"text": text.strip(), "timestamp": obj.get("timestamp")})
    return out


def pages(source: Path, work: Path, bin_dir: Path) -> dict[str, tuple[list[str], Path, Path]]:
    """Each tool's command, what it writes, and the page a reader opens first."""
    cct, ccl = bin_dir / "claude-code-transcripts", bin_dir / "claude-code-log"
    ours, cct_dir, ccl_page = work / "ours.html", work / "cct", work / "ccl.html"
    return {
        "sessiontree": ([sys.executable, "-m", "sessiontree", "export", str(source), str(ours)], ours, ours),
        "claude-code-transcripts": (
            [str(cct), "json", str(source), "-o", str(cct_dir)], cct_dir, cct_dir / "index.html"
        ),
        "claude-code-log": ([str(ccl), str(source), "-o", str(ccl_page), "--no-cache"], ccl_page, ccl_page),
    }  # fmt: skip


@contextmanager
def agentsview(source: Path, work: Path, venv: Path) -> Iterator[str]:
    """agentsview synced on the one file (temporary HOME and data folder, no update check), served on
    127.0.0.1: yields its session page's address."""
    if not (venv / "bin" / "agentsview").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "agentsview"], check=True)
    home, data = work / "av-home", work / "av-data"
    projects = home / ".claude" / "projects" / "-bench-reading"
    projects.mkdir(parents=True)
    data.mkdir()
    session_id = json.loads(next(ln for ln in source.read_text().splitlines() if '"sessionId"' in ln))[
        "sessionId"
    ]
    (projects / f"{session_id}.jsonl").write_bytes(source.read_bytes())
    env = {
        **os.environ, "HOME": str(home), "AGENTSVIEW_DATA_DIR": str(data),
        "CLAUDE_PROJECTS_DIR": str(home / ".claude" / "projects"), "AGENTSVIEW_DISABLE_UPDATE_CHECK": "1",
        "AGENTSVIEW_TELEMETRY_ENABLED": "0", "AGENTSVIEW_NO_BROWSER": "1",
        "AGENTSVIEW_DISABLE_AUTO_SYNC": "1",
    }  # fmt: skip
    exe = str(venv / "bin" / "agentsview")
    subprocess.run([exe, "sync"], env={**env, "AGENTSVIEW_NO_DAEMON": "1"}, check=True, capture_output=True)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    serve = [
        exe,
        "serve",
        "--no-sync",
        "--no-browser",
        "--no-update-check",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(serve, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("agentsview serve did not answer within 60 s") from None
                time.sleep(0.2)  # a benchmark waiting for a server, not a test
        yield f"http://127.0.0.1:{port}/sessions/{session_id}"
    finally:
        server.terminate()
        server.wait(30)


def measure(browser: Any, url: str, prompts: list[dict[str, Any]]) -> dict[str, Any]:
    context = browser.new_context(timezone_id=ZONE, viewport={"width": 1280, "height": 900}, bypass_csp=True)
    refused: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(("file:", "data:", "blob:", "http://127.0.0.1:")):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.goto(url, wait_until="load")
    heads = [re.sub(r"\s+", " ", p["text"]).strip().lower()[:40] for p in prompts]
    if heads:  # an app draws the session after its load: wait for the first prompt's words
        page.wait_for_function(
            "(h) => document.body.innerText.replace(/\\s+/g, ' ').toLowerCase().includes(h)",
            arg=heads[0][:30],
        )
    page.wait_for_timeout(500)  # a benchmark letting the page's own script settle, not a test
    got: dict[str, Any] = page.evaluate(_MEASURE, heads)
    text = got.pop("text")
    first = prompts[0]["timestamp"] if prompts else None
    if first:
        t = datetime.fromisoformat(first.replace("Z", "+00:00"))
        local, utc = t.astimezone(ZoneInfo(ZONE)), t.astimezone(ZoneInfo("UTC"))
        got["local"] = local.strftime("%H:%M") in text or local.strftime("%-I:%M") in text
        got["zone"] = bool(re.search(r"\b(EST|EDT)\b", text))
        got["utc"] = utc.strftime("%H:%M") in text
    got["resume"] = bool(re.search(r"(claude|codex|pi|omp) (--resume|resume) \S+", text)) or page.evaluate(
        "!!document.querySelector('[data-copy*=\"--resume\"]')"
    )
    got["requests"] = len(refused)
    got["axe"] = axe_violations(page)
    context.close()
    return got


def axe_violations(page: Any) -> int | None:
    if not AXE_JS.exists():
        return None
    page.add_script_tag(content=AXE_JS.read_text(encoding="utf-8"))
    run = """() => axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    }).then((r) => r.violations.reduce((n, v) => n + v.nodes.length, 0))"""
    return int(page.evaluate(run))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, default=DEFAULT)
    ap.add_argument("--peers-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers")
    ap.add_argument(
        "--agentsview-venv", type=Path, default=Path(tempfile.gettempdir()) / "sessiontree-peers-av"
    )
    ap.add_argument(
        "--no-agentsview", action="store_true", help="Leave agentsview's served session view out."
    )
    a = ap.parse_args()
    from playwright.sync_api import sync_playwright

    bin_dir = ensure_peers(a.peers_venv)
    work = Path(tempfile.mkdtemp(prefix="bench-reading-"))
    prompts = typed_prompts(a.file)
    print(
        f"input: {a.file.name} ({a.file.stat().st_size / 1e3:.0f} kB, {len(prompts)} typed prompts);"
        f" zone {ZONE}"
    )
    rows: dict[str, dict[str, Any]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        for name, (cmd, written, first) in pages(a.file, work, bin_dir).items():
            subprocess.run(cmd, check=True, capture_output=True)
            files = sum(1 for _ in written.rglob("*.html")) if written.is_dir() else 1
            rows[name] = {
                "files": files,
                "bytes": output_size(written),
                **measure(browser, first.as_uri(), prompts),
            }
        if not a.no_agentsview:
            with agentsview(a.file, work, a.agentsview_venv) as url:
                rows["agentsview (served)"] = {"files": "-", "bytes": "-", **measure(browser, url, prompts)}
        browser.close()
    labels: list[tuple[str, Callable[[dict[str, Any]], object]]] = [
        ("prompts indexed on the first page", lambda r: f"{r['indexed']} / {len(prompts)}"),
        ("navigation landmarks", lambda r: r["nav"]),
        ("copy buttons", lambda r: r["copy"]),
        ("resume command on the page", lambda r: "yes" if r["resume"] else "no"),
        ("first prompt's time in New York time", lambda r: "yes" if r.get("local") else "no"),
        ("zone named (EST/EDT)", lambda r: "yes" if r.get("zone") else "no"),
        ("shown in UTC", lambda r: "yes" if r.get("utc") else "no"),
        ("<time datetime> elements", lambda r: r["times"]),
        ("visible text on load (chars)", lambda r: f"{r['chars']:,}"),
        ("page height at 1280 px (px)", lambda r: f"{r['height']:,}"),
        ("files written", lambda r: r["files"]),
        ("bytes written", lambda r: f"{r['bytes']:,}" if isinstance(r["bytes"], int) else r["bytes"]),
        ("<script> elements", lambda r: r["scripts"]),
        ("external scripts / stylesheets", lambda r: r["external"]),
        ("network requests on open", lambda r: r["requests"]),
        ("axe-core violations (WCAG A/AA)", lambda r: "-" if r["axe"] is None else r["axe"]),
    ]
    names = list(rows)
    print(f"\n{'':38}" + "".join(f"{n:>26}" for n in names))
    for label, cell in labels:
        print(f"{label:38}" + "".join(f"{cell(rows[n])!s:>26}" for n in names))
    print(f"\npages in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
