"""``keep --redact``: a team archive holds copies with every secret masked (the share redactor),
session files only; an archive is redacted or whole for good, and a run of the other kind is one
line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from tests.keep.conftest import claude_session

TOKEN = "ghp_" + "8fK2mQ9xLp3Rt7Vw1Yz5Bn4Hc6Jd0Sa2Ue9"


def test_a_redacted_archive_holds_no_secret_and_another_machine_sees_the_masks(
    claude_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSIONTREE_PASSPHRASE", "team passphrase")
    monkeypatch.setenv("SESSIONTREE_MACHINE", "laptop")
    session = claude_session(
        claude_root / "p", "8c8c0001-0000-4000-8000-000000000001", f"use token {TOKEN} here"
    )
    (session.with_suffix("") / "tool-results").mkdir(parents=True)
    (session.with_suffix("") / "tool-results" / "shot.png").write_bytes(b"\x89PNG" + TOKEN.encode())
    team = tmp_path / "team-archive"
    result = CliRunner().invoke(cli, ["keep", "--redact", "--to", str(team)])
    assert result.exit_code == 0, result.output
    assert "Kept 1 files" in result.output  # the session file, not the picture

    monkeypatch.setenv("HOME", str(tmp_path / "reader"))
    monkeypatch.setenv("SESSIONTREE_MACHINE", "reader")
    result = CliRunner().invoke(cli, ["keep", "--redact", "--to", str(team)])
    assert result.exit_code == 0 and "Brought 1 files from laptop" in result.output, result.output
    (copy,) = (tmp_path / "reader" / ".local" / "share" / "sessiontree" / "kept" / "laptop").rglob("*.jsonl")
    text = copy.read_text()
    assert TOKEN not in text, text
    assert "[REDACTED:" in text
    assert [json.loads(line)["type"] for line in text.splitlines()] == ["user", "assistant"] * 3
    assert copy.stat().st_mtime_ns == session.stat().st_mtime_ns  # the session's own time

    result = CliRunner().invoke(cli, ["keep", "--to", str(team)])
    assert result.exit_code == 1 and "holds redacted copies: run with --redact" in result.output
    whole = tmp_path / "whole-archive"
    assert CliRunner().invoke(cli, ["keep", "--to", str(whole)]).exit_code == 0
    result = CliRunner().invoke(cli, ["keep", "--redact", "--to", str(whole)])
    assert result.exit_code == 1 and "holds whole sessions" in result.output
