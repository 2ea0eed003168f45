"""The dump command: --stdout, filters, --leaf, overrides, and one-line errors (copying: tests/exporter)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter.text import format_session_as_text
from sessiontree.store import load_session
from tests.conftest import GenSession
from tests.exporter.test_clipboard import read_until_closed
from tests.exporter.test_text import every_kind_entries, write_session


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def every_kind(tmp_path: Path) -> Path:
    return write_session(tmp_path / "every-kind.jsonl", every_kind_entries())


def test_stdout_prints_the_text(every_kind: Path) -> None:
    before = every_kind.read_bytes()
    code, stdout, stderr = run("dump", str(every_kind), "--stdout")
    assert code == 0 and stderr == ""
    assert stdout == format_session_as_text(load_session(every_kind)) + "\n"
    assert stdout.startswith("## System Prompt\n\nYou are a careful coding agent.")
    assert every_kind.read_bytes() == before  # read path: the file is untouched


@pytest.mark.parametrize(
    ("flag", "kept", "gone"),
    [
        ("--no-tools", "Let me look at the parser.", "<invoke"),
        ("--user-only", "## User\n\nWhy does parse() fail?", "## Assistant"),
    ],
)
def test_filters(every_kind: Path, flag: str, kept: str, gone: str) -> None:
    code, stdout, _ = run("dump", str(every_kind), "--stdout", flag)
    assert code == 0
    assert kept in stdout and gone not in stdout
    code, default, _ = run("dump", str(every_kind), "--stdout")
    assert gone in default


def test_leaf_option(every_kind: Path) -> None:
    code, stdout, _ = run("dump", str(every_kind), "--stdout", "--leaf", "alt1")
    assert code == 0
    assert stdout.endswith("## Assistant\n\nALT BRANCH ANSWER\n")
    code, _, stderr = run("dump", str(every_kind), "--stdout", "--leaf", "nope")
    assert code == 1
    assert stderr == "Error: Entry not found: nope; pass an entry id of this session to --leaf\n"


def test_system_prompt_and_tools_files(every_kind: Path, tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Answer in French.", encoding="utf-8")
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "web", "description": "Fetch a URL", "parameters": {}}]))
    code, stdout, _ = run(
        "dump", str(every_kind), "--stdout", "--system-prompt", str(prompt), "--tools", str(tools)
    )
    assert code == 0
    assert stdout.startswith("## System Prompt\n\nAnswer in French.\n\n\n## Configuration")
    assert '## Available Tools\n\n<tool name="web">\nFetch a URL\n\nParameters:\n\n</tool>' in stdout
    assert '<tool name="read">' not in stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('[{"nameless": 1}]', "No tools found in"),
    ],
)
def test_bad_tools_file_is_one_line(every_kind: Path, tmp_path: Path, content: str, message: str) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(content, encoding="utf-8")
    code, stdout, stderr = run("dump", str(every_kind), "--stdout", "--tools", str(tools))
    assert code == 1 and stdout == ""
    assert stderr.startswith("Error: ") and message in stderr and stderr.count("\n") == 1


def test_missing_files(tmp_path: Path, every_kind: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    assert run("dump", str(missing)) == (1, "", f"Error: File not found: {missing}\n")
    code, _, stderr = run("dump", str(every_kind), "--system-prompt", str(tmp_path / "p.md"))
    assert (code, stderr) == (1, f"Error: File not found: {tmp_path / 'p.md'}\n")


def test_empty_session_has_no_messages_to_dump(tmp_path: Path) -> None:
    header_only = write_session(tmp_path / "empty.jsonl", every_kind_entries()[:1])
    assert run("dump", str(header_only)) == (1, "", "Error: No messages to dump yet\n")
    assert run("dump", str(header_only), "--stdout") == (1, "", "Error: No messages to dump yet\n")


def test_not_a_session_and_conflicting_flags(tmp_path: Path, every_kind: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n", encoding="utf-8")
    code, _, stderr = run("dump", str(junk))
    assert code == 1 and stderr.startswith("Error: Not a session file:")
    code, _, stderr = run("dump", str(every_kind), "--no-tools", "--user-only")
    assert code == 1 and "pick one" in stderr


def test_generated_session_with_branches(gen_session: GenSession) -> None:
    path = gen_session(60)
    code, stdout, _ = run("dump", str(path), "--stdout")
    assert code == 0
    session = load_session(path)
    assert stdout == format_session_as_text(session) + "\n"
    # the abandoned branches' summaries are in the context of the main line
    assert "## Branch Summary\n\n(from branch: " in stdout
    assert stdout.count("## Compaction Summary") == 1


def test_stdout_on_a_terminal_drops_escape_sequences(tmp_path: Path) -> None:
    hostile = "look \x1b]52;c;RVZJTA==\x07 and \x1b[2J here"
    lines = every_kind_entries()[:4]
    lines.append(
        {"type": "message", "id": "h", "parentId": "think", "message": {"role": "user", "content": hostile}}
    )
    path = write_session(tmp_path / "hostile.jsonl", lines)
    command = [sys.executable, "-m", "sessiontree", "dump", str(path), "--stdout"]

    piped = subprocess.run(command, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    assert piped.returncode == 0
    assert hostile.encode() in piped.stdout  # a pipe gets the text verbatim

    master, slave = os.openpty()
    try:
        proc = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
        os.close(slave)
        received = read_until_closed(master, proc)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(master)
    assert b"\x1b" not in received
    assert b"look  and  here" in received  # whole sequences dropped, the text kept
