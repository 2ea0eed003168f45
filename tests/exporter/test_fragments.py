"""HTML snapshots of the fragment of each message kind and each tool renderer."""

from __future__ import annotations

from typing import Any

import pytest
from syrupy.assertion import SnapshotAssertion

from sessiontree.exporter.blocks import PREVIEW_LINES
from sessiontree.exporter.render import RenderContext, render_appended_entry, render_entry
from tests.exporter.entries import PNG_1X1, TS, assistant_call, msg, tool_result

MESSAGE_KINDS: dict[str, dict[str, Any]] = {
    "user_text": msg(
        "u1", {"role": "user", "content": "Fix the **parser** please.\n\n```python\nx = 1\n```"}
    ),
    "user_text_and_image": msg(
        "u2",
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is in this screenshot?"},
                {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
            ],
        },
    ),
    "user_image_bad_mime": msg(
        "u3", {"role": "user", "content": [{"type": "image", "data": PNG_1X1, "mimeType": "image/svg+xml"}]}
    ),
    "assistant_text_thinking_usage": msg(
        "a1",
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Let me *think* about it."},
                {
                    "type": "text",
                    "text": "Done:\n\n- [x] parser\n- [ ] docs\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |",
                },
            ],
            "stopReason": "stop",
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "usage": {
                "input": 10,
                "output": 20,
                "cacheRead": 300,
                "cacheWrite": 4,
                "cost": {"total": 0.0123},
            },
        },
    ),
    "assistant_aborted": msg(
        "a2", {"role": "assistant", "content": [{"type": "text", "text": "Start"}], "stopReason": "aborted"}
    ),
    "assistant_error": msg(
        "a3",
        {"role": "assistant", "content": [], "stopReason": "error", "errorMessage": "429 rate limited"},
    ),
    "bash_execution": msg(
        "b1",
        {
            "role": "bashExecution",
            "command": "ls --color",
            "output": "\x1b[1;34msrc\x1b[0m\nREADME.md",
            "exitCode": 0,
            "cancelled": False,
            "truncated": True,
            "fullOutputPath": "artifact://17",
        },
    ),
    "bash_execution_cancelled": msg(
        "b2",
        {"role": "bashExecution", "command": "sleep 100", "output": "", "exitCode": 130, "cancelled": True},
    ),
    "python_execution": msg(
        "p1", {"role": "pythonExecution", "code": "print(1 + 1)", "output": "2\n", "exitCode": 0}
    ),
    "compaction": {
        "type": "compaction",
        "id": "c1",
        "parentId": None,
        "timestamp": TS,
        "summary": "## Goal\n\nShip the *exporter*.",
        "firstKeptEntryId": "u1",
        "tokensBefore": 42000,
    },
    "branch_summary": {
        "type": "branch_summary",
        "id": "bs1",
        "parentId": None,
        "timestamp": TS,
        "fromId": "x",
        "summary": "Tried `foo`; it failed.",
    },
    "custom_message_shown": {
        "type": "custom_message",
        "id": "cm1",
        "parentId": None,
        "timestamp": TS,
        "customType": "lint-hook",
        "content": "Lint: **2** warnings",
        "display": True,
    },
    "custom_message_hidden": {
        "type": "custom_message",
        "id": "cm2",
        "parentId": None,
        "timestamp": TS,
        "customType": "state",
        "content": "hidden",
        "display": False,
    },
    "model_change": {
        "type": "model_change",
        "id": "m1",
        "parentId": None,
        "timestamp": TS,
        "model": "openai/gpt-5",
    },
    "thinking_level_change": {
        "type": "thinking_level_change",
        "id": "t1",
        "parentId": None,
        "timestamp": TS,
        "thinkingLevel": "high",
    },
    "mode_change": {"type": "mode_change", "id": "mo1", "parentId": None, "timestamp": TS, "mode": "plan"},
    "label": {
        "type": "label",
        "id": "l1",
        "parentId": None,
        "timestamp": TS,
        "targetId": "u1",
        "label": "v1",
    },
    "session_init": {
        "type": "session_init",
        "id": "s1",
        "parentId": None,
        "timestamp": TS,
        "systemPrompt": "You are a coding agent.",
        "task": "Rename things.",
        "tools": ["read", "bash"],
    },
    "ttsr_injection": {
        "type": "ttsr_injection",
        "id": "r1",
        "parentId": None,
        "timestamp": TS,
        "injectedRules": ["a"],
    },
    "custom": {
        "type": "custom",
        "id": "cu1",
        "parentId": None,
        "timestamp": TS,
        "customType": "ext",
        "data": {"n": 1},
    },
    "unknown_kind": {
        "type": "future_thing",
        "id": "f1",
        "parentId": None,
        "timestamp": TS,
        "payload": "<b>x</b>",
    },
}


@pytest.mark.parametrize("kind", list(MESSAGE_KINDS))
def test_message_kind_fragment(kind: str, html_snapshot: SnapshotAssertion) -> None:
    ctx = RenderContext(labels={"u1": "checkpoint"})
    meta, html = render_entry(MESSAGE_KINDS[kind], ctx)
    assert html.startswith(f'<article class="st-entry st-{meta["cat"]}" data-id="{meta["id"]}">')
    assert html == html_snapshot


LONG_OUTPUT = "\n".join(f"line {i}" for i in range(45))

