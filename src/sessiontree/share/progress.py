"""A spinner on stderr while something slow runs (a plain line when stderr is not a terminal)."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
CLEAR_LINE = "\r\x1b[2K"

# The spinner's frames and echo() share one lock, so a line printed meanwhile is never torn.
_lock = threading.Lock()
_spinning: set[int] = set()  # ids of the streams a spinner is drawing on


@contextmanager
def spinner(text: str, stream: TextIO | None = None, interval: float = 0.1) -> Iterator[None]:
    """Show ``text`` with a spinner until the block ends; the line is cleared afterwards."""
    out = stream if stream is not None else sys.stderr
    if not _is_tty(out):
        out.write(f"{text}\n")
        out.flush()
        yield
        return
    stop = threading.Event()

    def spin() -> None:
        for frame in itertools.cycle(FRAMES):
            with _lock:
                out.write(f"\r{frame} {text}")
                out.flush()
            if stop.wait(interval):
                break

    thread = threading.Thread(target=spin, name="sessiontree-spinner", daemon=True)
    _spinning.add(id(out))
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        _spinning.discard(id(out))
        with _lock:
            out.write(CLEAR_LINE)
            out.flush()


def echo(text: str, stream: TextIO | None = None) -> None:
    """Print a line on stderr, first clearing a spinner drawn there (it redraws on its next frame)."""
    out = stream if stream is not None else sys.stderr
    with _lock:
        out.write((CLEAR_LINE if id(out) in _spinning else "") + text + "\n")
        out.flush()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
