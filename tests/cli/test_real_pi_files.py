"""Every real pi file loads with every message, exports and dumps, and stays byte-identical."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store import load_session
from tests.conftest import REAL, need_shared, real_file
from tests.share import conftest as share_fixtures
from tests.share.conftest import FakeGh

fake_gh = share_fixtures.fake_gh
temp_root = share_fixtures.temp_root
no_gh = share_fixtures.no_gh

REAL_PI = sorted((REAL / "pi").glob("*.jsonl"))
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def message_objects_in(data: bytes) -> int:
    """Count the message entries by their text, independently of the loader (raced lines too)."""
    return data.count(b'{"type":"message"')


def fingerprint(path: Path) -> tuple[str, int]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime_ns


def test_the_real_files_are_there() -> None:
    need_shared("the 8 real pi files (3 ship with the repository)")
    assert len(REAL_PI) == 8


@pytest.mark.parametrize("path", REAL_PI, ids=lambda p: p.name)
def test_real_pi_file_loads_every_message_and_exports_and_dumps(path: Path, tmp_path: Path) -> None:
    before = fingerprint(path)
    session = load_session(path)
    messages = [e for e in session.entries if e.get("type") == "message"]
    assert len(messages) == message_objects_in(path.read_bytes())
    assert [b for b in session.bad_lines if not b.reason.startswith("incomplete")] == []
    if session.entries:
        assert len(session.tree.roots) == 1
        assert len(session.tree.path_ids(session.leaf_id)) == len(session.entries)  # linear files
    runner = CliRunner()
    out = tmp_path / "page.html"
    result = runner.invoke(cli, ["export", str(path), str(out)])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 0
    dump = runner.invoke(cli, ["dump", "--stdout", str(path)])
    if messages:
        assert dump.exit_code == 0, dump.output
        assert dump.stdout.startswith("## Configuration") or dump.stdout.startswith("## System Prompt")
        assert dump.stdout.count("\n## ") >= 1  # at least one section after the configuration
    else:
        assert dump.exit_code == 1 and "No messages" in dump.stderr
    inspect = runner.invoke(cli, ["inspect", str(path)])
    assert inspect.exit_code == 0, inspect.output
    assert fingerprint(path) == before


def test_damage_is_one_warning_line_from_export_dump_and_share(
    tmp_path: Path, fake_gh: FakeGh, temp_root: Path, no_browser: list[str]
) -> None:
    path = tmp_path / "damaged.jsonl"
    shutil.copyfile(FIXTURES / "damaged-lost-line.jsonl", path)
    os.utime(path, (1_000_000, 1_000_000))
    before = fingerprint(path)
    runner = CliRunner()
    runs = {
        "export": ["export", str(path), str(tmp_path / "out.html")],
        "dump": ["dump", "--stdout", str(path)],
        "share": ["share", "--no-open", str(path)],
    }
    for name, args in runs.items():
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, (name, result.output)
        warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("Warning: damaged.jsonl")]
        assert len(warnings) == 1, (name, result.stderr)
        assert "1 unreadable line skipped (4)" in warnings[0] and "held several entries (6)" in warnings[0]
        assert "file is untouched" in warnings[0]
    assert fingerprint(path) == before


def test_a_sound_file_gives_no_warning(tmp_path: Path) -> None:
    path = real_file("pi/dexter-v3--pi-session.jsonl")
    result = CliRunner().invoke(cli, ["export", str(path), str(tmp_path / "o.html")])
    assert result.exit_code == 0 and "Warning" not in result.stderr
