"""Clipboard without a clipboard tool: the OSC 52 escape, byte for byte, on a real pty; never silent."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import os
import select
import shutil
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.exporter.clipboard import (
    _read_back,
    copy_to_clipboard,
    copy_with_pyperclip,
    no_tool_reason,
    osc52_sequence,
)
from sessiontree.exporter.text import format_session_as_text
from sessiontree.store import load_session
from tests.exporter.test_text import every_kind_entries, write_session

# `printf '## User\n\nCopy me: café ✓\n' | base64` (coreutils), so the expectation is not our own code.
SAMPLE = "## User\n\nCopy me: café ✓\n"
SAMPLE_B64 = b"IyMgVXNlcgoKQ29weSBtZTogY2Fmw6kg4pyTCg=="
# `printf 'x%.0s' $(seq 1 100) | base64`: 136 characters, two pieces for GNU screen.
HUNDRED_X_B64 = (
    b"eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4"
    b"eHh4eHh4eHh4eHh4eHh4eHh4eHh4eHh4eA=="
)
PLAIN_ENV = {"TERM": "xterm-256color"}


def test_osc52_sequence_is_the_base64_of_the_utf8_text() -> None:
    assert osc52_sequence(SAMPLE, PLAIN_ENV) == b"\x1b]52;c;" + SAMPLE_B64 + b"\x07"
    assert osc52_sequence("", PLAIN_ENV) == b"\x1b]52;c;\x07"


def test_osc52_inside_tmux_uses_the_passthrough_with_doubled_escapes() -> None:
    env = {"TMUX": "/tmp/tmux-1000/default,123,0", "TERM": "screen-256color"}
    assert osc52_sequence(SAMPLE, env) == b"\x1bPtmux;\x1b\x1b]52;c;" + SAMPLE_B64 + b"\x07\x1b\\"


def test_osc52_inside_gnu_screen_is_cut_into_dcs_pieces() -> None:
    expected = b"\x1bP\x1b]52;c;" + HUNDRED_X_B64[:76] + b"\x1b\\\x1bP" + HUNDRED_X_B64[76:] + b"\x07\x1b\\"
    assert osc52_sequence("x" * 100, {"STY": "1234.pts-0.host", "TERM": "screen"}) == expected


PATH_AT_START = os.environ.get("PATH", os.defpath)


@pytest.fixture
def no_clipboard_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """No display and no clipboard tool on PATH: pyperclip finds no mechanism."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "TMUX", "STY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("TERM", "xterm-256color")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "TMUX", "STY")}
    return {**env, "PATH": str(empty), "TERM": "xterm-256color"}


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    master, slave = os.openpty()
    try:
        yield master, slave
    finally:
        for fd in (master, slave):
            with contextlib.suppress(OSError):
                os.close(fd)


def read_until_closed(
    master: int, proc: subprocess.Popen[bytes] | None = None, timeout: float = 120
) -> bytes:
    """Read a pty master until every slave end is closed (EIO) or, with no process, nothing more comes."""
    out = bytearray()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            if proc is None:
                return bytes(out)
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last slave fd went away
            return bytes(out)
        if not chunk:
            return bytes(out)
        out += chunk
    if proc is not None:
        proc.kill()
    raise AssertionError(f"pty still open after {timeout}s; got {bytes(out[:200])!r}")


def test_copy_falls_back_to_osc52_on_the_given_terminal(
    no_clipboard_tool: dict[str, str], pty_pair: tuple[int, int]
) -> None:
    master, slave = pty_pair
    result = copy_to_clipboard(SAMPLE, terminal=slave)
    assert result.method == "osc52"
    assert "no clipboard tool found" in result.fallback_reason
    assert read_until_closed(master) == b"\x1b]52;c;" + SAMPLE_B64 + b"\x07"


