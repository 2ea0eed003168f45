"""The one atomic write and temp-name scheme: the pid in every temp name, cleanup of dead writers only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.store.atomic import TEMP_NAME, remove_stale_temps, write_atomic
from tests.store.helpers import dead_pid


def test_a_write_in_progress_names_its_process_and_a_failed_one_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "page.html"
    target.write_text("old")
    seen: list[str] = []

    def chunks() -> Iterator[str]:
        yield "half"
        seen.extend(p.name for p in tmp_path.iterdir() if p != target)
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, chunks())
    assert len(seen) == 1
    match = TEMP_NAME.match(seen[0])
    assert match is not None and int(match.group(1)) == os.getpid()
    assert seen[0].startswith(".page.html.")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"] and target.read_text() == "old"
    write_atomic(target, "new")
    assert target.read_text() == "new" and sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_recursive_cleanup_removes_dead_writers_temps_only(tmp_path: Path) -> None:
    dead = dead_pid()
    deep = tmp_path / "sessions" / "a"
    deep.mkdir(parents=True)
    stale_file = deep / f".x.html.sessiontree-{dead}-0123abcd.tmp"
    stale_dir = tmp_path / f".copy.sessiontree-{dead}-00ff00ff.tmp"
    inside = stale_dir / "sub" / f".y.sessiontree-{dead}-11111111.tmp"
    live = deep / f".z.html.sessiontree-{os.getpid()}-22222222.tmp"
    user = deep / ".notes.tmp"
    for path in (stale_file, inside, live, user):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x")
    assert remove_stale_temps(tmp_path) == [stale_dir]  # not recursive: the top folder only
    assert stale_file.exists() and not stale_dir.exists()
    inside.parent.mkdir(parents=True)
    inside.write_text("x")
    # Recursive: a dead temp folder goes whole (what is inside it is not listed apart).
    assert remove_stale_temps(tmp_path, recursive=True) == sorted([stale_dir, stale_file])
    assert live.exists() and user.exists() and not stale_file.exists() and not stale_dir.exists()


def test_a_killed_writer_not_yet_reaped_is_dead(tmp_path: Path) -> None:
    # A killed build worker stays a zombie until its parent waits for it: its temp is stale.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        temp = tmp_path / f".page.html.sessiontree-{child.pid}-0123abcd.tmp"
        temp.write_text("half")
        assert remove_stale_temps(tmp_path) == []  # running: kept
        child.kill()
        stat = Path(f"/proc/{child.pid}/stat")
        if not stat.exists():
            pytest.skip("no /proc here: a zombie cannot be told from a live process")
        deadline = time.monotonic() + 30
        while stat.read_bytes().rsplit(b")", 1)[1][1:2] != b"Z":
            assert time.monotonic() < deadline, "the killed child never became a zombie"
            time.sleep(0.01)
        assert remove_stale_temps(tmp_path) == [temp] and not temp.exists()
    finally:
        child.kill()
        child.wait()


def _syscalls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The fsyncs (by the path their descriptor names) and renames this process makes, in order."""
    made: list[tuple[str, str]] = []
    fsync, replace = os.fsync, os.replace

    def fsync_spy(fd: int) -> None:
        made.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        fsync(fd)

    def replace_spy(src: str | Path, dst: str | Path) -> None:
        replace(src, dst)
        made.append(("rename", str(dst)))

    monkeypatch.setattr(os, "fsync", fsync_spy)
    monkeypatch.setattr(os, "replace", replace_spy)
    return made


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names a descriptor's file through /proc")
def test_a_durable_write_fsyncs_its_bytes_before_the_rename_and_its_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "state.json"
    made = _syscalls(monkeypatch)
    write_atomic(target, b"{}")
    (synced, temp), renamed, folder = made
    assert synced == "fsync" and TEMP_NAME.match(Path(temp).name)
    assert renamed == ("rename", str(target)) and folder == ("fsync", str(tmp_path))
    made.clear()
    write_atomic(target, b"[]", durable=False)  # a site's page: its folder not fsynced per file
    assert [op for op, _ in made] == ["fsync", "rename"] and target.read_bytes() == b"[]"
