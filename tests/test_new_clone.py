"""A clone of this repository alone (no ../shared beside it) collects and runs its tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import NEEDS_SHARED, ROOT


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files a clone holds (tracked, or new and not ignored), copied to a folder with no ../shared."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    target = tmp_path_factory.mktemp("fresh") / "sessiontree"
    for name in filter(None, listed.decode("utf-8", "surrogateescape").split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the working tree is not in the next commit
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    assert not (target.parent / "shared").exists() and not (target.parent.parent / "shared").exists()
    return target


def run_pytest(clone: Path, *args: str, ci: bool = False) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SESSIONTREE_SHARED", "PYTEST_ADDOPTS")}
    env["PYTHONPATH"] = str(clone / "src")
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=280,
    )


@pytest.mark.slow
def test_a_clone_alone_collects_every_test_without_errors(clone: Path) -> None:
    # (syrupy counts every snapshot unused when nothing runs: a warning here, not a failure)
    result = run_pytest(clone, "--collect-only", "-q", "--snapshot-warn-unused")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    assert "tests collected" in last and "error" not in last, last
    assert int(last.split()[0]) > 1000


@pytest.mark.slow
def test_a_clone_alone_runs_the_real_file_tests_and_counts_the_skipped(clone: Path) -> None:
    result = run_pytest(clone, "-q", "tests/readers/test_commands.py", "tests/cli/test_real_pi_files.py")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert NEEDS_SHARED in result.stdout
    assert "test(s) skipped because ../shared is not beside this clone" in result.stdout
    # the shipped real files still ran: every Claude Code file, one Codex file, three pi files
    assert " passed" in result.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_under_ci_a_missing_shared_folder_is_an_error(clone: Path) -> None:
    result = run_pytest(clone, "--collect-only", "-q", "tests/test_cli_base.py", ci=True)
    assert result.returncode != 0
    assert "CI is set but the team's shared folder is missing" in result.stdout + result.stderr
