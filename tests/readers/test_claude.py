"""Claude Code files read into the session model: tree, forks, replies, tools, compaction, subagents."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.store.entries import content_blocks, message_of
from sessiontree.store.session import Session
from tests.readers.helpers import CLAUDE_FILES, FIXTURES, REAL, TOUR, TOUR_AGENT, claude_role_counts


def roles(session: Session) -> Counter[str]:
    found: Counter[str] = Counter()
    for entry in session.entries:
        message = message_of(entry)
        if message is not None:
            found[message["role"]] += 1
    return found


@pytest.fixture(scope="module")
def tour() -> Session:
    return load_any(TOUR)


def test_tour_header_title_and_agent(tour: Session) -> None:
    assert tour.header["agent"] == "claude"
    assert tour.id == "5e55a0b1-0000-4000-8000-00000000000a"
    assert tour.cwd == "/home/dev/tour"
    assert tour.header["agentVersion"] == "2.1.3"
    # the summary line whose leafUuid is in the file names the session
    assert tour.title == "Parser tour: fork, tools, compaction"


def test_a_reply_split_over_lines_is_one_entry_with_the_final_usage(tour: Session) -> None:
    reply = tour.tree.by_id["a-1a"]["message"]
    assert [b["type"] for b in reply["content"]] == ["thinking", "toolCall", "toolCall"]
    assert reply["content"][0]["thinking"].startswith("The parser drops")
    assert reply["usage"]["output"] == 60  # the last line's count, not the sum of the partial ones
    assert reply["model"] == "claude-sonnet-4-5-20250929" and reply["provider"] == "anthropic"
    assert reply["stopReason"] == "toolUse"
    assert "a-1b" not in tour.tree.by_id and "a-1c" not in tour.tree.by_id


def test_parallel_calls_and_progress_are_a_line_not_a_fork(tour: Session) -> None:
    tree = tour.tree
    # only the real fork (two typed prompts under a-3) and the subagent side branch (under a-2)
    assert sorted(tree.branch_points) == ["a-2", "a-3"]
    path = [e["id"] for e in tour.path_entries()]
    assert path[:8] == ["L1", "L2", "u-1", "a-1a", "L7", "t-1", "t-2", "a-2"]


def test_a_second_typed_prompt_is_a_fork_and_the_leaf_follows_the_file(tour: Session) -> None:
    tree = tour.tree
    assert tree.children_of("a-3")[:1] == ["u-2"] and "u-3" in tree.children_of("a-3")
    path = [e["id"] for e in tour.path_entries()]
    assert "u-3" in path and "u-2" not in path and "a-4" not in path
    assert path[-1] == tour.leaf_id == "L26"  # the file's last line (an unknown line kind)


def test_every_tool_result_pairs_with_a_call_on_its_path(tour: Session) -> None:
    results = [e for e in tour.entries if (message_of(e) or {}).get("role") == "toolResult"]
    assert len(results) == 5
    for entry in results:
        calls = {
            b["id"]
            for e in tour.path_entries(entry["id"])
            for b in content_blocks((message_of(e) or {}).get("content"))
            if b.get("type") == "toolCall"
        }
        assert entry["message"]["toolCallId"] in calls
    names = {e["message"]["toolCallId"]: e["message"]["toolName"] for e in results}
    assert names["toolu_read"] == "Read" and names["toolu_task"] == "Task"
    assert tour.tree.by_id["t-1"]["message"]["details"]["file"]["numLines"] == 2  # toolUseResult kept


def test_images_in_prompt_and_tool_result(tour: Session) -> None:
    prompt = tour.tree.by_id["u-1"]["message"]["content"]
    assert prompt[1] == {"type": "image", "data": prompt[1]["data"], "mimeType": "image/png"}
    result = tour.tree.by_id["t-2"]["message"]["content"]
    assert [b["type"] for b in result] == ["text", "image"]


def test_compaction_joins_the_chain_and_holds_the_summary(tour: Session) -> None:
    compaction = tour.tree.by_id["c-1"]
    assert compaction["type"] == "compaction"
    assert compaction["parentId"] == "a-6"  # logicalParentUuid: one tree across the boundary
    assert compaction["tokensBefore"] == 155025
    assert compaction["summary"].startswith("This session is being continued")
    assert "c-2" not in tour.tree.by_id  # the summary line is folded into the compaction
    assert tour.tree.by_id["u-c3"]["parentId"] == "c-1"
    context = tour.context().messages
    assert context[0]["role"] == "compactionSummary"
    assert [m["role"] for m in context[1:3]] == ["user", "assistant"]


def test_the_subagent_hangs_under_the_call_that_started_it(tour: Session) -> None:
    first = tour.tree.by_id["sa-1"]
    assert first["parentId"] == "a-2"
    assert [e["id"] for e in tour.path_entries("sa-4")][-4:] == ["sa-1", "sa-2", "sa-3", "sa-4"]
    assert tour.tree.by_id["sa-3"]["message"]["isError"] is True
    assert tour.tree.by_id["sa-2"]["message"]["model"] == "claude-haiku-4-5"


def test_unknown_lines_and_fields_are_carried(tour: Session) -> None:
    custom = {e["id"]: e for e in tour.entries if e["type"] == "custom"}
    assert custom["L26"]["customType"] == "claude:brand-new-line-kind"
    assert custom["L26"]["data"]["payload"] == {"x": 1}
    assert custom["L13.99"]["customType"] == "claude:fields"
    assert custom["L13.99"]["data"] == {"mysteryField": {"kept": True}}
    assert custom["L15"]["data"]["operation"] == "enqueue"
    system = tour.tree.by_id["s-1"]
    assert system["type"] == "custom_message" and system["display"] is False
    assert system["content"] == "Running PostToolUse:Edit..."  # terminal colours dropped


def test_roles_match_the_raw_json(tour: Session) -> None:
    assert roles(tour) == claude_role_counts(TOUR, TOUR_AGENT)


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name[-40:])
def test_every_claude_file_counts_match_the_raw_json(path: Path) -> None:
    session = load_any(path)
    assert session.header["agent"] == "claude"
    assert roles(session) == claude_role_counts(path, *sorted(path.with_suffix("").glob("subagents/*.jsonl")))
    ids = [e["id"] for e in session.entries]
    assert len(ids) == len(set(ids))
    assert session.leaf_id in session.tree.by_id


def test_real_files_are_one_line_each(tmp_path: Path) -> None:
    # Parallel calls, hooks, /clear and bash mode make "two children" in these files, never a fork.
    for path in sorted((REAL / "claude").glob("*.jsonl")):
        session = load_any(path)
        assert session.tree.branch_points == [], path.name
        assert len(session.path_entries()) == len(session.entries), path.name


def test_old_layout_subagent_beside_the_session(tmp_path: Path) -> None:
    # CLI 2.0 keeps agent-<id>.jsonl in the project folder; copy the real pair under their names.
    [main] = (REAL / "claude").glob("*cb2e607c*.jsonl")
    [agent] = (REAL / "claude").glob("*agent-ea02459f.jsonl")
    shutil.copy(main, tmp_path / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl")
    shutil.copy(agent, tmp_path / "agent-ea02459f.jsonl")
    session = load_any(tmp_path / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl")
    assert roles(session) == claude_role_counts(main, agent)
    first = next(e for e in session.entries if e["id"].startswith("A0:") or e.get("parentId") is None)
    side_roots = [
        e for e in session.entries
        if e["id"] in {json.loads(line)["uuid"] for line in agent.read_text().splitlines()[:1]}
    ]  # fmt: skip
    assert first["parentId"] is None
    [root] = side_roots
    task_owner = session.tree.by_id[root["parentId"]]
    calls = [b for b in task_owner["message"]["content"] if b.get("type") == "toolCall"]
    assert any(c["name"] == "Task" for c in calls)
    assert session.tree.branch_points == [task_owner["id"]]
    # the main line stays the active path; the subagent is its side branch
    assert root["id"] not in {e["id"] for e in session.path_entries()}


def test_an_agent_file_read_alone_is_its_own_session() -> None:
    [agent] = (REAL / "claude").glob("*agent-ea02459f.jsonl")
    session = load_any(agent)
    assert len(session.tree.roots) == 1
    assert roles(session) == claude_role_counts(agent)


def test_duplicate_and_malformed_records_of_the_peer_edge_cases() -> None:
    session = load_any(FIXTURES / "claude" / "edge_cases.jsonl")
    # "massive error", 42 and [1] are not objects; {"silly": "this"} is carried as an unknown line
    assert [b.lineno for b in session.bad_lines] == [13, 15, 16]
    assert any(e.get("customType") == "claude:line" for e in session.entries)
    texts = [
        b.get("text", "")
        for e in session.entries
        for b in content_blocks((message_of(e) or {}).get("content"))
    ]
    assert any("中文" in t for t in texts)  # the good edge_011 after a broken line with the same uuid


def _write(path: Path, lines: list[str], end: str = "\n") -> Path:
    path.write_text("\n".join(lines) + end, encoding="utf-8")
    return path


def test_a_corrupt_line_and_a_truncated_last_line(tmp_path: Path) -> None:
    lines = TOUR.read_text(encoding="utf-8").splitlines()
    corrupt = [*lines[:5], '{"type":"user","uuid":', *lines[5:]]
    truncated = [*corrupt[:-1], corrupt[-1][: len(corrupt[-1]) // 2]]
    path = _write(tmp_path / TOUR.name, truncated, end="")
    shutil.copytree(TOUR.with_suffix(""), tmp_path / TOUR.stem)
    session = load_any(path)
    reasons = [(b.lineno, b.reason) for b in session.bad_lines]
    assert reasons[0][0] == 6
    assert reasons[-1] == (len(truncated), "incomplete last line (file still being written?)")
    full = load_any(TOUR)
    # everything readable is there: only the cut last line (an unknown line kind) is missing
    uuids = {e["id"] for e in session.entries if not e["id"].startswith("L")}
    assert uuids == {e["id"] for e in full.entries if not e["id"].startswith("L")}
    assert len(session.entries) == len(full.entries) - 1
    assert session.leaf_id == "s-2"
