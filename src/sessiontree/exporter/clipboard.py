"""Copy text to the clipboard: a clipboard tool through pyperclip, else the terminal's OSC 52 escape.

Never a silent failure: a copy is read back to check it took, and when no way works a
``ClipboardError`` says to use ``--stdout``.
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

import pyperclip

from sessiontree.errors import ClipboardError

TOOLS_HINT = "xclip, xsel, wl-copy, pbcopy, clip.exe"
# The tools that need a graphical session: X (DISPLAY) for xclip and xsel, Wayland for wl-copy.
_DISPLAY_TOOLS = {"xclip": "DISPLAY", "xsel": "DISPLAY", "wl-copy": "WAYLAND_DISPLAY"}

# pyperclip's copy functions, by name, to the tool they run.
_MECHANISMS = {
    "copy_xclip": "xclip",
    "copy_xsel": "xsel",
    "copy_wl": "wl-copy",
    "copy_osx_pbcopy": "pbcopy",
    "copy_osx_pyobjc": "pyobjc",
    "copy_wsl": "clip.exe",
    "copy_klipper": "klipper",
    "copy_qt": "qt",
    "copy_windows": "windows",
    "copy_dev_clipboard": "/dev/clipboard",
}

# GNU screen drops DCS strings longer than its buffer; the usual fix is 76-character pieces.
SCREEN_CHUNK = 76


@dataclass(frozen=True)
class CopyResult:
    """How the text reached the clipboard: ``method`` is a tool name or ``osc52``."""

    method: str
    fallback_reason: str = ""


def _same_text(pasted: Any, text: str) -> bool:
    """Return True when a read-back equals the text (line endings and a final newline aside)."""
    if not isinstance(pasted, str):
        return False

    def norm(s: str) -> str:
        return s.replace("\r\n", "\n").rstrip("\n")

    return norm(pasted) == norm(text)


@contextlib.contextmanager
def _child_output_captured() -> Iterator[IO[bytes]]:
    """Point fds 1 and 2 away while a tool runs; yield the file its stderr goes to.

    xclip and xsel stay in the background to serve the selection and keep the fds they inherited:
    left on our stdout they would hold a pipe open (``sessiontree dump x | cat`` would never end).
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with tempfile.TemporaryFile() as err:
        saved: list[tuple[int, int]] = []
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            for fd, target in ((1, devnull), (2, err.fileno())):
                try:
                    saved.append((fd, os.dup(fd)))
                except OSError:  # fd not open: nothing to protect
                    continue
                os.dup2(target, fd)
            yield err
        finally:
            for fd, copy in saved:
                os.dup2(copy, fd)
                os.close(copy)
            os.close(devnull)


def _stderr_line(err: IO[bytes]) -> str:
    err.seek(0)
    lines = err.read(4096).decode("utf-8", "replace").strip().splitlines()
    return lines[0].strip() if lines else ""


READ_BACK_SECONDS = 5.0
"""How long a copy may take to be served: xclip and xsel fork a child that must first take the
selection, which on a busy machine comes after ``copy`` has returned."""


def _read_back(paste: Callable[[], str], text: str, err: IO[bytes]) -> Any:
    """Paste until the clipboard holds the text, the tool complains on ``err``, or
    ``READ_BACK_SECONDS`` pass; the last paste."""
    deadline = time.monotonic() + READ_BACK_SECONDS
    delay = 0.01
    while True:
        pasted: Any = paste()
        if _same_text(pasted, text) or os.fstat(err.fileno()).st_size or time.monotonic() >= deadline:
            return pasted
        time.sleep(delay)
        delay = min(delay * 2, 0.2)