TOOL_CASES: dict[str, tuple[str, Any, str, dict[str, Any]]] = {
    "bash": ("bash", {"command": "pytest -q"}, "\x1b[32m3 passed\x1b[0m in 0.1s", {}),
    "bash_long_output": ("bash", {"command": "seq 45"}, LONG_OUTPUT, {}),
    "bash_error": ("bash", {"command": "false"}, "exit code 1", {"is_error": True}),
    "bash_truncated_artifact": (
        "bash",
        {"command": "make"},
        "last lines",
        {"details": {"truncation": {"totalLines": 9000}, "artifactId": 17}},
    ),
    "read_range": ("read", {"path": "src/app.py", "offset": 10, "limit": 3}, "def f():\n    return 1\n", {}),
    "write": ("write", {"path": "a.ts", "content": "const a = 1;\nexport {a};\n"}, "Wrote 2 lines", {}),
    "edit_details_diff": (
        "edit",
        {"path": "a.py", "oldText": "a = 1", "newText": "a = 2"},
        "Replaced",
        {"details": {"diff": "@@ -1 +1 @@\n-a = 1\n+a = 2"}},
    ),
    "edit_computed_diff": ("edit", {"path": "a.py", "oldText": "x\ny", "newText": "x\nz"}, "Replaced", {}),
    "grep": ("grep", {"pattern": "TODO", "path": "src"}, "src/a.py:3: # TODO", {}),
    "find": ("find", {"pattern": "*.py"}, "a.py\nb.py", {}),
    "ls": ("ls", {"path": "."}, "src/\nREADME.md", {}),
    "todo": (
        "todo_write",
        {
            "todos": [
                {"content": "Write tests", "status": "completed"},
                {"content": "Ship", "status": "pending"},
            ]
        },
        "ok",
        {},
    ),
    "subagent_task": (
        "task",
        {"subagent_type": "explore", "description": "find uses", "prompt": "Find **all** uses of `x`."},
        "Found 3 uses.",
        {},
    ),
    "subagent_tasks_list": (
        "task",
        {
            "agent": "worker",
            "tasks": [{"id": "a", "description": "one", "task": "Do *one*"}],
            "context": "ctx",
        },
        "done",
        {},
    ),
    "python_cells_list": ("python", {"cells": [{"code": "x = 1"}, {"code": "print(x)"}]}, "1", {}),
    "python_cell": ("python", {"code": "import math\nprint(math.pi)"}, "3.14159", {}),
    "js_cell": ("js", {"code": "console.log(1)"}, "1", {}),
    "unknown_tool_json": ("web_fetch", {"url": "https://example.com", "n": [1, 2]}, "<html>", {}),
}


@pytest.mark.parametrize("case", list(TOOL_CASES))
def test_tool_renderer_fragments(case: str, html_snapshot: SnapshotAssertion) -> None:
    name, args, output, extra = TOOL_CASES[case]
    call = assistant_call(f"a-{case}", f"call-{case}", name, args)
    result = tool_result(case, f"call-{case}", name, output, **extra)
    ctx = RenderContext.for_entries([call], {})
    call_meta, call_html = render_entry(call, ctx)
    result_meta, result_html = render_entry(result, ctx)
    assert call_meta["calls"] == [f"call-{case}"]
    assert result_meta["result"] == f"call-{case}"
    assert f'<div class="st-call" data-call-id="call-{case}"' in call_html
    assert '<div class="st-call-result"></div>' in call_html
    assert f'<div class="st-result" data-call-id="call-{case}"' in result_html
    assert call_html + "\n" + result_html == html_snapshot


def test_result_uses_call_name_and_args_not_its_own_tool_name() -> None:
    call = assistant_call("a1", "c1", "read", {"path": "x.py"})
    result = tool_result("r1", "c1", "something-else", "def f(): pass")
    ctx = RenderContext.for_entries([call], {})
    _, html = render_entry(result, ctx)
    assert 'data-tool="read"' in html
    assert '<span class="k">def</span>' in html


def test_result_without_its_call_renders_standalone_by_its_tool_name() -> None:
    ctx = RenderContext()
    meta, html = render_entry(tool_result("r1", "gone", "bash", "out", is_error=True), ctx)
    assert meta["error"] is True
    assert 'data-tool="bash"' in html
    assert 'data-status="error"' in html


def test_long_output_has_preview_hidden_rest_and_button() -> None:
    ctx = RenderContext.for_entries([assistant_call("a", "c", "bash", {"command": "x"})], {})
    _, html = render_entry(tool_result("r", "c", "bash", LONG_OUTPUT), ctx)
    more = 45 - PREVIEW_LINES
    assert f'data-more="{more}"' in html
    # the rest sits hidden in the same <pre>, after the preview's last line: expanded, one block
    assert f'line {PREVIEW_LINES - 1}<span class="st-rest" hidden>\nline {PREVIEW_LINES}\n' in html
    assert '<button class="st-more" type="button">Show all 45 lines</button>' in html


def test_live_appends_render_one_entry_at_a_time_with_new_images_once() -> None:
    ctx = RenderContext()
    user = msg(
        "u1", {"role": "user", "content": [{"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]}
    )
    meta, html, images = render_appended_entry(user, ctx)
    assert meta["cat"] == "user" and len(images) == 1
    sha = next(iter(images))
    assert f'data-img="{sha}"' in html
    again = msg(
        "u2", {"role": "user", "content": [{"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]}
    )
    assert render_appended_entry(again, ctx)[2] == {}
    render_appended_entry(assistant_call("a1", "c1", "read", {"path": "x.py"}), ctx)
    _, html, _ = render_appended_entry(tool_result("r1", "c1", "ignored", "def f(): pass"), ctx)
    assert 'data-tool="read"' in html
    label = {
        "type": "label",
        "id": "l1",
        "parentId": "r1",
        "timestamp": TS,
        "targetId": "u1",
        "label": "here",
    }
    render_appended_entry(label, ctx)
    assert render_entry(user, ctx)[0]["label"] == "here"
