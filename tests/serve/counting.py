"""A folder whose usage serve counts partly at its first listing and partly in its background pass,
and ``sessiontree stats`` totals to compare the usage page with (issue 42 item 1)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store.discovery import CHEAP_COUNT_BYTES
from tests.conftest import GEN_SESSION

HELD_COUNT = Path(__file__).with_name("held_count.py")
TOTAL_FIELDS = ("messages", "input", "output", "cacheRead", "cacheWrite")
USAGE_COUNTED = '#st-usage:not([data-counting]):not([data-drawn="0"])'
"""A served usage page drawn from every file's count (one still counting loads itself again once told)."""


def held_python(gate: Path, *, listing: bool = False) -> list[str]:
    """The interpreter command of a serve whose background count (``listing``: every listing of
    the folders) waits for ``gate`` to exist."""
    return [sys.executable, str(HELD_COUNT), *(["--listing"] if listing else []), str(gate)]


def generate(path: Path, turns: int, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, str(GEN_SESSION), "--turns", str(turns), "--seed", str(seed), "-o", str(path)]
    subprocess.run(cmd, check=True)


def counting_folders(tmp_path: Path) -> tuple[Path, Path]:
    """(every session, the small ones alone): two small sessions a listing reads whole (project
    /home/dev/demo), and three large ones it lists from their prefixes (/home/dev/big), their
    usage counted by serve's background pass."""
    root, small = tmp_path / "sessions", tmp_path / "small"
    for n in range(2):
        generate(root / "--home-dev-small--" / f"small{n}.jsonl", 2, 10 + n)
    shutil.copytree(root, small)
    for n in range(3):
        big = root / "--home-dev-big--" / f"big{n}.jsonl"
        generate(big, 20, 20 + n)
        text = big.read_text(encoding="utf-8").replace('"cwd": "/home/dev/demo"', '"cwd": "/home/dev/big"')
        big.write_text(text, encoding="utf-8")  # a project of its own
    sizes = {p.name: p.stat().st_size for p in root.rglob("*.jsonl")}
    assert all((size > CHEAP_COUNT_BYTES) == name.startswith("big") for name, size in sizes.items()), sizes
    return root, small


def stats_totals(root: Path, cache: Path) -> dict[str, int]:
    """``sessiontree stats --json``'s totals of one folder."""
    result = CliRunner().invoke(cli, ["stats", "--json", "--cache-dir", str(cache), "--root", str(root)])
    assert result.exit_code == 0, result.output
    total = json.loads(result.stdout)["total"]
    return {key: total[key] for key in TOTAL_FIELDS}
