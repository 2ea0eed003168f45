"""The tool-renderer registry: one class per tool family, each showing its call and its result."""

from __future__ import annotations

import re
from typing import Any

import pytest

from sessiontree.exporter.images import ImageRegistry
from sessiontree.exporter.tools import (
    RENDERERS,
    BashRenderer,
    CellRenderer,
    EditRenderer,
    ReadRenderer,
    SearchRenderer,
    TaskRenderer,
    TodoRenderer,
    ToolRenderer,
    WriteRenderer,
    render_call,
    render_result,
    renderer_for,
)


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def result(name: str, args: Any, text: str = "", details: Any = None, is_error: bool = False) -> str:
    message = {"content": [{"type": "text", "text": text}] if text else [], "isError": is_error}
    if details is not None:
        message["details"] = details
    return str(render_result("c1", name, args, message, ImageRegistry()))


def test_every_name_has_one_family_found_case_insensitively() -> None:
    names = [name for r in RENDERERS for name in r.names]
    assert len(names) == len(set(names))
    for r in RENDERERS:
        for name in r.names:
            assert renderer_for(name) is r
            assert renderer_for(name.upper()) is r
    assert type(renderer_for("some_new_tool")) is ToolRenderer


def test_bash() -> None:
    head, body = BashRenderer().call("bash", {"command": "ls -la\necho hi"})
    assert text_of(head) == "ls -la" and "$ ls -la" in text_of(body)
    out = result("bash", {"command": "ls"}, "\x1b[31mred\x1b[0m")
    assert 'class="ansi-fg-1"' in out and "red" in text_of(out) and "\x1b" not in out


def test_read() -> None:
    head, body = ReadRenderer().call("read", {"path": "src/a.py", "offset": 10, "limit": 5})
    assert text_of(head) == "src/a.py :10-14" and body == ""
    out = result("read", {"path": "a.py"}, "def f():\n    return 1\n")
    assert 'class="st-output st-code' in out and "<span" in out  # highlighted by the path's lexer
    assert "def f():" in text_of(out)


def test_write() -> None:
    head, body = WriteRenderer().call("write", {"path": "a.py", "content": "x = 1\ny = 2"})
    assert text_of(head) == "a.py (2 lines)"
    assert 'class="st-output st-code' in body and "x = 1" in text_of(body)
    assert text_of(result("write", {"path": "a.py"}, "Wrote 2 lines")).strip() == "Wrote 2 lines"


def test_edit_shows_the_diff_of_its_arguments_or_details() -> None:
    head, body = EditRenderer().call("edit", {"path": "a.py"})
    assert text_of(head) == "a.py" and body == ""
    out = result("edit", {"path": "a.py", "oldText": "a = 1\n", "newText": "a = 2\n"}, "ok")
    assert "-a = 1" in text_of(out) and "+a = 2" in text_of(out) and "ok" not in text_of(out)
    given = result("edit", {}, "", details={"diff": "--- a\n+++ b\n-old\n+new\n"})
    assert "-old" in text_of(given) and "+new" in text_of(given)
    plain = result("edit", {}, "nothing to diff")
    assert "nothing to diff" in text_of(plain)


def test_search() -> None:
    head, body = SearchRenderer().call("grep", {"pattern": "TODO", "path": "src"})
    assert text_of(head) == "TODO in src" and body == ""
    assert "a.py:1" in text_of(result("grep", {}, "a.py:1: TODO"))


def test_todo_call_and_result() -> None:
    todos = [{"content": "write tests", "status": "completed"}, {"content": "ship", "status": "in_progress"}]
    head, body = TodoRenderer().call("todo_write", {"todos": todos})
    assert text_of(head) == "2 items" and "☑ write tests" in text_of(body) and "◐ ship" in text_of(body)
    out = result("todo_write", {}, "updated", details={"todos": todos[:1]})
    assert "☑ write tests" in text_of(out) and "updated" not in text_of(out)
    assert "updated" in text_of(result("todo_write", {}, "updated"))


