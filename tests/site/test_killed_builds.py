"""Builds SIGKILLed at random moments: the site stays whole, nothing survives, the next build repairs.

Real ``sessiontree build`` processes over a small archive that changes between kills (a line
appended, a session added or deleted); each is killed after a delay drawn (fixed seed) over the
length of an uninterrupted build, so kills land in every step, until 50 kills have landed inside
a build. After each kill: every link of
the index and usage pages and every file the manifest names exists, every search bundle the index
loads is whole, and no process of the build's session is left. Every tenth kill the build is run
to the end and the site must equal one built without interruption from the same sessions.
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

from sessiontree.site import layout
from sessiontree.site.manifest import load_manifest
from sessiontree.site.pagefind_index import bundle_intact
from tests.conftest import GenSession
from tests.site.test_interrupted import wait_for

KILLS = 50
COMPLETE_EVERY = 10
_LINK = re.compile(r'(?:href|src)="(?![a-z]+:)([^"#?]+)[^"]*"')
_BUNDLES = re.compile(r"pagefind-[0-9a-f]{16}")


def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[3])


def survivors(session: int) -> list[int]:
    """Processes still in the killed build's session (its workers, Pagefind, anything it started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _session_of(int(entry)) == session:
            found.append(int(entry))
    return found


def check_site(site: Path) -> None:
    """Every link works and every search bundle the index page loads is whole."""
    for page in ("index.html", layout.USAGE_PAGE):
        if not (site / page).exists():
            assert page == layout.USAGE_PAGE, "the index page is gone"
            continue
        html = (site / page).read_text(encoding="utf-8")
        for link in _LINK.findall(html):
            assert (site / link).is_file(), f"{page} links {link}, which does not exist"
        for bundle in set(_BUNDLES.findall(html)):
            folder = site / bundle
            entry = json.loads((folder / "pagefind-entry.json").read_text(encoding="utf-8"))
            for language in entry["languages"].values():
                assert (folder / f"pagefind.{language['hash']}.pf_meta").is_file()
            for part in folder.rglob("*.pf_*"):
                gzip.decompress(part.read_bytes())  # raises on a file cut short
    manifest = load_manifest(site)
    for rec in manifest.pages.values():
        assert (site / rec.page).is_file() and (site / rec.records).is_file(), rec.page
    for bundle in manifest.bundles.values():
        assert bundle_intact(site, bundle), bundle.name


def site_files(site: Path) -> dict[str, bytes]:
    """The site's files, without the build's own caches and lock (their bytes follow history).

    The index page marks sessions changed in the minute before it was written: that mark follows
    the clock, not the build's history, so it is left out.
    """
    skip = (f"{layout.STATE_DIR}/catalog", f"{layout.STATE_DIR}/build.lock")
    return {
        rel: p.read_bytes().replace(b'class="st-live st-on"', b'class="st-live"')
        for p in sorted(site.rglob("*"))
        if p.is_file() and not (rel := p.relative_to(site).as_posix()).startswith(skip)
    }


def assert_same_site(site: Path, reference: Path, when: str) -> None:
    """The two sites hold the same files byte for byte (the message shows where they differ)."""
    ours, theirs = site_files(site), site_files(reference)
    assert ours.keys() == theirs.keys(), when
    for rel, data in ours.items():
        if data != theirs[rel]:
            lines = difflib.unified_diff(
                theirs[rel].decode("utf-8", "replace").replace(">", ">\n").splitlines(),
                data.decode("utf-8", "replace").replace(">", ">\n").splitlines(),
                lineterm="",
                n=1,
            )
            raise AssertionError(f"{rel} differs {when}:\n" + "\n".join(list(lines)[:40]))


def change(root: Path, rng: random.Random, spare: list[Path]) -> None:
    """One change an agent makes: a line appended to a session, a session added, or one deleted."""
    sessions = sorted(root.rglob("*.jsonl"))
    roll = rng.random()
    if roll < 0.15 and spare:
        source = spare.pop()
        target = root / "--home-dev-new--" / f"2026-11-2{len(spare)}_{source.parent.name}.jsonl"
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, target)
    elif roll < 0.25 and len(sessions) > 3:
        rng.choice(sessions).unlink()
    else:
        path = rng.choice(sessions)
        last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        line = {
            "type": "label",
            "id": f"k{rng.getrandbits(32):08x}",
            "parentId": last.get("id"),
            "timestamp": "2026-11-30T10:00:00.000Z",
            "targetId": last.get("id"),
            "label": "late",
        }
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


@pytest.mark.slow(seconds=140)
@pytest.mark.timeout(1800)
def test_builds_killed_at_random_moments_leave_a_whole_site_and_no_survivors(
    tmp_path: Path, gen_session: GenSession
) -> None:
    root = tmp_path / "sessions"
    for i in range(4):
        project = root / f"--home-dev-p{i % 2}--"
        project.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(gen_session(4, seed=40 + i), project / f"2026-11-0{i + 1}_s{i}.jsonl")
    spare = [gen_session(3, seed=60 + i) for i in range(4)]
    site, reference = tmp_path / "site", tmp_path / "reference"

    def command(out: Path) -> list[str]:
        return [sys.executable, "-m", "sessiontree", "build", str(root), "-o", str(out), "-j", "2", "-q"]

    def build(out: Path) -> float:
        start = time.monotonic()
        done = subprocess.run(command(out), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return time.monotonic() - start

    build(reference)
    build(site)
    rng = random.Random(2026)
    change(root, rng, spare)
    length = build(site)  # an incremental build: the kills below are spread over one
    killed = rounds = 0
    while killed < KILLS:  # kills that landed inside a build; a build that ended first is not one
        rounds += 1
        assert rounds <= 4 * KILLS, f"only {killed} of {rounds} kills landed inside a build"
        change(root, rng, spare)
        child = subprocess.Popen(
            command(site), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        try:
            child.wait(timeout=rng.uniform(0.0, 0.6 * length))
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)  # the build only: what it started must go by itself
            killed += 1
        child.wait()
        gone = partial(lambda session: not survivors(session), child.pid)
        wait_for(gone, f"the processes of killed build {killed} to end", timeout=60)
        check_site(site)
        if child.returncode == -signal.SIGKILL and killed % COMPLETE_EVERY == 0:
            build(site)
            build(reference)
            check_site(site)
            assert_same_site(site, reference, f"after kill {killed}")
            assert not list(site.rglob(layout.TEMP_GLOB))
            assert not (site / layout.STATE_DIR / "staging").exists()
