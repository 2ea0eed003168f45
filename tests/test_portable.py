"""Where ``fcntl`` is missing (Windows), the package imports and the read-only commands run.

Most users of these agents are on macOS, which has ``fcntl``; the write paths lock through
``store/locks.py`` only, imported on first lock, so nothing else depends on it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.share.sessions import page_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
OMP = FIXTURES / "omp-subagent" / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"

WITHOUT_FCNTL = """
import sys
sys.modules["fcntl"] = None  # import fcntl now raises ImportError, as on Windows
import importlib, pkgutil, sessiontree
names = [m.name for m in pkgutil.walk_packages(sessiontree.__path__, "sessiontree.")]
for name in names:
    importlib.import_module(name)
print(len(names), "modules")
from sessiontree.cli import main
sys.argv = ["sessiontree", *sys.argv[1:]]
main()
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_FCNTL, *args], capture_output=True, text=True, env=env, timeout=300
    )


def test_every_module_imports_and_read_only_commands_run_without_fcntl(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    exported = _run(tmp_path, "export", str(OMP), str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.split(" modules")[0].strip().isdigit()
    assert "Subagent finding: cache.py line 41" in page_text(out.read_text(encoding="utf-8"))
    inspected = _run(tmp_path, "inspect", str(OMP))
    assert inspected.returncode == 0, inspected.stderr
    assert "Subagents 1:" in inspected.stdout
    dumped = _run(tmp_path, "dump", "--stdout", str(OMP))
    assert dumped.returncode == 0, dumped.stderr
    assert dumped.stdout.strip()


def test_a_command_that_locks_says_why_in_one_line_without_fcntl(tmp_path: Path) -> None:
    site = tmp_path / "site"
    root = tmp_path / "sessions" / "--work--"
    root.mkdir(parents=True)
    (root / OMP.name).write_bytes(OMP.read_bytes())
    built = _run(
        tmp_path, "build", "--root", str(tmp_path / "sessions"), "-o", str(site), "--no-search", "-q"
    )
    assert built.returncode == 1
    assert "Traceback" not in built.stderr
    assert built.stderr.strip().splitlines()[-1] == (
        "Error: This command locks files, which needs Linux or macOS (fcntl); read-only commands work here"
    )
