"""`list` and `search` as a person reads them (issue 30 item 5): every file's message count, the
last entry's time, plain titles, an empty folder said, hits grouped on a terminal, one notice."""

from __future__ import annotations

import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from tests.archive.sessions import make_session, set_times, write_lines
from tests.cli.test_sessions_cli import run_on_a_terminal
from tests.readers.helpers import REAL, TOUR

CB = "cb2e607c-c758-415a-8b45-c49e4631906a"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def _last_time(path: Path) -> str:
    stamps = [json.loads(raw).get("timestamp") for raw in path.read_text(encoding="utf-8").splitlines()]
    last = next(s for s in reversed(stamps) if isinstance(s, str))
    return datetime.fromisoformat(last.replace("Z", "+00:00")).astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def test_list_counts_every_file_and_shows_its_last_entry(tmp_path: Path, utc: None) -> None:
    root = tmp_path / "mixed"
    big, lines = make_session(
        root / "pi", "big", seed=5, turns=80, title="## Research Plan **Question**: cost"
    )
    write_lines(big, lines)
    claude = root / "claude"
    claude.mkdir()
    shutil.copy(next((REAL / "claude").glob(f"*{CB}.jsonl")), claude / f"{CB}.jsonl")
    shutil.copy(TOUR, claude / TOUR.name)
    for path in (big, claude / f"{CB}.jsonl"):
        assert path.stat().st_size > 64 * 1024  # over what a prefix read covers
        os.utime(path, (1_000_000_000, 1_000_000_000))  # an mtime far from the entries' times
    code, out, err = invoke("list", "--all", "--root", str(root / "pi"), "--root", str(claude))
    assert code == 0, err
    assert "Including" not in err  # --root chose the folders
    rows = out.splitlines()
    assert rows[0].split() == ["AGENT", "ID", "TITLE", "CWD", "MESSAGES", "LAST", "ACTIVE", "(UTC)"]
    table = {row.split()[1][:8]: row for row in rows[1:]}
    assert len(table) == 3 and " - " not in out
    for path, agent in ((big, "pi"), (claude / f"{CB}.jsonl", "claude"), (claude / TOUR.name, "claude")):
        session = load_any(path)
        row = next(r for r in rows[1:] if r.startswith(agent) and str(session.header["id"])[:8] in r)
        count = sum(1 for e in session.entries if message_of(e) is not None)
        assert row.split()[-3] == str(count), row
        assert row.endswith(_last_time(path)), row
        assert "2001-09-09" not in row
    plain = next(r for r in rows[1:] if "Research Plan" in r)
    assert "Research Plan Question: cost" in plain and "#" not in plain and "**" not in plain
    # The newest activity first.
    shown = [datetime.strptime(r[-16:], "%Y-%m-%d %H:%M") for r in rows[1:]]
    assert shown == sorted(shown, reverse=True)
    # A second listing reads nothing again and says the same.
    assert invoke("list", "--all", "--root", str(root / "pi"), "--root", str(claude))[1] == out


def test_list_titles_are_cut_at_a_word(tmp_path: Path) -> None:
    title = "**Refactor** the `timeline` filtering so that we hide the group instead of all items in it"
    make_session(tmp_path / "s", "t", seed=6, turns=2, title=title)
    code, out, _ = invoke("list", "--all", "--root", str(tmp_path / "s"))
    assert code == 0
    shown = re.search(r"Refactor the timeline [^/]*?…", out)
    assert shown is not None and len(shown.group(0)) <= 48
    assert shown.group(0)[:-1] in "Refactor the timeline filtering so that we hide the group"
    assert shown.group(0)[-2] != " " and "`" not in out and "**" not in out


def test_list_in_an_empty_folder_names_the_folders(tmp_path: Path, isolated_agent_dir: Path) -> None:
    empty = tmp_path / "nothing here"
    empty.mkdir()
    code, out, err = invoke("list", "--root", str(empty))
    assert code == 0 and out == ""
    assert err == f"No sessions for {os.getcwd()} (looked in {empty})\n"
    code, out, err = invoke("list", "--all")  # the defaults: ours only, as no other agent's folder exists
    assert code == 0 and out == "" and err.count("\n") == 1
    assert err.startswith("No sessions for any project (looked in ") and str(isolated_agent_dir) in err


@pytest.fixture
def home_with_agents(isolated_agent_dir: Path) -> Path:
    home = Path(os.environ["HOME"])
    tour = home / ".claude" / "projects" / "-home-dev-tour"
    tour.mkdir(parents=True)
    shutil.copy(TOUR, tour / TOUR.name)
    (home / ".codex" / "sessions").mkdir(parents=True)
    return home