def copy_with_pyperclip(text: str) -> tuple[str | None, str]:
    """Copy with the tool pyperclip finds and read it back: ``(tool, "")`` or ``(None, reason)``."""
    copy: Any
    paste: Callable[[], str]
    copy, paste = pyperclip.determine_clipboard()
    if not copy:  # pyperclip's "no mechanism" stand-in is falsy
        return None, no_tool_reason()
    name = _MECHANISMS.get(getattr(copy, "__name__", ""), "clipboard tool")
    with _child_output_captured() as err:
        try:
            copy(text)
            pasted = _read_back(paste, text, err)
        except (pyperclip.PyperclipException, OSError) as exc:
            return None, f"{name} failed: {exc}"
        complaint = _stderr_line(err)
    if not _same_text(pasted, text):
        return None, f"{name} did not take the text" + (f" ({complaint})" if complaint else "")
    return name, ""


def no_tool_reason(env: Mapping[str, str] | None = None) -> str:
    """Say why no clipboard tool is usable: none installed, or installed with no display to reach."""
    env = os.environ if env is None else env
    installed = [tool for tool in _DISPLAY_TOOLS if shutil.which(tool, path=env.get("PATH"))]
    unreachable = [tool for tool in installed if not env.get(_DISPLAY_TOOLS[tool])]
    if installed and unreachable == installed:
        return (
            f"{', '.join(installed)} installed but no display to reach "
            "(DISPLAY and WAYLAND_DISPLAY are unset: no X or Wayland session here, as over SSH)"
        )
    return f"no clipboard tool found ({TOOLS_HINT})"


def osc52_sequence(text: str, env: Mapping[str, str] | None = None) -> bytes:
    """Return the OSC 52 escape that sets the clipboard, wrapped for tmux or GNU screen if inside one."""
    env = os.environ if env is None else env
    b64 = base64.b64encode(text.encode("utf-8")).decode("ascii")
    osc = f"\x1b]52;c;{b64}\x07"
    if env.get("TMUX"):
        # tmux passthrough: the inner escapes are doubled (needs `set -g allow-passthrough on`).
        return f"\x1bPtmux;{osc.replace(chr(27), chr(27) * 2)}\x1b\\".encode("ascii")
    if env.get("STY") or env.get("TERM", "").startswith("screen"):
        chunks = [b64[i : i + SCREEN_CHUNK] for i in range(0, len(b64), SCREEN_CHUNK)] or [""]
        # Each piece is its own DCS string; screen passes their contents on, joined.
        return ("\x1bP\x1b]52;c;" + "\x1b\\\x1bP".join(chunks) + "\x07\x1b\\").encode("ascii")
    return osc.encode("ascii")


def _stdout_fd() -> int | None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
    return fd if os.isatty(fd) else None


@contextlib.contextmanager
def _terminal() -> Iterator[int | None]:
    """Yield a writable fd on the controlling terminal (``/dev/tty``, else a tty stdout), or None."""
    try:
        fd = os.open("/dev/tty", os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    except OSError:
        yield _stdout_fd()
        return
    try:
        yield fd
    finally:
        os.close(fd)


def write_osc52(text: str, fd: int, env: Mapping[str, str] | None = None) -> None:
    """Write the OSC 52 escape for ``text`` to the terminal ``fd``."""
    if fd == 1:
        sys.stdout.flush()
    data = memoryview(osc52_sequence(text, env))
    while data:
        data = data[os.write(fd, data) :]


def copy_to_clipboard(
    text: str, *, terminal: int | None = None, env: Mapping[str, str] | None = None
) -> CopyResult:
    """Copy ``text``: a clipboard tool, else OSC 52 on the terminal (``terminal`` fd, if given).

    Raises ``ClipboardError`` when neither works.
    """
    tool, reason = copy_with_pyperclip(text)
    if tool is not None:
        return CopyResult(tool)
    if terminal is not None:
        write_osc52(text, terminal, env)
        return CopyResult("osc52", reason)
    with _terminal() as fd:
        if fd is None:
            raise ClipboardError(
                f"Cannot reach the clipboard: {reason}, and no terminal for the OSC 52 escape "
                "(run inside a terminal that supports OSC 52 to copy through it); "
                "use --stdout and pipe the text where you need it"
            )
        write_osc52(text, fd, env)
    return CopyResult("osc52", reason)
