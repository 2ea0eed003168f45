"""sessiontree list / resume / continue / fork / move through CliRunner, on real files."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from sessiontree.cli import cli
from sessiontree.cli import sessions as sessions_cli
from sessiontree.store.discovery import session_dir_for, write_terminal_breadcrumb
from sessiontree.store.load import load_session
from sessiontree.store.paths import artifacts_dir_for
from tests.store.helpers import assistant, header, msg, write_jsonl


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cwd = tmp_path / "proj"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("TERM_SESSION_ID", raising=False)
    monkeypatch.delenv("WT_SESSION", raising=False)
    monkeypatch.delenv("TMUX_PANE", raising=False)
    return cwd


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input)


def add_session(
    agent: Path,
    cwd: Path | str,
    session_id: str,
    prompt: str = "hello",
    *,
    mtime: float | None = None,
    **extra: Any,
) -> Path:
    folder = session_dir_for(cwd, agent)
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        header(session_id, cwd=str(cwd), **extra),
        msg("a1", None, "user", prompt),
        assistant("a2", "a1"),
    ]
    path = write_jsonl(folder / f"2026-01-01T00-00-00-000Z_{session_id}.jsonl", lines)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def assert_clean_error(result: Result, text: str) -> None:
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit)  # no traceback
    assert result.stderr.startswith("Error: ") and text in result.stderr
    assert result.stderr.count("\n") == 1


def test_list_empty(project: Path) -> None:
    result = run("list")
    assert result.exit_code == 0 and result.stdout == "" and "No sessions for" in result.stderr


def test_list_table_newest_first(project: Path, isolated_agent_dir: Path, utc: None) -> None:
    add_session(isolated_agent_dir, project, "1111aaaa2222bbbb", "old question", mtime=1_000_000)
    add_session(
        isolated_agent_dir, project, "3333cccc4444dddd", "new question", mtime=2_000_000, title="Named"
    )
    add_session(isolated_agent_dir, "/elsewhere", "5555eeee6666ffff")
    result = run("list")
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()
    assert rows[0].split() == ["ID", "TITLE", "CWD", "MESSAGES", "LAST", "ACTIVE", "(UTC)"]
    assert len(rows) == 3
    assert rows[1].startswith("3333cccc4444dddd  Named") and "old question" in rows[2]
    assert "/proj " in rows[1] and rows[1].split()[-3] == "2"  # a long cwd keeps its end
    assert "5555eeee6666ffff" not in result.stdout


def test_list_all_and_json(project: Path, isolated_agent_dir: Path) -> None:
    here = add_session(isolated_agent_dir, project, "1111aaaa2222bbbb", mtime=1_000_000)
    add_session(isolated_agent_dir, "/elsewhere", "5555eeee6666ffff", "over there", mtime=2_000_000)
    result = run("list", "--all", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [d["id"] for d in data] == ["5555eeee6666ffff", "1111aaaa2222bbbb"]
    assert data[0]["firstMessage"] == "over there" and data[0]["cwd"] == "/elsewhere"
    assert data[1]["path"] == str(here) and data[1]["messageCount"] == 2
    assert run("list", "--all").stdout.count("\n") == 3


def test_list_with_session_dir(project: Path, tmp_path: Path) -> None:
    custom = tmp_path / "custom"
    custom.mkdir()
    write_jsonl(custom / "s.jsonl", [header("9999000011112222", cwd="/x"), msg("a1", None, "user")])
    result = run("list", "--session-dir", str(custom))
    assert result.exit_code == 0 and "9999000011112222" in result.stdout


def test_list_neutralises_terminal_escapes(project: Path, isolated_agent_dir: Path) -> None:
    add_session(isolated_agent_dir, project, "1111aaaa2222bbbb", title="\x1b]0;owned\x07\x1b[31mred\x1b[0m")
    result = run("list")
    assert result.exit_code == 0
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout and "[31m" not in result.stdout
    assert "red" in result.stdout


def test_resume_by_id_prefix_and_path(project: Path, isolated_agent_dir: Path) -> None:
    path = add_session(isolated_agent_dir, project, "abcd00001111ffff")
    add_session(isolated_agent_dir, project, "ffff00001111abcd")
    assert run("resume", "abcd").stdout == f"{path}\n"
    assert run("resume", str(path)).stdout == f"{path}\n"


def test_resume_errors_are_one_line(project: Path, isolated_agent_dir: Path, tmp_path: Path) -> None:
    add_session(isolated_agent_dir, project, "abcd000000000001")
    add_session(isolated_agent_dir, project, "abcd000000000002")
    assert_clean_error(run("resume", "zzz"), "No session id starts with 'zzz'")
    ambiguous = run("resume", "abcd")
    assert_clean_error(ambiguous, "matches 2 sessions")
    assert "abcd000000000001" in ambiguous.stderr and "abcd000000000002" in ambiguous.stderr
    assert_clean_error(run("resume", str(tmp_path / "missing.jsonl")), "File not found: ")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b"\x00\x01 not json\n")
    assert_clean_error(run("resume", str(garbage)), "Not a session file")
    assert garbage.read_bytes() == b"\x00\x01 not json\n"  # resume never rewrites what it reads
    assert_clean_error(run("resume", str(tmp_path) + "/"), "is a directory")


def test_resume_without_value_needs_a_terminal(project: Path, isolated_agent_dir: Path) -> None:
    add_session(isolated_agent_dir, project, "abcd000000000001")
    assert_clean_error(run("resume"), "the picker needs a terminal")


def test_resume_with_standard_input_closed(project: Path, isolated_agent_dir: Path) -> None:
    path = add_session(isolated_agent_dir, project, "abcd000000000001")
    # exec ... 0<&-: the process starts with descriptor 0 not open at all (sys.stdin is None).
    script = 'exec "$0" -m sessiontree "$@" 0<&-'
    env = {**os.environ, "SESSIONTREE_AGENT_DIR": str(isolated_agent_dir)}

    def resume(*args: str) -> subprocess.CompletedProcess[str]:
        command = ["sh", "-c", script, sys.executable, "resume", *args]
        return subprocess.run(command, capture_output=True, text=True, env=env, cwd=project, timeout=60)

    found = resume("abcd")
    assert (found.returncode, found.stdout, found.stderr) == (0, f"{path}\n", "")
    picker = resume()
    assert picker.returncode == 1 and "Traceback" not in picker.stderr
    assert picker.stderr == "Error: No session given: pass an ID or PATH (the picker needs a terminal)\n"


def test_resume_picker_on_a_terminal(
    project: Path, isolated_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_session(isolated_agent_dir, project, "1111000000000000", "first", mtime=2_000_000)
    older = add_session(isolated_agent_dir, project, "2222000000000000", "second", mtime=1_000_000)
    monkeypatch.setattr(sessions_cli, "is_interactive", lambda: True)
    result = run("resume", input="2\n")
    assert result.exit_code == 0, result.output
    assert "  1. 11110000  first" in result.stdout and "  2. 22220000  second" in result.stdout
    assert result.stdout.rstrip().splitlines()[-1] == str(older)


def test_resume_from_another_project_without_a_terminal(project: Path, isolated_agent_dir: Path) -> None:
    source = add_session(isolated_agent_dir, "/other/project", "c0ffee0000000000")
    result = run("resume", "c0ffee")
    assert_clean_error(result, "belongs to another project (/other/project)")
    assert str(source) in result.stderr


def test_resume_from_another_project_forks_on_yes(
    project: Path, isolated_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = add_session(isolated_agent_dir, "/other/project", "c0ffee0000000000")
    monkeypatch.setattr(sessions_cli, "is_interactive", lambda: True)
    declined = run("resume", "c0ffee", input="n\n")
    assert declined.exit_code == 1 and "Not forked" in declined.stderr
    result = run("resume", "c0ffee", input="y\n")
    assert result.exit_code == 0, result.output
    assert (
        "Session found in different project: /other/project. Fork into current directory? [y/N]"
        in result.stdout
    )
    new_path = Path(result.stdout.strip().splitlines()[-1])
    assert new_path.parent == session_dir_for(project, isolated_agent_dir)
    forked = load_session(new_path)
    assert forked.cwd == str(project) and forked.header["parentSession"] == str(source)


def test_continue_prefers_the_terminal_breadcrumb(
    project: Path, isolated_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = add_session(isolated_agent_dir, project, "1111000000000000", mtime=1_000_000)
    newer = add_session(isolated_agent_dir, project, "2222000000000000", mtime=2_000_000)
    assert run("continue").stdout == f"{newer}\n"
    write_terminal_breadcrumb(isolated_agent_dir, "my-term", str(project), older)
    monkeypatch.setenv("TERM_SESSION_ID", "my-term")
    assert run("continue").stdout == f"{older}\n"


def test_continue_with_nothing(project: Path) -> None:
    assert_clean_error(run("continue"), "No session to continue")


def test_fork_leaves_the_source_alone(project: Path, isolated_agent_dir: Path) -> None:
    folder = session_dir_for(project, isolated_agent_dir)
    folder.mkdir(parents=True)
    v1 = [
        header("0123456789abcdef", version=None, cwd=str(project)),
        {"type": "message", "message": {"role": "user"}},
    ]
    source = write_jsonl(folder / "old_0123456789abcdef.jsonl", v1)
    artifacts_dir_for(source).mkdir()
    (artifacts_dir_for(source) / "0.bash.log").write_text("log")
    before = source.read_bytes()
    result = run("fork", "0123")
    assert result.exit_code == 0, result.output
    new_path = Path(result.stdout.strip())
    assert source.read_bytes() == before
    forked = load_session(new_path)
    assert forked.header["parentSession"] == "0123456789abcdef" and forked.version_found == 3
    assert len(forked.entries) == 1 and (artifacts_dir_for(new_path) / "0.bash.log").read_text() == "log"


def test_move_to_another_cwd(project: Path, isolated_agent_dir: Path, tmp_path: Path) -> None:
    source = add_session(isolated_agent_dir, project, "abcd000000000001")
    result = run("move", "abcd", str(tmp_path / "dest"))
    assert result.exit_code == 0, result.output
    new_path = Path(result.stdout.strip())
    assert new_path == session_dir_for(tmp_path / "dest", isolated_agent_dir) / source.name
    assert not source.exists() and load_session(new_path).cwd == str(tmp_path / "dest")
    assert_clean_error(run("move", "nothing-like-this", str(tmp_path)), "No session id starts with")


def test_hostile_ids_and_cwds_stay_on_one_line(project: Path, isolated_agent_dir: Path) -> None:
    evil_cwd = "/x\n\x1b[2J\x1b]0;pwned\x07"
    folder = isolated_agent_dir / "sessions" / "--evil--"
    folder.mkdir(parents=True)
    for n in (1, 2):
        lines = [header(f"ab\x1b[31m\n{n}", cwd=evil_cwd), msg("a1", None, "user", "\x1b[5mblink")]
        write_jsonl(folder / f"evil{n}.jsonl", lines)
    table = run("list", "--all")
    assert table.exit_code == 0 and "\x1b" not in table.stdout and len(table.stdout.splitlines()) == 3
    ambiguous = run("resume", "ab")
    assert_clean_error(ambiguous, "matches 2 sessions")
    assert "\x1b" not in ambiguous.stderr and "\x07" not in ambiguous.stderr
    data = json.loads(run("list", "--all", "--json").stdout)
    assert data[0]["cwd"] == evil_cwd  # JSON keeps the exact text, escaped by the encoder
    assert data[0]["modified"].endswith("+00:00") and data[0]["modified"][:2] == "20"


def run_on_a_terminal(args: list[str], answer: str, cwd: Path) -> tuple[int, str]:
    """Run the real CLI with stdin/stdout on a pseudo-terminal, typing ``answer``."""
    leader, follower = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessiontree", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=cwd,
    )
    os.close(follower)
    os.write(leader, answer.encode())
    output = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 120)  # a bound for a hang, not a timing assertion
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    return proc.wait(timeout=120), output.decode().replace("\r\n", "\n")


def test_cross_project_fork_on_a_real_terminal(project: Path, isolated_agent_dir: Path) -> None:
    add_session(isolated_agent_dir, "/other/project", "c0ffee0000000000")
    code, output = run_on_a_terminal(["resume", "c0ffee"], "y\n", project)
    assert code == 0, output
    assert "Session found in different project: /other/project. Fork into current directory? [y/N]" in output
    new_path = Path(output.strip().splitlines()[-1].split(" ")[-1])
    assert new_path.parent == session_dir_for(project, isolated_agent_dir) and new_path.exists()


def test_picker_on_a_real_terminal(project: Path, isolated_agent_dir: Path) -> None:
    add_session(isolated_agent_dir, project, "1111000000000000", "first", mtime=2_000_000)
    older = add_session(isolated_agent_dir, project, "2222000000000000", "second", mtime=1_000_000)
    code, output = run_on_a_terminal(["resume"], "2\n", project)
    assert code == 0, output
    # The answer was typed ahead, so the terminal echoed it before the prompt: the path ends the output.
    assert "Resume which session" in output and output.strip().endswith(f" {older}")
