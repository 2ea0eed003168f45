"""The newer pi and oh-my-pi format: title slot, names, reset boundary, retained tail, usage."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store import load_session
from sessiontree.store.archive import archived_ids
from sessiontree.store.discovery import read_session_info
from sessiontree.store.summary import summarize_session
from tests.store.helpers import assistant, header, msg, write_jsonl

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OMP = FIXTURES / "omp-newer-entries.jsonl"
PI = FIXTURES / "pi-roles-and-blocks.jsonl"


def test_the_title_slot_is_256_bytes_and_read_before_the_header() -> None:
    first = OMP.read_bytes().split(b"\n", 1)[0]
    assert len(first) + 1 == 256
    session = load_session(OMP)
    assert session.id == "019f0a00-0000-7000-8000-000000000001"
    assert session.title_slot is not None and session.title_slot["title"] == "Fix the widget"
    assert session.entries[0]["id"] == "m1"  # neither the slot nor the header is an entry
    assert session.title == "Fix the flaky widget test"  # the later title_change wins


def test_slot_title_is_the_title_without_a_later_change(tmp_path: Path) -> None:
    lines = OMP.read_text().splitlines()
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(ln for ln in lines if '"title_change"' not in ln) + "\n")
    session = load_session(path)
    assert session.title == "Fix the widget"
    assert session.title_slot is not None and session.title_slot["title"] == "Fix the widget"
    info = read_session_info(path)
    assert info is not None and info.id == session.id and info.title == "Fix the widget"


def test_listing_reads_the_header_after_the_slot_and_the_latest_title() -> None:
    info = read_session_info(OMP)
    assert info is not None
    assert info.id == "019f0a00-0000-7000-8000-000000000001"
    assert info.title == "Fix the flaky widget test"
    assert info.message_count == 6


def test_pi_session_info_names_the_session_latest_wins() -> None:
    assert load_session(PI).title == "Auth module refactor"


def test_reset_boundary_starts_the_context_afresh() -> None:
    session = load_session(OMP)
    ctx = session.context("a2")
    texts = [m["content"][0]["text"] for m in ctx.messages]
    assert texts == ["Start over: only check the snapshot", "Only the snapshot, then."]
    assert ctx.models["default"] == "anthropic/claude-sonnet-4-5"  # settings before the reset still hold
    # a branch off before the reset keeps its history
    assert len(session.context("a3").messages) == 4


def test_thinking_level_auto_is_auto_not_off() -> None:
    assert load_session(OMP).context().thinking_level == "auto"


def test_archived_branch_ids() -> None:
    session = load_session(OMP)
    assert archived_ids(session.entries, session.tree) == {"u3", "a3"}


def test_compaction_retained_tail_is_the_kept_context() -> None:
    ctx = load_session(PI).context()
    roles = [m["role"] for m in ctx.messages]
    assert roles == ["compactionSummary", "user", "user"]
    assert ctx.messages[1]["content"][0]["text"] == "Refactor the auth module"


def test_usage_of_model_calls_branch_summaries_and_tool_results_is_counted(tmp_path: Path) -> None:
    usage = {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}
    result = msg("r", "b", "toolResult", "done", toolCallId="t1", toolName="task", usage=usage)
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            header(),
            msg("a", None, "user"),
            {**assistant("b", "a"), "message": {**assistant("b", "a")["message"], "usage": usage}},
            result,
            {
                "type": "model_usage",
                "id": "m",
                "parentId": "r",
                "purpose": "title",
                "provider": "p",
                "model": "tiny",
                "usage": usage,
                "stopReason": "stop",
            },
            {
                "type": "branch_summary",
                "id": "s",
                "parentId": "m",
                "fromId": "b",
                "summary": "x",
                "usage": usage,
            },
        ],
    )
    summary = summarize_session(load_session(path))
    assert summary.tokens["input"] == 40 and summary.tokens["output"] == 20
    assert summary.cost == 2.0


def test_inspect_says_a_v3_file_with_pi_model_changes_is_not_migrated(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            header(),
            {
                "type": "model_change",
                "id": "m",
                "parentId": None,
                "provider": "anthropic",
                "modelId": "claude-sonnet-4-5",
            },
            msg("a", "m", "user"),
        ],
    )
    result = CliRunner().invoke(cli, ["inspect", str(path)])
    assert result.exit_code == 0, result.output
    version = next(ln for ln in result.output.splitlines() if ln.startswith("Version"))
    assert "no migration needed" in version and "migrated" not in version.replace("no migration", "")
    assert "model_change {provider, modelId} read as model" in version


def test_inspect_reports_slot_and_repairs() -> None:
    result = CliRunner().invoke(cli, ["inspect", str(OMP)])
    assert result.exit_code == 0, result.output
    assert "Fix the flaky widget test" in result.output and "title slot" in result.output
    damaged = CliRunner().invoke(cli, ["inspect", "--json", str(FIXTURES / "damaged-lost-line.jsonl")])
    data = json.loads(damaged.output)
    assert [r["kind"] for r in data["repairs"]] == ["reattached", "split"]
    assert data["bad_lines"] == [{"line": 4, "reason": data["bad_lines"][0]["reason"]}]
