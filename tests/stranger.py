"""Commands run as a user who does not own the files (CI runs as root: root reads everything).

As root, the command runs as ``nobody`` through ``setpriv`` on files in a world-readable folder;
as another user, the files' owner bits are set to what others would see, which denies the same.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

NOBODY = 65534
SETPRIV = shutil.which("setpriv")
ROOT = os.geteuid() == 0


PYTHONPATH = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
"""Our import path, for an interpreter outside the venv (the venv's may link into /root, 0700)."""

_PROBE = "import os, sys; assert os.access(sys.executable, os.X_OK); import sessiontree.cli"


def _drop(command: list[str]) -> list[str]:
    if not ROOT:
        return command
    return [str(SETPRIV), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]


@functools.cache
def interpreter() -> str | None:
    """A Python the stranger can run (build's workers start ``sys.executable`` again) with our
    packages on its path; None when there is none."""
    version = f"python3.{sys.version_info[1]}"
    candidates = [
        sys.executable,
        os.path.realpath(sys.executable),
        f"/usr/bin/{version}",
        f"/usr/local/bin/{version}",
    ]
    for candidate in dict.fromkeys(c for c in candidates if c):
        probe = subprocess.run(
            _drop([candidate, "-c", _PROBE]),
            env={**os.environ, "PYTHONPATH": PYTHONPATH},
            capture_output=True,
            cwd="/",
        )
        if probe.returncode == 0:
            return candidate
    return None


def why_impossible() -> str | None:
    """None when a command can run as a non-owner here; else the reason it cannot."""
    if ROOT and SETPRIV is None:
        return "running as root without setpriv: no way to drop to another user"
    if interpreter() is None:
        return "no Python interpreter here that the unprivileged user may run"
    return None


def as_stranger(command: list[str]) -> list[str]:
    """The command run as a user who owns none of the test's files."""
    return _drop(command)


def stranger_python() -> list[str]:
    """The stranger's Python command (``python -m sessiontree ...`` follows)."""
    return as_stranger([str(interpreter())])


def stranger_cli(*args: str) -> list[str]:
    """The real CLI's command line as the stranger."""
    return as_stranger([str(interpreter()), "-m", "sessiontree", *args])


def stranger_env(home: Path, **extra: str) -> dict[str, str]:
    """The stranger's environment: our import path, its own home and cache."""
    return {
        **os.environ,
        "PYTHONPATH": PYTHONPATH,
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        **extra,
    }


def restrict(path: Path, mode: int) -> None:
    """Give ``path`` the mode a stranger sees (``0o700``: someone else's private folder)."""
    if ROOT:
        path.chmod(mode)
    else:
        others = mode & 0o7
        path.chmod(others * 0o100 | others * 0o10 | others)


def give(path: Path) -> None:
    """Let the stranger write ``path`` (its home and cache)."""
    path.mkdir(parents=True, exist_ok=True)
    if ROOT:
        os.chown(path, NOBODY, NOBODY)


def run_as_stranger(
    *args: str, cwd: Path, home: Path, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The real CLI as the stranger; never a traceback, whatever the exit code."""
    result = subprocess.run(
        stranger_cli(*args),
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        cwd=cwd,
        env=stranger_env(home, **(env or {})),
        timeout=timeout,
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result


def _open_up(top: Path) -> None:
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(stat.S_IRWXU | path.stat().st_mode)


@pytest.fixture
def stranger_dir() -> Iterator[Path]:
    """A folder the stranger can reach (pytest's own tmp folders are 0700: root's alone)."""
    reason = why_impossible()
    if reason:
        pytest.skip(reason)
    top = Path(tempfile.mkdtemp(prefix="sessiontree-stranger-", dir="/tmp"))
    top.chmod(0o755)
    try:
        yield top
    finally:
        _open_up(top)
        shutil.rmtree(top, ignore_errors=True)
