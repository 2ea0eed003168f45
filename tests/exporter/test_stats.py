"""Header figures: counts, tokens, cost, models and the chart along the active path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessiontree.exporter.stats import compute_stats, cumulative_by_turn, render_chart
from tests.exporter.entries import assistant_call, msg, tool_result


def _assistant(entry_id: str, tokens: int, cost: float, model: str = "m1") -> dict[str, Any]:
    usage = {"input": tokens, "output": 1, "cacheRead": 2, "cacheWrite": 3, "cost": {"total": cost}}
    message = {"role": "assistant", "content": [], "provider": "p", "model": model, "usage": usage}
    return msg(entry_id, message)


def test_counts_tokens_cost_and_models() -> None:
    entries = [
        msg("u1", {"role": "user", "content": "hi"}),
        _assistant("a1", 10, 0.5),
        assistant_call("a2", "c1", "bash", {"command": "ls"}),
        tool_result("r1", "c1", "bash", "x"),
        {"type": "compaction", "id": "c", "summary": "s"},
        {"type": "branch_summary", "id": "b", "summary": "s"},
        {"type": "custom_message", "id": "cm", "content": "x", "display": True},
        {"type": "model_change", "id": "mc", "model": "openai/gpt-5"},
        _assistant("a3", 5, 0.25, model="m2"),
    ]
    stats = compute_stats(entries)
    assert stats.counts == {
        "prompts": 1,
        "user": 1,
        "assistant": 3,
        "toolResults": 1,
        "custom": 1,
        "compactions": 1,
        "branchSummaries": 1,
        "toolCalls": 1,
    }
    assert stats.tokens == {"input": 15, "output": 2, "cacheRead": 4, "cacheWrite": 6}
    assert abs(stats.cost - 0.75) < 1e-9
    assert stats.models == ["p/m1", "openai/gpt-5", "p/m2"]


def test_cumulative_points_per_turn_and_svg() -> None:
    path = [
        msg("u1", {"role": "user", "content": "a"}),
        _assistant("a1", 10, 1.0),
        _assistant("a2", 10, 1.0),
        msg("u2", {"role": "user", "content": "b"}),
        _assistant("a3", 4, 0.5),
    ]
    points = cumulative_by_turn(path)
    assert points == [(32, 2.0), (42, 2.5)]
    # fewer than 3 priced turns: no chart (a total says as much)
    assert str(render_chart(points)) == ""
    points = [*points, (50, 3.0)]
    svg = str(render_chart(points))
    assert "turn 1" in svg and "turn 3" in svg and "tokens" in svg and "$3.00" in svg  # labelled axes
    assert svg.startswith('<svg class="st-chart"')
    assert svg.count("<polyline") == 2
    assert "(50)" in svg
    assert str(render_chart(points[:1])) == ""


def test_non_finite_numbers_count_as_zero() -> None:
    entry = _assistant("a1", 10, 0.5)
    entry["message"]["usage"].update(
        {"input": float("inf"), "output": float("nan"), "cost": {"total": 1e400}}
    )
    stats = compute_stats([entry])
    assert stats.tokens["input"] == 0 and stats.tokens["output"] == 0
    assert stats.cost == 0.0


def test_a_subagent_counts_once_everywhere_and_the_header_says_what_it_adds(tmp_path: Path) -> None:
    """A real Claude Code session with its subagent beside it (issue 44 item 4): the header's prompts
    are the outline's, its cost is where the chart ends, and it names the subagent's part."""
    import shutil

    from sessiontree.exporter import render_session_html
    from sessiontree.readers import load_any
    from sessiontree.store.kinds import is_typed_prompt
    from tests.conftest import real_file

    base = (
        "claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_"
    )
    main = tmp_path / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
    shutil.copyfile(real_file(base + "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"), main)
    alone = compute_stats(load_any(main).entries)
    shutil.copyfile(real_file(base + "agent-ea02459f.jsonl"), tmp_path / "agent-ea02459f.jsonl")
    session = load_any(main)
    stats = compute_stats(session.entries)
    path = session.tree.path_to(session.leaf_id)
    outline = sum(1 for e in path if is_typed_prompt(e))
    points = cumulative_by_turn(path, None, stats.subagents)
    # The session's own counts do not move when its subagent is read with it.
    assert stats.counts == alone.counts and stats.counts["prompts"] == outline == len(points) == 5
    assert stats.counts["user"] == 6  # one is Claude Code's "[Request interrupted ...]": no prompt
    assert f"{stats.cost:.4f}" == "2.1717" and f"{alone.cost:.4f}" == "1.9732"
    assert abs(points[-1][1] - stats.cost) < 1e-9 and points[-1][0] == sum(stats.tokens.values())
    assert stats.subagents.messages == 20 and f"{stats.subagents.costs.amount:.4f}" == "0.1984"
    header = render_session_html(session).split('<header id="st-header">', 1)[1].split("</header>", 1)[0]
    assert '<li data-count="prompts"><span class="st-n">5</span> prompts</li>' in header
    assert "1 subagent adds 20 messages, 118,718 tokens and $0.1984 estimated (in the totals)" in header
    assert "$2.1717</span> cost" in header and "cost ($2.17, estimated from tokens) over 5 turns" in header
