"""Damaged files and odd file names through build, search and stats (real processes).

No traceback, no hang, every good session present; a file that cannot be read is named with
its true reason. The damaged files are ``tests/mutants.py``'s.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.archive.sessions import generate, write_lines
from tests.cli.test_hostile_inputs import run as run_cli
from tests.mutants import MutantFolder, write_mutants

TIMEOUT = 600  # a hang fails the test; the figure itself is never asserted


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The real CLI in a process (strict UTF-8 output); never a traceback, whatever the exit code."""
    result = run_cli(*args, cwd=cwd, timeout=TIMEOUT)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def mutants(tmp_path_factory: pytest.TempPathFactory) -> MutantFolder:
    return write_mutants(tmp_path_factory.mktemp("mutants") / "root")


@pytest.fixture
def odd_names(tmp_path: Path) -> dict[bytes, Path]:
    """Good sessions under names the file system allows and UTF-8 does not, and what cannot be read."""
    root = tmp_path / "odd"
    root.mkdir()
    names = [b"bad-\xff.jsonl", b"proj-\xfe/inside.jsonl", b"new\nline.jsonl", b"%2e%2e.jsonl"]
    made = {}
    for i, name in enumerate(names):
        lines = generate(4, 20 + i)  # sessions of their own (the usage of copies counts once)
        lines[0]["id"] = f"odd-{i}"
        made[name] = write_lines(Path(os.fsdecode(os.fsencode(root) + b"/" + name)), lines)
    os.mkfifo(root / "pipe.jsonl")
    (root / "gone.jsonl").symlink_to("nowhere.jsonl")
    return made


def test_build_renders_every_readable_session_and_names_the_rest(
    mutants: MutantFolder, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    result = run("build", "--root", str(mutants.root), "-o", str(site), cwd=tmp_path)
    unreadable = sorted(m.name for m in mutants.mutants if not m.readable)
    assert result.returncode == 1  # some files are no sessions: said, and the exit code says so
    failed = sorted(
        line.strip().split(":")[0] for line in result.stderr.splitlines() if line.startswith("  ")
    )
    assert failed == unreadable, result.stderr
    index = (site / "index.html").read_text(encoding="utf-8")
    for name in [*mutants.good, *(m.name for m in mutants.mutants if m.readable)]:
        stem = name.removesuffix(".jsonl")
        assert (site / "sessions" / f"{stem}.html").is_file(), name
        assert f"sessions/{stem}.html" in index, name
    assert (site / "usage.html").is_file()


def test_search_and_stats_count_every_good_session(mutants: MutantFolder, tmp_path: Path) -> None:
    found = run("search", "--root", str(mutants.root), "--json", "--limit", "1000", "the", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    paths = {Path(hit["path"]).name for hit in json.loads(found.stdout)}
    assert set(mutants.good) <= paths
    stats = run("stats", "--root", str(mutants.root), "--by", "session", "--json", cwd=tmp_path)
    assert stats.returncode == 0, stats.stderr
    keys = {Path(group["key"]).name for group in json.loads(stats.stdout)["groups"]}
    assert set(mutants.good) <= keys
    assert run("stats", "--root", str(mutants.root), cwd=tmp_path).returncode == 0


def test_odd_file_names_through_build_search_and_stats(odd_names: dict[bytes, Path], tmp_path: Path) -> None:
    root = next(iter(odd_names.values())).parent
    site = tmp_path / "site"
    built = run("build", "--root", str(root), "-o", str(site), "--no-search", cwd=tmp_path)
    assert built.returncode == 1
    assert "pipe.jsonl: unreadable: it is a named pipe" in built.stderr
    assert "gone.jsonl: unreadable: it is a link to nothing" in built.stderr
    assert "not a session file" not in built.stderr
    assert len(list((site / "sessions").rglob("*.html"))) == len(odd_names)
    found = run("search", "--root", str(root), "fsync", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "bad-\\xff.jsonl" in found.stdout and "proj-\\xfe/inside.jsonl" in found.stdout
    assert "new line.jsonl" in found.stdout and "%2e%2e.jsonl" in found.stdout
    stats = run("stats", "--root", str(root), "--by", "session", "--json", cwd=tmp_path)
    assert stats.returncode == 0, stats.stderr
    keys = {group["key"] for group in json.loads(stats.stdout)["groups"]}
    assert len(keys) == len(odd_names)
