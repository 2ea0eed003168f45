"""Usage totals checked against sums the test computes itself from the files, on every branch."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store.load import load_session
from tests.archive.sessions import make_session, write_lines

KINDS = {"input": "input", "output": "output", "cacheRead": "cacheRead", "cacheWrite": "cacheWrite"}
# genai-prices' table for Claude Sonnet 4.5 (below its 200k-token tier): dollars per million
# input, output, cache-read and cache-write tokens. The estimate a session without cost gets.
SONNET_45 = {"input": 3.0, "output": 15.0, "cacheRead": 0.30, "cacheWrite": 3.75}
pytestmark = pytest.mark.usefixtures("utc")  # stats counts the machine's days; these sums are UTC's


def hand_estimate(usage: dict[str, Any]) -> float:
    """The cost of one Claude Sonnet 4.5 message, computed by hand from the price table."""
    return sum(usage[k] * SONNET_45[k] for k in KINDS) / 1_000_000


def build_archive(roots: Path) -> list[Path]:
    """Four sessions: two projects, two models, one with no cost recorded, one fork copy."""
    a, lines_a = make_session(
        roots / "a", "alpha", seed=11, turns=45, cwd="/work/alpha", title="Alpha", days=0
    )
    for n, line in enumerate(lines_a):
        message = line.get("message")
        if isinstance(message, dict) and message.get("role") == "assistant" and n % 3 == 0:
            message["provider"], message["model"] = "openai", "gpt-5"
    write_lines(a, lines_a)
    b, _ = make_session(roots / "b", "beta", seed=12, turns=30, cwd="/work/beta", title="Beta", days=3)
    c, lines_c = make_session(roots / "b", "free", seed=13, turns=10, cwd="/work/beta", title="Free", days=9)
    for line in lines_c:
        message = line.get("message")
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            message["usage"].pop("cost", None)
    write_lines(c, lines_c)
    # A fork: a new header (later, pointing at its parent) over a copy of the parent's entries,
    # which is not new spending.
    fork_header = {**lines_a[0], "id": "fork-of-alpha", "parentSession": lines_a[0]["id"]}
    fork_header["timestamp"] = "2030-01-01T00:00:00.000Z"
    fork = write_lines(roots / "a" / "alpha-fork.jsonl", [fork_header, *lines_a[1:]])
    later = a.stat().st_mtime + 60
    os.utime(fork, (later, later))  # written after its parent, as a fork is
    return [a, b, c, fork]


def independent_totals(files: list[Path], by: str) -> dict[str, dict[str, Any]]:
    """Sum every assistant message's usage straight from the JSON, once per message id."""
    totals: dict[str, dict[str, Any]] = defaultdict(
        lambda: {**dict.fromkeys(KINDS, 0), "messages": 0, "cost": None}
    )
    seen: set[tuple[Any, ...]] = set()
    for path in files:
        lines = [json.loads(raw) for raw in path.read_text().splitlines()]
        header = lines[0]
        for line in lines[1:]:
            message = line.get("message")
            if not isinstance(message, dict) or message.get("role") != "assistant" or "usage" not in message:
                continue
            usage = message["usage"]
            key = (line["id"], line["timestamp"], *(usage[k] for k in KINDS))
            if key in seen:
                continue
            seen.add(key)
            group = {
                "day": line["timestamp"][:10],
                "model": f"{message['provider']}/{message['model']}",
                "project": header["cwd"],
                "session": str(path),
            }[by]
            total = totals[group]
            total["messages"] += 1
            for k in KINDS:
                total[k] += usage[k]
            if "cost" in usage:
                total["cost"] = (total["cost"] or 0.0) + usage["cost"]["total"]
            else:
                assert message["model"] == "claude-sonnet-4-5"
                total["cost"] = (total["cost"] or 0.0) + hand_estimate(usage)
    return dict(totals)


