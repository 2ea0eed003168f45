"""A clone of this repository alone (no ../shared beside it) collects and runs its tests."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clone_rules import real_file_test_modules
from tests.conftest import (
    IN_A_CLONE,
    NEEDS_SHARED,
    ONLY_REAL_FILE_TESTS,
    ROOT,
    env_without_shared,
    find_shared,
)

SAME_RUN = "this run has no ../shared: it collects and runs every test as a copy of the clone would"
"""Why a run that is itself a clone's (a new user's) copies nothing to run the tests again."""


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
    assert find_shared(target) is None
    # what `scripts/setup --test` installs beside a clone (axe-core, bun), not a file of the clone
    if (ROOT / ".tools").is_dir():
        (target / ".tools").symlink_to((ROOT / ".tools").resolve(), target_is_directory=True)
    return target


def run_pytest(
    clone: Path, *args: str, ci: bool = False, timeout: float = 280, only_real: bool = False
) -> subprocess.CompletedProcess[str]:
    env = env_without_shared(dict(os.environ))
    env["PYTHONPATH"] = str(clone / "src")
    if ci:
        env["CI"] = "true"
    if only_real:
        env[ONLY_REAL_FILE_TESTS] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.slow
def test_a_clone_alone_collects_every_test_without_errors(clone: Path) -> None:
    if IN_A_CLONE:  # this run collected every test itself, as the copy would (an error fails it)
        pytest.skip(SAME_RUN)
    # (syrupy counts every snapshot unused when nothing runs: a warning here, not a failure)
    result = run_pytest(clone, "--collect-only", "-q", "--snapshot-warn-unused")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    assert "tests collected" in last and "error" not in last, last
    assert int(last.split()[0]) > 1000


@pytest.mark.slow(seconds=300)
@pytest.mark.timeout(2400)
def test_a_clone_alone_runs_every_test_that_touches_a_real_file(clone: Path) -> None:
    # every test that touches a real file (read from the source, not a hand-picked list: its
    # code, fixtures, decorators and the helpers they call name conftest's real-file helpers or
    # mutants, clone_rules.RealFileUse), in the modules that import those at any depth: each
    # passes, or skips naming the file it needs; the other tests run alike with ../shared or not
    if IN_A_CLONE:  # a new user's run: it runs each of those tests itself, as the copy would
        pytest.skip(SAME_RUN)
    modules = [str(path.relative_to(ROOT)) for path in real_file_test_modules()]
    assert len(modules) >= 20
    # (the snapshots of the tests left out are unused here: a warning, not a failure)
    result = run_pytest(clone, "-q", "-rs", "--snapshot-warn-unused", *modules, timeout=2300, only_real=True)
    tail = result.stdout.strip().splitlines()[-1]
    ran = sum(int(n) for n, what in re.findall(r"(\d+) (passed|skipped)", tail))
    assert ran >= 150 and "deselected" in tail, tail
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-3000:]
    assert " passed" in tail and "failed" not in tail and "error" not in tail, tail
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all(NEEDS_SHARED in line or "root" in line for line in skipped), skipped
    assert "test(s) skipped because ../shared is not beside this clone" in result.stdout


@pytest.mark.slow
def test_under_ci_a_missing_shared_folder_is_an_error(clone: Path) -> None:
    result = run_pytest(clone, "--collect-only", "-q", "tests/test_cli_base.py", ci=True)
    assert result.returncode != 0
    assert "CI is set but the team's shared folder is missing" in result.stdout + result.stderr
