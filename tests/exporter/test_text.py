"""Session -> text (dump): every message kind, section by section, against snapshots and exact strings."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from sessiontree.errors import EntryNotFound
from sessiontree.exporter.text import (
    bash_execution_to_text,
    format_args_as_xml,
    format_session_as_text,
    python_execution_to_text,
)
from sessiontree.store import load_session
from tests.exporter.conftest import HTMLSnapshotExtension
from tests.exporter.entries import PNG_1X1

TS = "2026-02-16T10:21:00.000Z"

READ_TOOL = {
    "name": "read",
    "description": "Read a file from disk.",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "File to read"}},
        "required": ["path"],
        "TypeBox.Kind": "Object",
    },
}
BASH_TOOL = {
    "name": "bash",
    "description": "Run a shell command.",
    "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
}


def _entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": TS, **fields}


def _message(entry_id: str, parent: str | None, **message: Any) -> dict[str, Any]:
    return _entry("message", entry_id, parent, message=message)


def every_kind_entries() -> list[dict[str, Any]]:
    """A v3 session holding every message kind, an abandoned branch and a compaction that keeps all."""
    image = {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}
    return [
        {"type": "session", "version": 3, "id": "sess-every-kind", "timestamp": TS, "cwd": "/home/dev/demo"},
        _entry(
            "session_init",
            "init",
            None,
            systemPrompt="You are a careful coding agent.\nFollow the user's instructions.",
            task="Fix the parser",
            tools=[READ_TOOL, BASH_TOOL],
        ),
        _entry("model_change", "model", "init", model="anthropic/claude-sonnet-4-5", role="default"),
        _entry("thinking_level_change", "think", "model", thinkingLevel="high"),
        _message(
            "u1",
            "think",
            role="user",
            content=[{"type": "text", "text": "Why does parse() fail? See the screenshot."}, image],
            timestamp=1,
        ),
        # An abandoned branch from u1: only --leaf alt1 shows it.
        _message("alt1", "u1", role="assistant", content=[{"type": "text", "text": "ALT BRANCH ANSWER"}]),
        _message(
            "a1",
            "u1",
            role="assistant",
            content=[
                {"type": "thinking", "thinking": "The parser may choke on empty lines."},
                {"type": "thinking", "thinking": "   "},
                {"type": "text", "text": "Let me look at the parser."},
                {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "src/parse.py"}},
                {
                    "type": "toolCall",
                    "id": "call_2",
                    "name": "bash",
                    "arguments": {"command": "pytest -q", "timeout": 30, "env": {"CI": "1"}},
                },
            ],
            provider="anthropic",
            model="claude-sonnet-4-5",
            stopReason="toolUse",
        ),
        _message(
            "r1",
            "a1",
            role="toolResult",
            toolCallId="call_1",
            toolName="read",
            content=[{"type": "text", "text": "ENOENT: src/parse.py"}, image],
            isError=True,
        ),
        _message(
            "r2",
            "r1",
            role="toolResult",
            toolCallId="call_2",
            toolName="bash",
            content=[{"type": "text", "text": "1 failed, 3 passed"}],
            isError=False,
        ),
        _message(
            "b1", "r2", role="bashExecution", command="git status --short", output=" M src/parse.py",
            exitCode=0, cancelled=False, truncated=False,
        ),
        _message(
            "b2", "b1", role="bashExecution", command="cat ~/.secret", output="HIDDEN FROM CONTEXT",
            exitCode=0, cancelled=False, truncated=False, excludeFromContext=True,
        ),
        _message(
            "b3", "b2", role="bashExecution", command="sleep 100", output="",
            exitCode=None, cancelled=True, truncated=False,
        ),
        _message(
            "b4", "b3", role="bashExecution", command="make test", output="error: 2 tests failed",
            exitCode=2, cancelled=False, truncated=True, fullOutputPath="/tmp/make-test.log",
        ),
        _message(
            "p1", "b4", role="pythonExecution", code="print(1 + 1)", output="2",
            exitCode=0, cancelled=False, truncated=False,
        ),
        _entry(
            "custom_message", "cm1", "p1", customType="lint-hook",
            content=[{"type": "text", "text": "Lint: 2 warnings"}, image], display=True, details={"n": 2},
        ),
        _entry("custom", "ext1", "cm1", customType="my-extension", data={"state": "NOT IN CONTEXT"}),
        _entry("branch_summary", "bs1", "ext1", fromId="alt1", summary="Tried answering without reading."),
        _message(
            "fm1", "bs1", role="fileMention",
            files=[
                {"path": "src/parse.py", "content": "def parse(text):\n    return text.split()"},
                {"path": "docs/diagram.png", "image": image},
            ],
        ),
        _message("d1", "fm1", role="developer", content="Keep answers short."),
        _entry("label", "lab1", "d1", targetId="u1", label="question"),
        _entry(
            "compaction", "c1", "lab1", summary="The user asked about parse(); tests fail.",
            firstKeptEntryId="u1", tokensBefore=42000,
        ),
        _message("u2", "c1", role="user", content="Thanks, go on (café ✓)."),
        _message(
            "a2", "u2", role="assistant",
            content=[{"type": "text", "text": "Fixed: empty lines are skipped."}],
            provider="anthropic", model="claude-sonnet-4-5", stopReason="stop",
        ),
    ]  # fmt: skip


def write_session(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def every_kind(tmp_path: Path) -> Path:
    return write_session(tmp_path / "every-kind.jsonl", every_kind_entries())


class TextSnapshotExtension(HTMLSnapshotExtension):
    """Store each snapshot as a reviewable ``.txt`` file."""

    file_extension = "txt"


@pytest.fixture
def text_snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    return snapshot.use_extension(TextSnapshotExtension)


SECTION_START = re.compile(r"^(?=## |### Tool Result: )", re.M)


def split_sections(text: str) -> list[str]:
    """Split dump text at each top-level heading and tool result (the ``### System Prompt N`` stay in)."""
    return [part for part in SECTION_START.split(text) if part]


def test_every_section_matches_its_snapshot(every_kind: Path, text_snapshot: SnapshotAssertion) -> None:
    text = format_session_as_text(load_session(every_kind))
    sections = split_sections(text)
    titles = [s.splitlines()[0] for s in sections]
    assert titles == [
        "## System Prompt",
        "## Configuration",
        "## Available Tools",
        "## Compaction Summary",
        "## User",
        "## Assistant",
        "### Tool Result: read",
        "### Tool Result: bash",
        "## Bash Execution",
        "## Bash Execution",
        "## Bash Execution",
        "## Python Execution",
        "## lint-hook",
        "## Branch Summary",
        "## File Mention",
        "## Developer",
        "## User",
        "## Assistant",
    ]
    for index, section in enumerate(sections):
        slug = re.sub(r"[^a-z0-9]+", "-", titles[index].lower()).strip("-")
        assert section == text_snapshot(name=f"{index:02d}-{slug}")
    assert text == text_snapshot(name="whole")


def test_sections_hold_the_reference_strings(every_kind: Path) -> None:
    text = format_session_as_text(load_session(every_kind))
    assert text.startswith(
        "## System Prompt\n\nYou are a careful coding agent.\nFollow the user's instructions.\n\n\n"
        "## Configuration\n\nModel: anthropic/claude-sonnet-4-5\nThinking Level: high\n\n\n"
        '## Available Tools\n\n<tool name="read">\nRead a file from disk.\n\nParameters:\n'
        '\t<parameter name="type">object</parameter>\n'
        '\t<parameter name="properties">{"path":{"type":"string","description":"File to read"}}</parameter>\n'
        '\t<parameter name="required">["path"]</parameter>\n</tool>\n\n'
    )
    assert "TypeBox" not in text
    assert "## User\n\nWhy does parse() fail? See the screenshot.\n[Image]\n\n\n" in text
    assert (
        "## Assistant\n\n<thinking>\nThe parser may choke on empty lines.\n</thinking>\n\n"
        "Let me look at the parser.\n"
        '<invoke name="read">\n\t<parameter name="path">src/parse.py</parameter>\n</invoke>\n\n'
        '<invoke name="bash">\n\t<parameter name="command">pytest -q</parameter>\n'
        '\t<parameter name="timeout">30</parameter>\n\t<parameter name="env">{"CI":"1"}</parameter>\n'
        "</invoke>\n\n\n"
    ) in text
    assert text.count("<thinking>") == 1  # the blank thinking block is skipped
    assert "### Tool Result: read\n(error)\n```\nENOENT: src/parse.py\n```\n[Image output]\n\n" in text
    assert "## Bash Execution\n\nRan `git status --short`\n```\n M src/parse.py\n```\n\n\n" in text
    assert "## Bash Execution\n\nRan `sleep 100`\n(no output)\n\n(command cancelled)\n\n\n" in text
    assert "Command exited with code 2\n\n[Output truncated. Full output: /tmp/make-test.log]" in text
    assert "HIDDEN FROM CONTEXT" not in text and "cat ~/.secret" not in text
    assert "## lint-hook\n\nLint: 2 warnings\n[Image]\n\n\n" in text
    assert "NOT IN CONTEXT" not in text  # `custom` entries are extension state, not context
    assert "## Branch Summary\n\n(from branch: alt1)\n\nTried answering without reading.\n\n\n" in text
    assert (
        '## File Mention\n\n<file path="src/parse.py">\n'
        "def parse(text):\n    return text.split()\n</file>\n\n"
        '<file path="docs/diagram.png">\n[Image attached]\n</file>\n\n\n'
    ) in text
    assert "## Developer\n\nKeep answers short.\n\n\n" in text
    assert "## Compaction Summary\n\n(42000 tokens before compaction)\n\nThe user asked about parse()" in text
    assert "ALT BRANCH ANSWER" not in text
    assert text.endswith("## Assistant\n\nFixed: empty lines are skipped.")


def test_execution_texts_match_the_reference() -> None:
    assert (
        bash_execution_to_text({"command": "ls", "output": "a\nb", "exitCode": 0})
        == "Ran `ls`\n```\na\nb\n```"
    )
    assert bash_execution_to_text({"command": "false", "output": "", "exitCode": 1}) == (
        "Ran `false`\n(no output)\n\nCommand exited with code 1"
    )
    # cancelled wins over the exit code; truncation needs the full output path
    assert bash_execution_to_text(
        {"command": "x", "output": "o", "exitCode": 9, "cancelled": True, "truncated": True}
    ) == ("Ran `x`\n```\no\n```\n\n(command cancelled)")
    assert python_execution_to_text({"code": "1/0", "output": "ZeroDivisionError", "exitCode": 1}) == (
        "Ran Python:\n```python\n1/0\n```\n"
        "Output:\n```\nZeroDivisionError\n```\n\nExecution failed with code 1"
    )
    assert python_execution_to_text({"code": "pass", "output": "", "cancelled": True}) == (
        "Ran Python:\n```python\npass\n```\n(no output)\n\n(execution cancelled)"
    )


def test_arguments_are_one_parameter_each_and_names_are_escaped() -> None:
    args = {"path": "a.py", "n": 2, "flag": True, "none": None, "list": [1, "x"], 'q"uote': "<b>"}
    assert format_args_as_xml(args) == (
        '\t<parameter name="path">a.py</parameter>\n'
        '\t<parameter name="n">2</parameter>\n'
        '\t<parameter name="flag">true</parameter>\n'
        '\t<parameter name="none">null</parameter>\n'
        '\t<parameter name="list">[1,"x"]</parameter>\n'
        '\t<parameter name="q&quot;uote"><b></parameter>'
    )


def test_leaf_picks_another_branch(every_kind: Path) -> None:
    session = load_session(every_kind)
    text = format_session_as_text(session, leaf_id="alt1")
    assert "## Assistant\n\nALT BRANCH ANSWER" in text
    assert "Why does parse() fail?" in text
    assert "Let me look at the parser." not in text
    assert "## Compaction Summary" not in text
    with pytest.raises(EntryNotFound, match="Entry not found: nope"):
        format_session_as_text(session, leaf_id="nope")


def test_arguments_override_the_session_init(every_kind: Path) -> None:
    tools = [{"name": "grep", "description": "Search", "parameters": {"type": "object"}}, "ls"]
    text = format_session_as_text(load_session(every_kind), "Be brief.", tools)
    assert text.startswith("## System Prompt\n\nBe brief.\n\n\n## Configuration")
    assert (
        '## Available Tools\n\n<tool name="grep">\nSearch\n\nParameters:\n'
        '\t<parameter name="type">object</parameter>\n</tool>\n\n<tool name="ls">\n</tool>\n\n\n\n## '
    ) in text
    assert "careful coding agent" not in text and '<tool name="read">' not in text


def test_no_tools_filter_drops_calls_results_and_executions(every_kind: Path) -> None:
    text = format_session_as_text(load_session(every_kind), filter="no-tools")
    for gone in ("<invoke", "### Tool Result", "## Bash Execution", "## Python Execution", "## Available"):
        assert gone not in text
    assert "## Assistant\n\n<thinking>\nThe parser may choke on empty lines.\n</thinking>\n\n" in text
    assert "Let me look at the parser.\n\n## " in text
    assert "## lint-hook" in text and "## File Mention" in text and "## Developer" in text


def test_user_only_filter_keeps_only_user_messages(every_kind: Path) -> None:
    text = format_session_as_text(load_session(every_kind), filter="user-only")
    headings = re.findall(r"^##+ .*$", text, re.M)
    assert headings == ["## System Prompt", "## Configuration", "## User", "## User"]
    assert text.endswith("## User\n\nThanks, go on (café ✓).")


def test_no_messages_gives_empty_text(tmp_path: Path) -> None:
    lines = every_kind_entries()[:4]  # header, session_init, model and thinking changes
    assert format_session_as_text(load_session(write_session(tmp_path / "s.jsonl", lines))) == ""
    only_assistant = [
        *lines,
        _message("a", "think", role="assistant", content=[{"type": "text", "text": "x"}]),
    ]
    session = load_session(write_session(tmp_path / "t.jsonl", only_assistant))
    assert format_session_as_text(session, filter="user-only") == ""
    assert format_session_as_text(session).endswith("## Assistant\n\nx")


def test_model_not_selected_and_odd_values_do_not_break(tmp_path: Path) -> None:
    lines = [
        {"type": "session", "version": 3, "id": "odd", "timestamp": TS},
        _message("u", None, role="user", content=[{"type": "text", "text": "bad \ud800 surrogate"}, "junk"]),
        _message("a", "u", role="assistant", content=None),
        _message("t", "a", role="toolResult", toolName=None, content="plain string result"),
        _message("x", "t", role="mystery", content="unknown roles are skipped"),
    ]
    text = format_session_as_text(load_session(write_session(tmp_path / "odd.jsonl", lines)))
    assert "## Configuration\n\nModel: (not selected)\nThinking Level: off\n\n\n" in text
    assert "bad \ufffd surrogate" in text
    assert "### Tool Result: \n```\nplain string result\n```" in text
    assert "unknown roles" not in text
    text.encode("utf-8")  # no lone surrogate left


def test_real_v1_fixture_dumps_every_user_message(real_v1: Path) -> None:
    before = real_v1.read_bytes()
    text = format_session_as_text(load_session(real_v1))
    users = []
    for line in before.decode("utf-8").splitlines():
        entry = json.loads(line)
        message = entry.get("message") or {}
        if entry.get("type") == "message" and message.get("role") == "user":
            content = message["content"]
            parts = (
                [content] if isinstance(content, str) else [b["text"] for b in content if b["type"] == "text"]
            )
            users.append("\n".join(parts))
    assert len(users) > 10
    assert text.count("\n## User\n") == len(users)
    position = 0
    for user_text in users:  # each in order, right under its heading
        position = text.index(f"## User\n\n{user_text}\n", position) + 1
    assert "Model: anthropic/claude-sonnet-4-5" in text
    assert real_v1.read_bytes() == before


def test_compacted_session_puts_the_summary_first_and_the_kept_entries_after(gen_session: Any) -> None:
    path = gen_session(30)
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    session = load_session(path)
    compaction = next(e for e in session.path_entries() if e["type"] == "compaction")
    text = format_session_as_text(session)
    start = text.index("## Compaction Summary")
    assert text[start:].startswith(
        f"## Compaction Summary\n\n(42000 tokens before compaction)\n\n{compaction['summary']}\n\n\n"
    )
    assert not re.search(r"^(## User|## Assistant|### Tool Result)", text[:start], re.M)

    path_ids = [e["id"] for e in session.path_entries()]
    kept_from = path_ids.index(compaction["firstKeptEntryId"])
    cut = path_ids.index(compaction["id"])
    by_id = {e.get("id"): e for e in entries}

    def user_texts(ids: list[str]) -> list[str]:
        out = []
        for entry_id in ids:
            message = by_id[entry_id].get("message") or {}
            if message.get("role") == "user":
                out.append(next(b["text"] for b in message["content"] if b["type"] == "text"))
        return out

    dropped, kept, after = (
        user_texts(path_ids[:kept_from]),
        user_texts(path_ids[kept_from:cut]),
        user_texts(path_ids[cut + 1 :]),
    )
    assert dropped and after
    for user_text in dropped:
        assert f"## User\n\n{user_text}\n" not in text
    position = len("## Compaction Summary")
    for user_text in kept + after:
        position = text.index(f"## User\n\n{user_text}\n", position) + 1