def run_stats(roots: Path, cache: Path, *args: str) -> Any:
    result = CliRunner().invoke(
        cli, ["stats", "--sessions-dir", str(roots), "--cache-dir", str(cache), *args], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_stats_sums_match_independent_totals_for_every_grouping(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    for by in ("day", "model", "project", "session"):
        report = json.loads(run_stats(roots, cache_dir, "--by", by, "--json"))
        expected = independent_totals(files[:3], by)  # the fork adds nothing
        got = {g["key"]: g for g in report["groups"]}
        assert set(got) == set(expected), by
        for key, want in expected.items():
            group = got[key]
            assert group["messages"] == want["messages"], (by, key)
            assert [group[k] for k in KINDS] == [want[k] for k in KINDS], (by, key)
            if want["cost"] is None:
                assert group["cost"] is None, (by, key)
            else:
                assert math.isclose(group["cost"], want["cost"], rel_tol=1e-9, abs_tol=1e-6), (by, key)
        assert report["branches"] == "all"
        assert report["total"]["messages"] == sum(w["messages"] for w in expected.values())
    assert len(independent_totals(files[:3], "model")) == 2


def test_sessions_without_cost_get_an_estimate_marked_estimated(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    table = run_stats(roots, cache_dir, "--by", "session")
    free = next(line for line in table.splitlines() if line.startswith("Free"))
    want = independent_totals([files[2]], "session")[str(files[2])]["cost"]
    assert free.rstrip().endswith(f"${want:,.2f} estimated")
    alpha = next(line for line in table.splitlines() if line.startswith("Alpha"))
    assert "estimated" not in alpha  # a recorded cost wins
    rows = list(csv.DictReader(io.StringIO(run_stats(roots, cache_dir, "--by", "session", "--csv"))))
    by_title = {r["title"]: r for r in rows}
    assert math.isclose(float(by_title["Free"]["cost"]), want, rel_tol=1e-6)
    assert by_title["Free"]["costEstimated"] == "True" and by_title["Alpha"]["costEstimated"] == "False"
    assert float(by_title["Alpha"]["cost"]) > 0
    assert rows[-1]["key"] == "total"
    assert "every branch" in table


def test_a_model_without_price_shows_a_dash_and_is_named(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "local", seed=41, turns=4, title="Local")
    for line in lines:
        message = line.get("message")
        if isinstance(message, dict) and isinstance(message.get("usage"), dict):
            message["usage"].pop("cost", None)
            message["provider"], message["model"] = "ollama", "my-own-finetune-7b"
    write_lines(path, lines)
    table = run_stats(roots, cache_dir, "--by", "session")
    local = next(line for line in table.splitlines() if line.startswith("Local"))
    assert local.rstrip().endswith("- (no price for ollama/my-own-finetune-7b)")
    report = json.loads(run_stats(roots, cache_dir, "--by", "session", "--json"))
    assert report["total"]["cost"] is None
    assert report["total"]["unpricedModels"] == ["ollama/my-own-finetune-7b"]


def test_every_branch_counts_not_only_the_active_path(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "branchy", seed=21, turns=45)
    session = load_session(path)
    on_path = sum(
        1
        for e in session.tree.path_to(session.leaf_id)
        if e.get("type") == "message" and e["message"]["role"] == "assistant"
    )
    everywhere = sum(
        1 for e in lines if isinstance(e.get("message"), dict) and e["message"]["role"] == "assistant"
    )
    assert everywhere > on_path  # the generated session has abandoned branches
    report = json.loads(run_stats(roots, cache_dir, "--json"))
    assert report["total"]["messages"] == everywhere


def test_project_and_since_filters(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    beta = json.loads(run_stats(roots, cache_dir, "--project", "/work/beta", "--by", "session", "--json"))
    assert {g["key"] for g in beta["groups"]} == {str(files[1]), str(files[2])}
    days = sorted(independent_totals(files[:3], "day"))
    since = days[len(days) // 2]
    later = json.loads(run_stats(roots, cache_dir, "--since", since, "--json"))
    expected = {d: t for d, t in independent_totals(files[:3], "day").items() if d >= since}
    assert {g["key"]: g["messages"] for g in later["groups"]} == {
        d: t["messages"] for d, t in expected.items()
    }
    result = CliRunner().invoke(
        cli, ["stats", "--sessions-dir", str(roots), "--cache-dir", str(cache_dir), "--since", "soon"]
    )
    assert result.exit_code == 1 and "--since" in result.output and "Traceback" not in result.output


def test_week_groups_are_iso_weeks(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    report = json.loads(run_stats(roots, cache_dir, "--by", "week", "--json"))
    weeks: dict[str, int] = defaultdict(int)
    for day, total in independent_totals(files[:3], "day").items():
        year, week, _ = datetime.fromisoformat(day).replace(tzinfo=UTC).isocalendar()
        weeks[f"{year}-W{week:02d}"] += total["messages"]
    assert {g["key"]: g["messages"] for g in report["groups"]} == dict(weeks)


def test_untrusted_numbers_count_as_nothing(roots: Path, cache_dir: Path) -> None:
    path, lines = make_session(roots / "p", "odd", seed=31, turns=6, title="Odd")
    assistants = [
        e for e in lines if isinstance(e.get("message"), dict) and e["message"]["role"] == "assistant"
    ]
    good = assistants[0]["message"]["usage"]
    odd_values = [float("inf"), float("nan"), 10**30, -5, "12", True, None, {"x": 1}]
    for entry, value in zip(assistants[1:], odd_values, strict=False):
        entry["message"]["usage"] = {
            "input": value,
            "output": value,
            "cacheRead": value,
            "cacheWrite": value,
            "cost": {"total": value},
        }
    keep = assistants[: len(odd_values) + 1]
    text = "".join(json.dumps(e) + "\n" for e in [lines[0], *keep])
    text += (
        '{"type":"message","id":"huge","message":{"role":"assistant","usage":{"input":' + "9" * 5000 + "}}}\n"
    )
    path.write_text(text)
    report = json.loads(run_stats(roots, cache_dir, "--by", "session", "--json"))
    total = report["total"]
    # The 5,000-digit line is read (numbers are clamped where lines are decoded); it counts nothing.
    assert total["messages"] == len(keep) + 1
    assert [total[k] for k in ("input", "output", "cacheRead", "cacheWrite")] == [good[k] for k in KINDS]
    assert math.isclose(total["cost"], good["cost"]["total"], rel_tol=1e-9)
    for fmt in ("--csv", "--json"):
        run_stats(roots, cache_dir, "--by", "model", fmt)
    assert "TOTAL" in run_stats(roots, cache_dir)


def test_a_fork_takes_over_when_its_parent_is_deleted(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    before = json.loads(run_stats(roots, cache_dir, "--json"))["total"]
    alpha = independent_totals([files[0]], "project")["/work/alpha"]["messages"]
    files[0].unlink()  # the parent goes; its fork still holds the same messages
    after = json.loads(run_stats(roots, cache_dir, "--by", "session", "--json"))
    assert after["total"]["messages"] == before["messages"]
    assert math.isclose(after["total"]["cost"], before["cost"], rel_tol=1e-9)
    assert str(files[3]) in {g["key"] for g in after["groups"]}
    files[3].unlink()
    gone = json.loads(run_stats(roots, cache_dir, "--json"))["total"]
    assert gone["messages"] == before["messages"] - alpha


def test_since_a_time_within_a_day_counts_single_messages(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    stamps = sorted(
        json.loads(raw)["timestamp"]
        for raw in files[0].read_text().splitlines()[1:]
        if '"role": "assistant"' in raw and '"usage"' in raw
    )
    since = stamps[len(stamps) // 2]
    assert not since.endswith("T00:00:00.000Z")
    report = json.loads(run_stats(roots, cache_dir, "--project", "/work/alpha", "--since", since, "--json"))
    assert report["total"]["messages"] == sum(1 for s in stamps if s >= since)


def test_until_model_and_agent_filters(roots: Path, cache_dir: Path) -> None:
    files = build_archive(roots)
    by_day = independent_totals(files[:3], "day")
    days = sorted(by_day)
    since, until = days[1], days[-2]
    ranged = json.loads(run_stats(roots, cache_dir, "--since", since, "--until", until, "--json"))
    assert {g["key"]: g["messages"] for g in ranged["groups"]} == {
        d: t["messages"]
        for d, t in by_day.items()
        if since <= d <= until  # a bare date: its whole day
    }
    stamps = sorted(
        json.loads(raw)["timestamp"]
        for raw in files[0].read_text().splitlines()[1:]
        if '"role": "assistant"' in raw and '"usage"' in raw
    )
    cut = stamps[len(stamps) // 2]
    before = json.loads(run_stats(roots, cache_dir, "--project", "/work/alpha", "--until", cut, "--json"))
    assert before["total"]["messages"] == sum(1 for s in stamps if s < cut)
    gpt = json.loads(run_stats(roots, cache_dir, "--model", "openai/gpt-5", "--by", "model", "--json"))
    assert [g["key"] for g in gpt["groups"]] == ["openai/gpt-5"]
    assert gpt["total"]["messages"] == independent_totals(files[:3], "model")["openai/gpt-5"]["messages"]
    agents = json.loads(run_stats(roots, cache_dir, "--by", "agent", "--json"))
    assert [g["key"] for g in agents["groups"]] == ["pi"]
    claude = json.loads(run_stats(roots, cache_dir, "--agent", "claude", "--json"))
    assert claude["total"]["messages"] == 0  # --agent keeps that agent's sessions under --root too
    result = CliRunner().invoke(
        cli, ["stats", "--sessions-dir", str(roots), "--cache-dir", str(cache_dir), "--until", "later"]
    )
    assert result.exit_code == 1 and "--until" in result.output and "Traceback" not in result.output
