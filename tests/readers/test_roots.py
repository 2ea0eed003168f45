"""Claude Code and Codex folders: discovery from prefix reads, and search / stats over several roots."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.readers.discovery import default_roots, iter_agent_files, list_agent_sessions, root_agent
from sessiontree.store.entries import message_of
from tests.readers.helpers import CODEX_NEW, CODEX_OLD, REAL, TOUR

CB = "cb2e607c-c758-415a-8b45-c49e4631906a"


@pytest.fixture
def home(isolated_agent_dir: Path) -> Path:
    """A home with ~/.claude/projects and ~/.codex/sessions laid out as the agents write them."""
    home = Path(os.environ["HOME"])
    tour = home / ".claude" / "projects" / "-home-dev-tour"
    shutil.copytree(TOUR.parent, tour)
    review = home / ".claude" / "projects" / "-Users-dain-workspace-coderabbit-review-helper"
    review.mkdir()
    shutil.copy(next((REAL / "claude").glob(f"*{CB}.jsonl")), review / f"{CB}.jsonl")
    shutil.copy(next((REAL / "claude").glob("*agent-ea02459f.jsonl")), review / "agent-ea02459f.jsonl")
    for source, day in ((CODEX_NEW, "2026/01/06"), (CODEX_OLD, "2025/08/01")):
        folder = home / ".codex" / "sessions" / day
        folder.mkdir(parents=True)
        shutil.copy(source, folder / source.name)
    return home


def test_default_roots_and_what_they_hold(home: Path) -> None:
    roots = default_roots()
    assert roots == [("claude", home / ".claude/projects"), ("codex", home / ".codex/sessions")]
    assert [root_agent(root) for _, root in roots] == ["claude", "codex"]
    claude = [p.name for p in iter_agent_files(home / ".claude/projects")]
    # subagent transcripts belong to their session (2.1 subagents/ folder, 2.0 agent-<id> beside)
    assert sorted(claude) == sorted([TOUR.name, f"{CB}.jsonl"])
    assert len(list(iter_agent_files(home / ".codex/sessions"))) == 2


def test_listing_from_prefix_reads(home: Path) -> None:
    infos = {i.id: i for i in list_agent_sessions(home / ".claude/projects")}
    tour = infos[TOUR.stem]
    assert (tour.agent, tour.cwd, tour.created) == ("claude", "/home/dev/tour", "2026-01-05T09:00:00.000Z")
    assert tour.title == "Parser tour: fork, tools, compaction"
    full = load_any(TOUR)
    assert tour.message_count == sum(1 for e in full.entries if message_of(e))
    big = infos[CB]
    assert big.message_count is None  # a large file is not read whole for a listing
    assert big.first_message is not None
    # what was typed, not the IDE selection Claude Code put before it (issue 23 item 5)
    assert big.first_message.startswith("How can I make this possible to install as a library")
    codex = {i.id: i for i in list_agent_sessions(home / ".codex/sessions")}
    new = codex["019b0000-aaaa-7bbb-8ccc-000000000001"]
    assert (new.agent, new.cwd, new.first_message) == (
        "codex",
        "/home/dev/chess",
        "Make the board render, see the sketch",
    )
    assert json.loads(json.dumps(new.to_json()))["agent"] == "codex"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_search_and_stats_pick_up_the_default_folders_saying_so(home: Path, tmp_path: Path) -> None:
    code, out, err = _run("search", "changelog", "--json", "--cache-dir", str(tmp_path / "c"))
    assert code == 0, err
    assert err.count("Including") == 1  # one line for both folders
    assert (
        f"Including Claude Code sessions from {home / '.claude/projects'} and Codex CLI sessions from "
        f"{home / '.codex/sessions'} (--root chooses the folders)"
    ) in err
    hits = json.loads(out)
    assert {h["entryId"] for h in hits} >= {"u-c3", "a-c4"}
    code, out, err = _run("search", "clock", "--json", "--agent", "codex", "--cache-dir", str(tmp_path / "c"))
    assert code == 0 and "Claude Code" not in err
    assert hits and all("/.codex/" in h["path"] for h in json.loads(out))


def test_stats_over_several_roots_counts_each_reply_once(home: Path, tmp_path: Path) -> None:
    roots = ["--root", str(home / ".claude/projects"), "--root", str(home / ".codex/sessions")]
    code, out, err = _run("stats", *roots, "--by", "session", "--json", "--cache-dir", str(tmp_path / "c"))
    assert code == 0, err
    assert "Including" not in err  # the roots were chosen
    report = json.loads(out)
    by_path = {g["key"]: g for g in report["groups"]}
    tour = by_path[str(home / ".claude/projects/-home-dev-tour" / TOUR.name)]
    session = load_any(TOUR)
    usages = [m["usage"] for m in map(message_of, session.entries) if m and m.get("usage")]
    assert tour["output"] == sum(u["output"] for u in usages)  # split replies: the reply once
    assert tour["input"] == sum(u["input"] for u in usages)
    codex = by_path[str(home / ".codex/sessions/2026/01/06" / CODEX_NEW.name)]
    assert (codex["input"], codex["output"], codex["cacheRead"]) == (2000, 200, 9000)
    # the 2.0 subagent file is counted inside its session, never on its own
    assert not any("agent-ea02459f" in key for key in by_path)
