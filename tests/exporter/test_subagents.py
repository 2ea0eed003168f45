"""oh-my-pi subagent sessions: listed by inspect, embedded under the task result that ran them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter.render import RenderContext, render_entry
from sessiontree.store import load_session
from sessiontree.store.subagents import subagent_files

PARENT = (
    Path(__file__).resolve().parent.parent
    / "fixtures"
    / "omp-subagent"
    / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"
)


def test_subagent_files_skip_advisors() -> None:
    assert list(subagent_files(PARENT)) == ["0-Explore"]


def test_inspect_lists_the_subagents() -> None:
    result = CliRunner().invoke(cli, ["inspect", "--json", str(PARENT)])
    assert result.exit_code == 0, result.output
    [sub] = json.loads(result.output)["subagents"]
    assert sub["id"] == "0-Explore" and sub["messages"] == 4
    text = CliRunner().invoke(cli, ["inspect", str(PARENT)]).output
    assert "Subagents 1:" in text and "0-Explore: 4 message(s)" in text


def test_the_task_result_embeds_the_subagent_transcript() -> None:
    session = load_session(PARENT)
    ctx = RenderContext.for_session(session)
    out = {e["id"]: render_entry(e, ctx)[1] for e in session.entries}
    result = out["r1"]
    body = result.split('<div class="st-result"', 1)[1]
    assert '<details class="st-subagent">' in body  # inside the result: it moves with it
    assert "Subagent 0-Explore" in body and "Subagent finding: cache.py line 41" in body
    assert "src/hooks.py:12" in body  # the subagent's own tool result, same renderer
    assert body.count('data-id="') == 0 and 'data-sub-id="sb"' in body
    assert "st-subagent" not in out["a2"]
