"""``sessiontree artifact`` and ``sessiontree history`` through click's CliRunner and real processes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.store.artifacts import AgentOutputManager, ArtifactManager
from tests.conftest import machine_zone


@pytest.fixture
def session(tmp_path: Path) -> Path:
    """A session file path whose artifact dir holds a tool output and two agent outputs."""
    path = tmp_path / "2026-01-01T00-00-00-000Z_abc.jsonl"
    path.write_text('{"type":"session","version":3,"id":"abc"}\n')
    directory = path.with_suffix("")
    ArtifactManager(directory).save("bash", "".join(f"line {i}\n" for i in range(1, 6)))
    agents = AgentOutputManager(directory)
    agents.write("Explorer", "# Report\n\x1b[31mred\x1b[0m text\n")
    agents.write("Json", json.dumps({"files": ["a.py", "b.py"], "ok": True}))
    return path


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_artifact_prints_a_tool_output(session: Path) -> None:
    assert run("artifact", "artifact://0", "--session", str(session)) == (
        0,
        "line 1\nline 2\nline 3\nline 4\nline 5\n",
        "",
    )


def test_artifact_paging(session: Path) -> None:
    code, out, _ = run("artifact", "artifact://0", "--session", str(session), "--offset", "2", "--limit", "2")
    assert (code, out) == (0, "line 2\nline 3\n")


def test_agent_output_is_printed_without_escape_sequences(session: Path) -> None:
    code, out, _ = run("artifact", "agent://0-Explorer", "--session", str(session))
    assert (code, out) == (0, "# Report\nred text\n")


def test_agent_extraction(session: Path) -> None:
    code, out, _ = run("artifact", "agent://1-Json/files/1", "--session", str(session))
    assert (code, json.loads(out)) == (0, "b.py")
    code, out, _ = run("artifact", "agent://1-Json?q=.ok", "--session", str(session))
    assert (code, json.loads(out)) == (0, True)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["artifact://9"], "Error: Not found: 9. Available artifact ids: 0\n"),
        (["agent://5-X"], "Error: Not found: 5-X. Available: 0-Explorer, 1-Json\n"),
        (["artifact://../../etc/passwd"], "Error: Invalid artifact id '..'; artifact ids are numbers"),
        (["agent://..%2F..%2Fx"], "Error: Refused id '..%2F..%2Fx': encoded characters are not allowed"),
        (
            ["agent://1-Json/files", "--offset", "2"],
            "Error: offset/limit cannot be used with agent:// extraction",
        ),
        (["artifact://0", "--offset", "99"], "Error: Offset 99 is past the end of artifact://0 (5 lines)"),
        (["https://example.com"], "Error: Unsupported URL 'https://example.com'"),
    ],
)
def test_artifact_errors_are_one_line(session: Path, args: list[str], message: str) -> None:
    code, out, err = run("artifact", *args, "--session", str(session))
    assert (code, out) == (1, "")
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_artifact_without_directory(tmp_path: Path) -> None:
    code, _, err = run("artifact", "artifact://0", "--session", str(tmp_path / "none.jsonl"))
    assert (code, err) == (1, "Error: No artifacts directory found\n")


def test_artifact_needs_a_session(tmp_path: Path) -> None:
    code, _, err = run("artifact", "artifact://0")
    assert code == 1
    assert err.startswith("Error: No session given; pass --session SESSION.jsonl")


def test_history_add_and_search(tmp_path: Path, isolated_agent_dir: Path) -> None:
    assert run("history", "add", "fix the parser", "--cwd", "/proj")[0] == 0
    assert run("history", "add", "fix the parser", "--cwd", "/proj")[0] == 0  # repeat: skipped
    assert run("history", "add", "-", "--cwd", "/ops", input="deploy\tnow\nplease\n")[0] == 0
    assert run("history", "add", "c++ question", "--cwd", "/proj")[0] == 0
    with sqlite3.connect(isolated_agent_dir / "history.db") as conn:
        assert [r[0] for r in conn.execute("SELECT prompt FROM history ORDER BY id")] == [
            "fix the parser",
            "deploy\tnow\nplease",
            "c++ question",
        ]
    code, out, _ = run("history", "search", "parser")
    assert code == 0
    assert out.count("\n") == 1
    assert out.rstrip("\n").split("\t")[1:] == ["/proj", "fix the parser"]
    code, out, _ = run("history", "search", "deploy")
    assert out.rstrip("\n").split("\t")[1:] == ["/ops", "deploy\\tnow\\nplease"]
    assert run("history", "search", "c++")[1].endswith("\tc++ question\n")
    assert run("history", "search", "parser", "--cwd", "/ops")[1] == ""
    code, out, _ = run("history", "search", "", "--limit", "2", "--json")
    assert [e["prompt"] for e in json.loads(out)] == ["c++ question", "deploy\tnow\nplease"]
    assert set(json.loads(out)[0]) == {"id", "prompt", "created_at", "cwd"}


def test_history_add_defaults_cwd_to_the_current_directory(
    tmp_path: Path, isolated_agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    run("history", "add", "here")
    code, out, _ = run("history", "search", "here", "--json")
    assert code == 0
    assert json.loads(out)[0]["cwd"] == str(tmp_path)


def test_history_uses_the_agent_dir_option(tmp_path: Path) -> None:
    agent = tmp_path / "other-agent"
    assert run("--agent-dir", str(agent), "history", "add", "elsewhere")[0] == 0
    assert (agent / "history.db").is_file()
    assert "elsewhere" in run("--agent-dir", str(agent), "history", "search", "elsewhere")[1]
    assert run("history", "search", "elsewhere")[1] == ""


def test_history_search_shows_the_machines_time_with_its_offset(isolated_agent_dir: Path) -> None:
    assert run("history", "add", "zone question", "--cwd", "/proj")[0] == 0
    with sqlite3.connect(isolated_agent_dir / "history.db") as conn:
        conn.execute(
            "UPDATE history SET created_at = ?", (int(datetime(2026, 3, 1, 20, tzinfo=UTC).timestamp()),)
        )
    with machine_zone("Asia/Kolkata"):
        out = run("history", "search", "zone")[1]
    assert out == "2026-03-02 01:30:00+05:30\t/proj\tzone question\n"
    with machine_zone("UTC"):
        assert run("history", "search", "zone")[1].startswith("2026-03-01 20:00:00+00:00\t")


def test_history_search_escapes_control_characters(isolated_agent_dir: Path) -> None:
    run("history", "add", "evil \x1b]0;pwned\x07 prompt\x1b[2J", "--cwd", "/x")
    out = run("history", "search", "evil")[1]
    assert "\x1b" not in out and "\x07" not in out
    assert out.endswith("\tevil  prompt\n")


@pytest.mark.parametrize(
    ("args", "message"), [(["add", "   "], "Empty prompt"), (["search", "x", "--limit", "0"], "")]
)
def test_history_bad_input(args: list[str], message: str) -> None:
    code, _, err = run("history", *args)
    assert code != 0
    assert message in err
    assert "Traceback" not in err


def test_history_on_a_broken_database(isolated_agent_dir: Path) -> None:
    isolated_agent_dir.mkdir(parents=True)
    (isolated_agent_dir / "history.db").write_bytes(b"garbage" * 200)
    code, _, err = run("history", "search", "x")
    assert code == 1
    assert err.startswith("Error: ") and "move it away" in err


def test_history_add_from_two_real_cli_processes(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    script = """
import sys
from sessiontree.cli import main
for i in range(20):
    try:
        main(["--agent-dir", sys.argv[1], "history", "add", f"{sys.argv[2]} {i}"])
    except SystemExit as exc:
        assert not exc.code, exc.code
