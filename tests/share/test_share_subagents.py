"""A share redacts the subagent transcripts its page embeds (read from their own files)."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessiontree.exporter import render_session_html
from sessiontree.exporter.api import load_for_export
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
