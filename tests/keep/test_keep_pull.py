"""Bringing another machine's sessions: a session that grew there brings only its new piece."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from tests.keep.conftest import claude_session


def test_a_grown_session_brings_only_its_new_piece_to_another_machine(
    claude_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sessiontree.archive.keep.stores import FolderStore

    common, laptop, desktop = tmp_path / "common", Path.home(), tmp_path / "desktop"
    monkeypatch.setenv("SESSIONTREE_PASSPHRASE", "team passphrase")
    session = claude_session(claude_root / "p", "8d8d0002-0000-4000-8000-000000000002", "words")

    def as_machine(home: Path, name: str) -> None:
        monkeypatch.setenv("HOME", str(home))
        monkeypatch.setenv("SESSIONTREE_MACHINE", name)
        assert CliRunner().invoke(cli, ["keep", "--to", str(common)]).exit_code == 0

    as_machine(laptop, "laptop")
    as_machine(desktop, "desktop")
    with session.open("a") as fh:
        fh.write('{"type":"user","message":{"role":"user","content":"one more"}}\n')
    as_machine(laptop, "laptop")
    real_get, objects = FolderStore.get, []

    def counting_get(self: FolderStore, name: str) -> bytes | None:
        if name.startswith("o/"):
            objects.append(name)
        return real_get(self, name)

    monkeypatch.setattr(FolderStore, "get", counting_get)
    as_machine(desktop, "desktop")
    (copy,) = (desktop / ".local" / "share" / "sessiontree" / "kept" / "laptop").rglob("*.jsonl")
    assert copy.read_bytes() == session.read_bytes()
    assert len(objects) == 1  # the appended piece alone, the rest checked in place