def test_a_tool_that_fails_is_caught_by_the_read_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # xclip is on PATH but the display does not exist: xclip exits 1 and pyperclip says nothing.
    number = next(n for n in range(4242, 4342) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", f":{number}")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    tool, reason = copy_with_pyperclip("text that goes nowhere")
    assert tool is None
    assert reason.startswith("xclip did not take the text")
    assert "Can't open display" in reason


def test_a_copy_served_late_is_read_back_once_it_is_there(tmp_path: Path) -> None:
    # xclip's child takes the selection after `copy` returns; on a busy machine the first
    # pastes still see the old clipboard.
    pastes: list[str] = []
    served = ["old", "old", "", SAMPLE]

    def paste() -> str:
        pastes.append(served[min(len(pastes), len(served) - 1)])
        return pastes[-1]

    with (tmp_path / "err").open("w+b") as err:
        assert _read_back(paste, SAMPLE, err) == SAMPLE
    assert pastes == served


def test_a_copy_never_served_is_given_up_when_the_tool_complains(tmp_path: Path) -> None:
    calls: list[int] = []

    def paste() -> str:
        calls.append(1)
        return "old"

    with (tmp_path / "err").open("w+b") as err:
        err.write(b"Error: Can't open display\n")
        err.flush()
        assert _read_back(paste, SAMPLE, err) == "old"
    assert calls == [1]


def _every_kind(tmp_path: Path) -> tuple[Path, str]:
    path = write_session(tmp_path / "every-kind.jsonl", every_kind_entries())
    return path, format_session_as_text(load_session(path))


def _dump(path: Path) -> list[str]:
    return [sys.executable, "-m", "sessiontree", "dump", str(path)]


def _take_controlling_tty() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_cli_writes_osc52_to_the_controlling_terminal(
    tmp_path: Path, no_clipboard_tool: dict[str, str], pty_pair: tuple[int, int]
) -> None:
    path, text = _every_kind(tmp_path)
    master, slave = pty_pair
    out_file = tmp_path / "stdout.txt"
    with out_file.open("wb") as out:
        proc = subprocess.Popen(
            _dump(path),
            stdin=slave,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=no_clipboard_tool,
            start_new_session=True,
            preexec_fn=_take_controlling_tty,  # the pty becomes the child's /dev/tty
        )
        os.close(slave)
        received = read_until_closed(master, proc)
        assert proc.wait(timeout=30) == 0
    b64 = base64.b64encode(text.encode("utf-8"))
    assert received == b"\x1b]52;c;" + b64 + b"\x07"
    report = out_file.read_text(encoding="utf-8")
    assert f"Copied {len(text):,} characters (~{round(len(text) / 4):,} tokens) to the clipboard" in report
    assert "via the terminal (OSC 52)" in report
    assert "no clipboard tool found (xclip, xsel, wl-copy, pbcopy, clip.exe)" in report


def test_cli_without_a_controlling_terminal_uses_a_tty_stdout(
    tmp_path: Path, no_clipboard_tool: dict[str, str], pty_pair: tuple[int, int]
) -> None:
    path, text = _every_kind(tmp_path)
    master, slave = pty_pair
    proc = subprocess.Popen(
        _dump(path),
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=no_clipboard_tool,
        start_new_session=True,  # no controlling terminal: /dev/tty cannot be opened
    )
    os.close(slave)
    received = read_until_closed(master, proc)
    assert proc.wait(timeout=30) == 0
    b64 = base64.b64encode(text.encode("utf-8"))
    sequence = b"\x1b]52;c;" + b64 + b"\x07"
    assert received.startswith(sequence)
    assert b"to the clipboard via the terminal (OSC 52)" in received[len(sequence) :]


def _dump_without_terminal(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    path, _ = _every_kind(tmp_path)
    return subprocess.run(
        _dump(path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        start_new_session=True,
        timeout=60,
    )


def test_cli_with_no_clipboard_and_no_terminal_fails_loudly(
    tmp_path: Path, no_clipboard_tool: dict[str, str]
) -> None:
    proc = _dump_without_terminal(tmp_path, no_clipboard_tool)
    assert proc.returncode == 1
    assert proc.stdout == b""
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("Error: Cannot reach the clipboard: no clipboard tool found")
    assert "use --stdout" in err


def test_no_tool_reason_names_the_missing_display(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "xclip"
    tool.write_text("#!/bin/sh\nexit 1\n")
    tool.chmod(0o755)
    reason = no_tool_reason({"PATH": str(bin_dir)})
    assert reason.startswith("xclip installed but no display to reach")
    assert "DISPLAY and WAYLAND_DISPLAY are unset" in reason
    # with a display set, the tool was not missing its display: the generic reason stays
    assert no_tool_reason({"PATH": str(bin_dir), "DISPLAY": ":9"}).startswith("no clipboard tool found")
    assert no_tool_reason({"PATH": str(tmp_path / "none")}).startswith("no clipboard tool found")


def test_cli_with_xclip_but_no_display_says_what_is_missing_and_what_works(
    tmp_path: Path, no_clipboard_tool: dict[str, str]
) -> None:
    xclip = shutil.which("xclip", path=PATH_AT_START)  # the fixture emptied PATH
    if xclip is None:
        pytest.fail("xclip not installed: run scripts/setup --test")
    bin_dir = Path(no_clipboard_tool["PATH"])
    (bin_dir / "xclip").symlink_to(xclip)
    proc = _dump_without_terminal(tmp_path, no_clipboard_tool)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "no clipboard tool found" not in err
    assert "xclip installed but no display to reach (DISPLAY and WAYLAND_DISPLAY are unset" in err
    assert "use --stdout" in err and "inside a terminal that supports OSC 52" in err
