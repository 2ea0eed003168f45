"""Run a child process that Ctrl-C really stops."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sessiontree.errors import ShareCancelled, ShareError

# How long a child may take to exit after being asked to stop before it is killed.
TERMINATE_GRACE = 5.0
SIGNAL_CHECK = 0.2
"""Seconds between the main thread's looks at a pending Ctrl-C while the child runs."""


def run_interruptible(command: list[str], cwd: Path | None = None) -> tuple[int, str, str]:
    """Run a command to the end and return (exit code, stdout, stderr).

    On Ctrl-C the child is terminated (killed if it lingers) and reaped, then ShareCancelled is
    raised: unlike the reference, which only hid its spinner and left ``gh`` running.
    """
    try:
        proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
            cwd=cwd,
        )
    except OSError as exc:
        raise ShareError(f"Cannot run {Path(command[0]).name}: {exc.strerror}") from exc
    try:
        while True:
            # In short waits: a Ctrl-C the kernel hands to another thread of this process only
            # sets Python's flag, which the main thread sees when its wait returns.
            try:
                out, err = proc.communicate(timeout=SIGNAL_CHECK)
                break
            except subprocess.TimeoutExpired:
                continue
    except KeyboardInterrupt:
        stop_process(proc)
        raise ShareCancelled("Share cancelled") from None
    return proc.returncode, out, err


def stop_process(proc: subprocess.Popen[str]) -> None:
    """Terminate a child, kill it if it lingers, and reap it."""
    proc.terminate()
    try:
        proc.wait(timeout=TERMINATE_GRACE)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
