"""The clipboard for real: `sessiontree dump` under Xvfb copies through xclip, read back with xclip -o."""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.exporter.text import format_session_as_text
from sessiontree.store import load_session
from tests.exporter.test_text import every_kind_entries, write_session

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="Xvfb and xclip are Linux tools")


@pytest.fixture(scope="module")
def x_display() -> Iterator[str]:
    """Start Xvfb on a display number it picks itself (free) and wait for its socket."""
    missing = [tool for tool in ("Xvfb", "xclip") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed: run scripts/setup --test")
    read_end, write_end = os.pipe()
    proc = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-nolisten", "tcp", "-screen", "0", "320x200x24"],
        pass_fds=(write_end,),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    os.close(write_end)
    try:
        number = b""
        deadline = time.monotonic() + 30
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            if select.select([read_end], [], [], 0.5)[0]:
                chunk = os.read(read_end, 16)
                if not chunk:
                    break
                number += chunk
        assert number.strip().isdigit(), f"Xvfb did not report a display (exit {proc.poll()})"
        socket = Path(f"/tmp/.X11-unix/X{int(number)}")
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert socket.exists(), f"no X socket at {socket}"
        yield f":{int(number)}"
    finally:
        os.close(read_end)
        proc.terminate()  # the xclip left serving the selection exits with its display
        proc.wait(timeout=30)


def x_env(display: str, tmp_path: Path) -> dict[str, str]:
    """An environment where pyperclip can only pick xclip: DISPLAY set, xclip the one tool on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    link = bin_dir / "xclip"
    if not link.exists():
        link.symlink_to(shutil.which("xclip") or "/usr/bin/xclip")
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "TMUX", "STY")}
    return {**env, "DISPLAY": display, "PATH": str(bin_dir)}


def read_clipboard(env: dict[str, str]) -> str:
    out = subprocess.run(
        ["xclip", "-selection", "clipboard", "-o"], env=env, capture_output=True, timeout=30, check=True
    )
    return out.stdout.decode("utf-8")


def clipboard_once_it_holds(env: dict[str, str], expected: str, within: float = 60.0) -> str | None:
    """Read the clipboard until it holds ``expected`` (or ``within`` seconds pass); return the last read.

    A state to wait for, not an instant to sample: under load the background xclip that serves
    the selection may answer a moment later (one read-back failed on a fresh clone under load).
    """
    deadline = time.monotonic() + within
    while True:
        try:
            got: str | None = read_clipboard(env)
        except (subprocess.SubprocessError, UnicodeDecodeError):
            got = None
        if got == expected or time.monotonic() > deadline:
            return got
        time.sleep(0.05)


def run_dump(path: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[bytes]:
    # Pipes for stdout/stderr: the xclip left in the background must not hold them open (that would hang).
    return subprocess.run(
        [sys.executable, "-m", "sessiontree", "dump", str(path), *args],
        env=env,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        timeout=120,
    )


def test_dump_copies_to_the_x_clipboard(x_display: str, tmp_path: Path) -> None:
    path = write_session(tmp_path / "every-kind.jsonl", every_kind_entries())
    env = x_env(x_display, tmp_path)
    expected = format_session_as_text(load_session(path))
    proc = run_dump(path, env)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == (
        f"Copied {len(expected):,} characters (~{round(len(expected) / 4):,} tokens) to the clipboard\n"
    )
    assert proc.stderr == b""
    assert clipboard_once_it_holds(env, expected) == expected
    assert "café ✓" in read_clipboard(env)


def test_dump_of_the_real_v1_fixture_and_a_filter_through_xclip(
    x_display: str, tmp_path: Path, real_v1: Path
) -> None:
    env = x_env(x_display, tmp_path)
    expected = format_session_as_text(load_session(real_v1))
    assert len(expected) > 100_000  # large enough to need xclip's incremental transfer
    proc = run_dump(real_v1, env)
    assert proc.returncode == 0, proc.stderr.decode()
    assert clipboard_once_it_holds(env, expected) == expected

    proc = run_dump(real_v1, env, "--user-only")
    assert proc.returncode == 0, proc.stderr.decode()
    user_only = format_session_as_text(load_session(real_v1), filter="user-only")
    assert clipboard_once_it_holds(env, user_only) == user_only
