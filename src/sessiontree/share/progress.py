"""A spinner on stderr while something slow runs (a plain line when stderr is not a terminal)."""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


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
            out.write(f"\r{frame} {text}")
            out.flush()
            if stop.wait(interval):
                break

    thread = threading.Thread(target=spin, name="sessiontree-spinner", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        out.write("\r\x1b[2K")
        out.flush()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