"""
    procs = [subprocess.Popen([sys.executable, "-c", script, str(agent), tag]) for tag in ("left", "right")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    code, out, _ = run("--agent-dir", str(agent), "history", "search", "", "--limit", "100", "--json")
    assert code == 0
    assert sorted(e["prompt"] for e in json.loads(out)) == sorted(
        f"{tag} {i}" for tag in ("left", "right") for i in range(20)
    )


def test_session_given_by_id_prefix(isolated_agent_dir: Path, tmp_path: Path) -> None:
    folder = isolated_agent_dir / "sessions" / "--elsewhere-proj--"
    folder.mkdir(parents=True)
    session = folder / "2026-01-01T00-00-00-000Z_7f3e9a10-aaaa.jsonl"
    header = {"type": "session", "version": 3, "id": "7f3e9a10-aaaa", "timestamp": "2026-01-01T00:00:00.000Z"}
    session.write_text(json.dumps({**header, "cwd": "/elsewhere/proj"}) + "\n")
    ArtifactManager.for_session(session).save("bash", "found by id\n")
    before = sorted(p.name for p in folder.iterdir())
    assert run("artifact", "artifact://0", "--session", "7f3e9a") == (0, "found by id\n", "")
    assert sorted(p.name for p in folder.iterdir()) == before  # no fork, nothing written
    code, _, err = run("artifact", "artifact://0", "--session", "ffff0000")
    assert code == 1
    assert err.startswith("Error: No session id starts with 'ffff0000'")


def test_history_search_creates_nothing(isolated_agent_dir: Path) -> None:
    assert run("history", "search", "anything") == (0, "", "")
    assert not isolated_agent_dir.exists()
    run("history", "add", "one")
    db = isolated_agent_dir / "history.db"
    before = {p.name: p.read_bytes() for p in isolated_agent_dir.iterdir()}
    assert run("history", "search", "one")[1].endswith("\tone\n")
    assert {p.name: p.read_bytes() for p in isolated_agent_dir.iterdir()} == before
    assert db.is_file()


def test_relative_cwd_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path)
    run("history", "add", "relative cwd prompt", "--cwd", "proj")
    monkeypatch.chdir(tmp_path / "proj")
    code, out, _ = run("history", "search", "relative", "--cwd", ".", "--json")
    assert code == 0
    assert [e["cwd"] for e in json.loads(out)] == [str(tmp_path / "proj")]
