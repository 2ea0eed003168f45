"""A build killed half-way leaves the previous site readable, and the next build finishes the work."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sessiontree.site import layout
from sessiontree.site.manifest import load_manifest
from tests.site.archive import Archive, page_stamps


def _full_pipe() -> tuple[int, int]:
    """A pipe whose buffer is already full: the first write to it blocks (a child stops right there)."""
    read_fd, write_fd = os.pipe()
    flags = fcntl.fcntl(write_fd, fcntl.F_GETFL)
    fcntl.fcntl(write_fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    try:
        while True:
            os.write(write_fd, b"x" * 4096)
    except BlockingIOError:
        pass
    try:
        while True:
            os.write(write_fd, b"x")
    except BlockingIOError:
        pass
    fcntl.fcntl(write_fd, fcntl.F_SETFL, flags)
    return read_fd, write_fd


def wait_for(condition: object, what: str, timeout: float = 120.0) -> None:
    """Poll ``condition`` until true; fail after ``timeout`` seconds (a ceiling, not a measure)."""
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def _complete(page: Path) -> bool:
    return page.read_bytes().rstrip().endswith(b"</html>")


def test_a_build_killed_half_way_leaves_the_old_site_and_the_next_build_completes(
    archive: Archive, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    cmd = [
        sys.executable,
        "-m",
        "sessiontree",
        "build",
        str(archive.root),
        "-o",
        str(site),
        "-j",
        "1",
        "--no-search",
    ]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert first.returncode == 1 and "notes.jsonl" in first.stderr  # the one unreadable file
    old_index = (site / "index.html").read_bytes()
    old_manifest = (site / layout.MANIFEST).read_bytes()
    old_stamps = page_stamps(site)
    assert len(old_stamps) == 6

    for path in [*archive.app, archive.corrupt]:  # every readable session changes
        last = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])
        with path.open("a", encoding="utf-8") as fh:
            entry = {
                "type": "label",
                "id": f"late-{path.stem}",
                "parentId": last.get("id"),
                "timestamp": "2026-11-30T10:00:00.000Z",
                "targetId": last.get("id"),
                "label": "late",
            }
            fh.write(json.dumps(entry) + "\n")

    # The child reports progress on stderr after each page; that pipe is full, so it stops in its
    # first report, after one page is written and before anything else: then it is killed.
    read_fd, write_fd = _full_pipe()
    try:
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=write_fd, stdin=subprocess.DEVNULL)
        os.close(write_fd)

        def one_page_rewritten() -> bool:
            now = page_stamps(site)
            return any(now.get(p) != s for p, s in old_stamps.items())

        wait_for(one_page_rewritten, "the first page of the second build")
        assert child.poll() is None  # blocked in its progress report, not finished
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        os.close(read_fd)

    # The old site is whole: its index and manifest, every page it links to, complete.
    assert (site / "index.html").read_bytes() == old_index
    assert (site / layout.MANIFEST).read_bytes() == old_manifest
    for page in old_stamps:
        assert _complete(site / page), page
    rewritten = [p for p, s in page_stamps(site).items() if s != old_stamps[p]]
    assert len(rewritten) == 1

    # The next build finishes: every changed session rendered, the index and manifest new.
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 1, again.stderr
    assert "4 rendered, 2 unchanged" in again.stdout, again.stdout
    final = page_stamps(site)
    changed_keys = [p.relative_to(archive.root).as_posix() for p in [*archive.app, archive.corrupt]]
    for key in changed_keys:
        assert final[layout.page_path(key)] != old_stamps[layout.page_path(key)]
        assert _complete(site / layout.page_path(key))
    assert (site / layout.MANIFEST).read_bytes() != old_manifest
    assert not list(site.rglob(layout.TEMP_GLOB))


def test_two_builds_of_one_site_take_turns_and_neither_damages_the_other(
    archive: Archive, tmp_path: Path
) -> None:
    from tests.site.test_killed_builds import check_site

    site = tmp_path / "site"
    cmd = [sys.executable, "-m", "sessiontree", "build", str(archive.root), "-o", str(site), "-j", "1"]
    # The first build stops in its first progress report (a full pipe) while it holds the lock.
    read_fd, write_fd = _full_pipe()
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=write_fd, stdin=subprocess.DEVNULL)
    os.close(write_fd)
    drained: list[bytes] = []
    try:
        wait_for(lambda: any((site / "sessions").rglob("*.html")), "the first build's first page")
        second = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert second.stderr is not None
        waiting = second.stderr.readline()
        assert waiting.startswith(f"Another build is writing {site} (pid {first.pid})"), waiting
        assert first.poll() is None and second.poll() is None

        def drain() -> None:
            while chunk := os.read(read_fd, 65536):
                drained.append(chunk)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()  # the first build goes on; the second starts when it ends
        first_out, _ = first.communicate(timeout=600)
        second_out, second_err = second.communicate(timeout=600)
        reader.join(timeout=60)
    finally:
        os.close(read_fd)
    assert first.returncode == second.returncode == 1  # the one unreadable file, each time
    assert b"6 rendered, 0 unchanged" in first_out
    assert "0 rendered, 6 unchanged" in second_out  # it found the first build's work whole
    assert "Traceback" not in second_err and b"Traceback" not in b"".join(drained)
    check_site(site)
    assert len(load_manifest(site).bundles) >= 1