def test_task_prompts_and_markdown_result() -> None:
    args = {"subagent_type": "explore", "description": "look", "prompt": "Find **it**", "context": "ctx"}
    head, body = TaskRenderer().call("task", args)
    assert text_of(head) == "explore · look"
    assert "<strong>it</strong>" in body and "Context" in body
    multi_head, multi = TaskRenderer().call("task", {"tasks": [{"description": "one", "task": "do 1"}, {}]})
    assert text_of(multi_head) == "2 tasks" and "do 1" in text_of(multi)
    assert "<strong>done</strong>" in result("task", {}, "**done**")


def test_cells_follow_the_tool_language() -> None:
    head, body = CellRenderer().call("javascript", {"code": "const x = 1;\nx"})
    assert text_of(head) == "const x = 1;" and "const" in text_of(body)
    empty_head, empty = CellRenderer().call("python", {"other": 1})
    assert empty_head == "" and "other" in text_of(empty)
    assert "\x1b" not in result("python", {}, "\x1b[1mbold\x1b[0m")


def test_fallback_shows_json() -> None:
    head, body = ToolRenderer().call("mystery", {"a": [1, 2]})
    assert head == "" and '"a"' in text_of(body).replace("&#34;", '"').replace("&quot;", '"')
    assert "details" in result("mystery", {}, "", details={"k": "v"})
    assert "plain" in text_of(result("mystery", {}, "plain"))


@pytest.mark.parametrize("name", ["bash", "read", "edit", "todo", "task", "python", "mystery"])
def test_an_error_result_is_shown_as_an_error_for_every_family(name: str) -> None:
    out = result(name, {"path": "a.py"}, "boom", is_error=True)
    assert 'data-status="error"' in out and "boom" in text_of(out)


def test_call_block_escapes_and_keeps_the_contract() -> None:
    html = str(render_call('c"1', "<b>bash</b>", {"command": "<script>"}))
    assert html.startswith('<div class="st-call" data-call-id="c&#34;1"')
    assert "<script>" not in html and "<b>" not in html
    assert html.endswith('<div class="st-call-result"></div></div></div>')
    assert '<button class="st-call-head" type="button" aria-expanded="false">' in html
    assert '<pre class="st-pre">[\n  1,\n  2\n]</pre>' in str(render_call("c2", "bash", [1, 2]))


def test_a_patch_row_names_the_files_it_changes() -> None:
    from sessiontree.exporter.patches import patch_files

    patch = (
        "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** Add File: b.md\n+hi\n"
        "*** Delete File: c.txt\n*** Update File: d.js\n*** Move to: e.js\n"
        "*** Update File: src/a.py\n*** End Patch"
    )
    assert patch_files(patch) == ["src/a.py", "b.md", "c.txt", "d.js", "e.js"]
    assert patch_files("--- a/x.py\n+++ b/x.py\n@@\n-1\n+2\n+++ /dev/null") == ["x.py"]
    assert "only.py" in str(render_call("c0", "edit", {"path": "only.py", "input": patch}))
    head = str(render_call("c1", "apply_patch", {"input": patch}))
    assert '<span class="st-call-path">src/a.py, b.md, c.txt +2 more</span>' in head
    evil = str(render_call("c2", "apply_patch", {"input": "*** Add File: <img src=x onerror=alert(1)>\n"}))
    assert "<img" not in evil and "&lt;img src=x" in evil


def test_a_long_diff_shows_twenty_lines_then_show_all() -> None:
    from sessiontree.exporter.blocks import DIFF_PREVIEW_LINES, render_diff_text

    short = str(render_diff_text("\n".join(f"+{i}" for i in range(25))))
    assert "st-more" not in short and short.count('class="st-diff-add"') == 25
    long = str(render_diff_text("\n".join(f"+{i}" for i in range(57))))
    head, rest = long.split('<span class="st-rest" hidden>', 1)
    assert head.count('class="st-diff-add"') == DIFF_PREVIEW_LINES == 20
    assert rest.count('class="st-diff-add"') == 37 and 'data-more="37"' in long
    assert '<button class="st-more" type="button">Show all 57 lines</button>' in long
