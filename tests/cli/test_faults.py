"""Faults contained everywhere (issue 36): clocks, links, nesting and permissions, each through the
real CLI in a process: one clear line and an exit status, never a traceback, every good session
still listed. Permission cases run as a user who owns none of the files (``tests/stranger.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.archive.sessions import generate, write_lines
from tests.cli.test_archive_bad_input import run
from tests.stranger import give, restrict, run_as_stranger, stranger_dir  # noqa: F401 (fixture)

FAR_PAST = "0001-01-01T00:00:00+14:00"  # parses, but is before year 1 in UTC


def _chain(sid: str, *messages: dict[str, Any], stamp: str = "2026-01-01T00:00:00Z") -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": sid, "timestamp": stamp, "cwd": "/w"}
    ]
    parent = None
    for i, message in enumerate(messages):
        lines.append(
            {
                "type": "message",
                "id": f"{sid}-{i}",
                "parentId": parent,
                "timestamp": stamp,
                "message": message,
            }
        )
        parent = f"{sid}-{i}"
    return lines


def far_past_session(path: Path) -> Path:
    """A message out of any clock's range with usage no price table knows (OverflowError once)."""
    unpriced = {"input": 10, "output": 5}
    return write_lines(
        path,
        _chain(
            "far-past",
            {"role": "user", "content": "when was this", "timestamp": FAR_PAST},
            {"role": "assistant", "content": [{"type": "text", "text": "long ago"}], "model": "no-such-model",
             "provider": "nobody", "usage": unpriced, "timestamp": FAR_PAST},
            stamp=FAR_PAST,
        ),
    )  # fmt: skip


def deep_session(path: Path) -> Path:
    """A tool call whose arguments nest 500 deep (RecursionError in the search extraction once)."""
    lines = _chain(
        "deep-args",
        {"role": "user", "content": "go deep"},
        {
            "role": "assistant",
            "content": [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"x": "N"}}],
        },
    )
    text = "".join(json.dumps(line) + "\n" for line in lines)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text.replace('"x": "N"', '"x": ' + "[" * 500 + '"bottomword"' + "]" * 500))
    return path


def good_session(path: Path, sid: str) -> Path:
    lines = generate(3, 7)
    lines[0]["id"] = sid
    return write_lines(path, lines)


def test_a_time_out_of_range_is_shown_never_a_crash(tmp_path: Path) -> None:
    path = far_past_session(tmp_path / "r" / "far.jsonl")
    inspected = run("inspect", str(path), cwd=tmp_path)
    assert inspected.returncode == 0 and "no price for nobody/no-such-model" in inspected.stdout
    exported = run("export", str(path), str(tmp_path / "far.html"), cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert "long ago" in (tmp_path / "far.html").read_text()
    built = run("build", "--root", str(path.parent), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "sessions" / "far.html").is_file()
    stats = run("stats", "--root", str(path.parent), "--json", cwd=tmp_path)
    assert stats.returncode == 0 and json.loads(stats.stdout)["groups"]


def test_build_indexes_a_line_nested_500_deep(tmp_path: Path) -> None:
    path = deep_session(tmp_path / "r" / "deep.jsonl")
    built = run("build", "--root", str(path.parent), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert built.returncode == 0 and "failed" not in built.stdout + built.stderr, built.stderr
    assert (tmp_path / "site" / "sessions" / "deep.html").is_file()
    found = run("search", "bottomword", "--root", str(path.parent), cwd=tmp_path)
    assert found.returncode == 0 and "deep.jsonl" in found.stdout


def test_links_that_lead_nowhere_are_listed_with_their_reason(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    folder = agent / "sessions" / "--w--"
    good_session(folder / "good.jsonl", "good-one")
    (folder / "loop.jsonl").symlink_to("loop.jsonl")
    (folder / "gone.jsonl").symlink_to("nowhere.jsonl")
    env = {"SESSIONTREE_AGENT_DIR": str(agent), "HOME": str(tmp_path)}
    from tests.cli.test_hostile_inputs import run as run_env

    for args in (["list", "--all"], ["list", "--all", "--root", str(agent / "sessions")]):
        listed = run_env(*args, cwd=tmp_path, env=env)
        assert "Traceback" not in listed.stderr and listed.returncode == 0, listed.stderr
        assert "good-one" in listed.stdout
    built = run("build", "--root", str(agent / "sessions"), "-o", str(tmp_path / "site"), cwd=tmp_path)
    assert "loop.jsonl: unreadable: a symlink loop" in built.stderr
    assert "gone.jsonl: unreadable: it is a link to nothing" in built.stderr
    assert [p.name for p in (tmp_path / "site" / "sessions").rglob("*.html")] == ["good.html"]


@pytest.fixture
def private_folders(stranger_dir: Path) -> dict[str, Path]:  # noqa: F811
    """A root with a good project and two of someone else's: one 0700, one 0744 (listed, not entered)."""
    root = stranger_dir / "agent" / "sessions"
    made = {"good": good_session(root / "--good--" / "good.jsonl", "good-one")}
    for mode in ("700", "744"):
        made[mode] = good_session(root / f"--p{mode}--" / "p.jsonl", f"private-{mode}")
        (root / f"--p{mode}--" / "p").mkdir()  # its session folder: a stat of it is EACCES
    home = stranger_dir / "home"
    give(home)
    restrict(root / "--p700--", 0o700)
    restrict(root / "--p744--", 0o744)
    return made


def test_folders_of_someone_else_never_crash_a_command(private_folders: dict[str, Path]) -> None:
    top = private_folders["good"].parents[3]
    home, root = top / "home", top / "agent" / "sessions"
    env = {"SESSIONTREE_AGENT_DIR": str(top / "agent")}
    listed = run_as_stranger("list", "--all", cwd=home, home=home, env=env)
    assert listed.returncode == 0 and "good-one" in listed.stdout
    for args in (["search", "Atomic", "--root", str(root)], ["stats", "--root", str(root)]):
        result = run_as_stranger(*args, cwd=home, home=home, env=env)
        assert result.returncode == 0, result.stderr
    found = run_as_stranger("search", "Atomic", "--root", str(root), cwd=home, home=home, env=env)
    assert "good.jsonl" in found.stdout
    built = run_as_stranger(
        "build", "--root", str(root), "-o", str(home / "site"), cwd=home, home=home, env=env
    )
    assert built.returncode == 1  # a file it could not read: said, and the status says so
    assert "--p744--/p.jsonl: unreadable: permission denied" in built.stderr
    assert [p.name for p in (home / "site" / "sessions").rglob("*.html")] == ["good.html"]
    for mode in ("700", "744"):
        for command in ("export", "inspect"):
            result = run_as_stranger(command, str(private_folders[mode]), cwd=home, home=home, env=env)
            assert result.returncode == 1
            assert result.stderr.strip() == f"Error: Cannot read {private_folders[mode]}: permission denied"