def test_the_other_agents_notice_is_one_line_and_only_without_root(
    home_with_agents: Path, tmp_path: Path
) -> None:
    cache = ("--cache-dir", str(tmp_path / "c"))
    runs: list[tuple[str, ...]] = [("search", "parser", *cache), ("stats", *cache), ("list", "--all")]
    for args in runs:
        code, _, err = invoke(*args)
        assert code == 0, (args, err)
        notices = [line for line in err.splitlines() if line.startswith("Including")]
        assert notices == [
            f"Including Claude Code sessions from {home_with_agents / '.claude/projects'} and Codex CLI "
            f"sessions from {home_with_agents / '.codex/sessions'} (--root chooses the folders)"
        ], args
    root = home_with_agents / ".claude" / "projects"
    given: list[tuple[str, ...]] = [
        ("search", "parser", "--root", str(root), *cache),
        ("list", "--all", "--root", str(root)),
    ]
    for args in given:
        code, _, err = invoke(*args)
        assert code == 0 and "Including" not in err, args


def test_search_on_a_terminal_groups_hits_under_each_session(
    isolated_agent_dir: Path, tmp_path: Path, utc: None
) -> None:
    folder = isolated_agent_dir / "sessions" / "--work-demo--"
    paths = []
    for i in range(3):
        path, entries = make_session(
            folder, f"s{i}", seed=70 + i, turns=8, title=f"# Demo **{i}**", cwd="/work/demo"
        )
        for entry in entries:
            message = entry.get("message")
            if isinstance(message, dict) and message["role"] in ("user", "assistant"):
                for block in message["content"]:
                    if block.get("type") == "text":
                        block["text"] = "the zqgroupword shows here " + block["text"]
        write_lines(path, entries)
        paths.append(path)
    cache = str(tmp_path / "c")
    code, output = run_on_a_terminal(
        ["search", "zqgroupword", "--limit", "50", "--cache-dir", cache], "", tmp_path
    )
    assert code == 0, output
    text = re.sub(r"\x1b\[[0-9;]*m", "", output)
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines.pop() == "Times in UTC."  # the zone the times are in, once, last
    headings = [line for line in lines if not line.startswith("  ")]
    assert sorted(headings) == sorted(f"Demo {i}  {p}" for i, p in enumerate(paths))  # each once, plain
    hits = [line for line in lines if line.startswith("  ")]
    starts = {line.index("the zqgroupword") if "the zqgroupword" in line else None for line in hits}
    assert len(starts) == 1 and None not in starts  # time and role padded: the snippets line up
    assert all(re.match(r"  \d{4}-\d\d-\d\d \d\d:\d\d  (user|assistant) +\S", line) for line in hits)
    assert all(re.search(r"  --leaf \S+$", line) for line in hits)
    assert "\x1b[1mzqgroupword\x1b[0m" in output  # the match in bold
    piped = CliRunner().invoke(
        cli, ["search", "zqgroupword", "--limit", "50", "--cache-dir", cache, "--json"]
    )
    hits_json = json.loads(piped.stdout)
    assert len(hits_json) == len(hits) and set(hits_json[0]) == {
        *("path", "sessionId", "title", "shortTitle", "cwd", "entryId"),
        *("role", "time", "snippet", "marks", "score"),
    }


def test_list_and_search_on_a_terminal_show_the_machines_zone(
    isolated_agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, entries = make_session(isolated_agent_dir / "sessions" / "--work-zone--", "z", seed=81, turns=4)
    set_times(entries, lambda n: 0, (datetime(2026, 3, 1, 20, tzinfo=UTC),))  # 01:30 on the 2nd in India
    for entry in entries:
        message = entry.get("message")
        if isinstance(message, dict) and message["role"] == "user":
            message["content"] = [{"type": "text", "text": "the zqzoneword is here"}]
    write_lines(path, entries)
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # the CLI's processes run in India (+05:30)
    code, output = run_on_a_terminal(
        ["search", "zqzoneword", "--cache-dir", str(tmp_path / "c")], "", tmp_path
    )
    assert code == 0, output
    lines = [line for line in re.sub(r"\x1b\[[0-9;]*m", "", output).splitlines() if line.strip()]
    assert lines[-1] == "Times in Asia/Kolkata."
    hits = [line for line in lines if line.startswith("  ")]
    assert hits and all(line.startswith("  2026-03-02 01:30  user ") for line in hits), hits
    code, output = run_on_a_terminal(["list", "--all"], "", tmp_path)
    assert code == 0, output
    rows = output.splitlines()
    assert rows[0].split()[-3:] == ["LAST", "ACTIVE", "(Asia/Kolkata)"]
    assert rows[1].endswith("2026-03-02 01:30"), rows
