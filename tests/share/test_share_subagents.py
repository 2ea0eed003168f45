"""A share redacts the subagent transcripts its page embeds (read from their own files)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

from sessiontree.exporter import render_session_html
from sessiontree.readers import load_for_export
from sessiontree.share.publish import share_session
from tests.share.conftest import FakeGh
from tests.share.corpus import rand
from tests.share.sessions import page_text

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "omp-subagent"
NAME = "2026-03-02T09-00-00-000Z_019f0b00"


def test_subagent_transcripts_are_redacted_in_the_shared_page(
    tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    shutil.copytree(FIXTURE, tmp_path / "s")
    session_file = tmp_path / "s" / f"{NAME}.jsonl"
    subagent = tmp_path / "s" / NAME / "0-Explore.jsonl"
    token = "glpat-" + rand(20)
    text = subagent.read_text()
    assert "widget cache" in text
    subagent.write_text(text.replace("widget cache", f"widget cache (token {token})"))
    before = {p: p.read_bytes() for p in (tmp_path / "s").rglob("*.jsonl")}

    unredacted = page_text(render_session_html(load_for_export(session_file)))
    assert token in unredacted  # the page really embeds the subagent's transcript

    outcome = share_session(session_file, isolated_agent_dir, notify=lambda _: None)
    shared = page_text(fake_gh.uploaded())
    assert token not in shared and token[6:22] not in shared
    assert "[REDACTED:gitlab-token]" in shared
    assert outcome.redaction is not None
    assert any(f.entry.startswith("0-Explore/") for f in outcome.redaction.findings)
    assert {p: p.read_bytes() for p in (tmp_path / "s").rglob("*.jsonl")} == before  # files untouched


def test_a_share_of_a_session_with_subagents_writes_nothing_but_its_page(
    tmp_path: Path, isolated_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURE, tmp_path / "s")
    session_file = tmp_path / "s" / f"{NAME}.jsonl"
    temp, out = tmp_path / "tmp", tmp_path / "out"
    temp.mkdir()
    out.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    before = _tree(tmp_path)

    outcome = share_session(session_file, isolated_agent_dir, notify=lambda _: None, dry_run=out)

    [page] = out.iterdir()
    assert outcome.message == str(page)
    assert "Subagent finding: cache.py line 41" in page_text(page.read_text(encoding="utf-8"))
    assert _tree(tmp_path) - before == {page}  # no redacted copy of a subagent anywhere


def _tree(root: Path) -> set[Path]:
    return set(root.rglob("*"))
