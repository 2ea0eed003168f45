"""Claude Code 2.1's lines that are not conversation: API errors, local commands, task
notifications, queued prompts, hooks, modes, titles and the thinking level, each shown, counted
and dumped as its row in ``readers.claude_kinds`` says (counts computed from the raw lines)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.archive.search import SearchFilters, SearchIndex
from sessiontree.cli import cli
from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.pages.export import export_to_file
from sessiontree.readers import load_any
from sessiontree.store.kinds import KINDS, is_typed_prompt
from tests.conftest import SHIPPED_REAL
from tests.readers.helpers import CLAUDE_FILES, FIXTURES, raw_objects

EVENTS = FIXTURES / "claude" / "events" / "c1a0de21-0000-4000-8000-0000000e0e01.jsonl"


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _typed_in_raw(path: Path) -> int:
    """User lines a person typed, from the raw lines: a human origin, or no origin and plain text;
    and the prompts queued while a reply ran (``queued_command`` attachments)."""
    count = 0
    for obj in raw_objects(path):
        attachment = obj.get("attachment")
        if obj.get("type") == "attachment" and isinstance(attachment, dict) and not obj.get("isSidechain"):
            count += attachment.get("type") == "queued_command" and bool(
                str(attachment.get("prompt")).strip()
            )
            continue
        message = obj.get("message")
        if obj.get("type") != "user" or not isinstance(message, dict) or obj.get("isMeta"):
            continue
        origin = obj.get("origin")
        content = message.get("content")
        if isinstance(origin, dict) and origin.get("kind") != "human":
            continue
        if isinstance(content, str) and content.strip() and not content.lstrip().startswith("<"):
            count += 1
    return count


def test_inspect_counts_typed_prompts_api_errors_and_the_title_source() -> None:
    summary = json.loads(_run("inspect", "--json", str(EVENTS)))
    raw = raw_objects(EVENTS)
    assert summary["prompts"] == _typed_in_raw(EVENTS) == 3  # the queued prompt was typed too
    assert summary["message_roles"]["user"] == 2  # the task notification is no user message
    errors = sum(1 for o in raw if o.get("type") == "system" and o.get("subtype") == "api_error")
    assert summary["notices"] == {"API error": errors, "Task notification": 1}
    titles = [o["aiTitle"] for o in raw if o.get("type") == "ai-title"]
    assert summary["title"] == titles[-1] and summary["title_source"] == "ai-title"
    text = _run("inspect", str(EVENTS))
    assert "Title     from the ai-title line" in text and "3 typed prompt(s)" in text
    assert "Notices   API error 4, Task notification 1" in text


def test_retries_of_one_error_fold_into_one_notice_with_their_count() -> None:
    session = load_any(EVENTS)
    errors = [e for e in session.entries if e.get("customType") == "claude:system/api_error"]
    assert [e["details"]["count"] for e in errors] == [3, 1]
    assert errors[0]["content"] == (
        "API error 400: your current token plan not support model claude-opus-4-6 (retry 3/10; 3 attempts)"
    )
    assert errors[1]["content"] == "API error 529: Overloaded (retry 1/10)"
    # the folded retries' ids still lead to the notice: the reply after them hangs below it
    assert session.tree.parent_of("a-1") == "e-4" and session.tree.parent_of("e-4") == "e-1"


def test_dump_prints_each_kind_once_with_no_empty_heading() -> None:
    text = _run("dump", "--stdout", str(EVENTS))
    assert "## API error\n\nAPI error 400: your current token plan" in text
    assert "## Command\n\n/stats" in text and "## Command\n\nTokens used: 1,234" in text
    assert '## Task notification\n\nBackground command "npm test" completed (exit code 0)' in text
    assert "Thinking Level: high" in text  # the prompt's thinkingMetadata
    assert "<task-notification>" not in text and "claude:system" not in text and "claude:" not in text
    assert not re.search(r"^## [^\n]*\n\n+(?=## |\Z)", text, re.M), "an empty heading"
    assert text.count("## User") == 2


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=lambda p: p.name[-40:])
def test_no_claude_file_dumps_an_empty_heading(path: Path) -> None:
    text = _run("dump", "--stdout", str(path))
    assert not re.search(r"^## [^\n]*\n\n+(?=## |\Z)", text, re.M)
    # the thinking level is what the file says, or not printed ("off" was a guess)
    assert "Thinking Level: off" not in text or '"disabled":true' in path.read_text()


def test_the_page_shows_each_kind_as_its_row_says() -> None:
    rendered = render_session(load_any(EVENTS), RenderOptions(compress=False))
    metas = {m["id"]: m for m in rendered.entries}
    value = rendered.frags.value()
    assert isinstance(value, list)
    frags = dict(zip((m["id"] for m in rendered.entries), value, strict=True))
    assert "st-notice-error" in frags["e-1"] and "your current token plan" in frags["e-1"]
    assert metas["e-1"]["cat"] == "notice" and metas["n-1"]["cat"] == "notice"
    assert (
        "st-chip-command" in frags["lc-1"]
        and "/stats" in frags["lc-1"]
        and "&lt;command" not in frags["lc-1"]
    )
    assert "Background command" in frags["n-1"] and "task-notification" not in frags["n-1"]
    # a clean stop hook and the queue's bookkeeping say nothing outside "all"
    assert metas["s-1"]["cat"] == "meta" and metas["s-2"]["cat"] == "notice"
    assert "lint.sh: 2 warnings" in frags["s-2"]
    assert rendered.title == "PolyDot renderer and SVG export"
    queued = next(m["id"] for m in rendered.entries if m.get("role") is None and "PNG" in frags[m["id"]])
    assert metas[queued]["cat"] == "notice" and "Queued prompt" in frags[queued]
    assert "and keep the PNG export too" in frags[queued]


def test_only_typed_prompts_are_prompts() -> None:
    session = load_any(EVENTS)
    typed = [e for e in session.entries if is_typed_prompt(e)]
    assert [e["id"] for e in typed[:2]] == ["u-1", "u-2"]
    assert [e.get("customType") for e in typed[2:]] == ["claude:queued-command"]
    assert all(not k.custom_type.startswith("claude:") or k.label for k in KINDS.values())


def test_the_index_snippet_holds_the_api_error(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "-home-dev-polydot"
    root.mkdir(parents=True)
    shutil.copy(EVENTS, root / EVENTS.name)
    with SearchIndex([tmp_path / "projects"], tmp_path / "cache") as index:
        index.update()
        hits = index.search("token plan")
        users = index.search("npm test", SearchFilters(role="user"))
    assert hits and "token plan" in hits[0].snippet.text
    assert users == []  # a task notification is not something the user said


def test_export_of_the_events_file(tmp_path: Path) -> None:
    out = export_to_file(EVENTS, tmp_path / "page.html")
    html = out.read_text()
    assert "<title>PolyDot renderer and SVG export" in html


def test_the_listing_takes_the_ai_title_and_the_first_typed_prompt(tmp_path: Path) -> None:
    from sessiontree.readers.agent_info import read_agent_info

    info = read_agent_info(EVENTS)
    assert info is not None and info.title == "PolyDot renderer and SVG export"
    assert info.first_message is not None and info.first_message.startswith("# PolyDot")
    lines = [
        '{"type":"user","uuid":"n","sessionId":"s","parentUuid":null,"origin":{"kind":"task-notification"},'
        '"message":{"role":"user","content":"Background task finished."}}',
        '{"type":"user","uuid":"u","sessionId":"s","parentUuid":"n",'
        '"message":{"role":"user","content":"real prompt"}}',
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    found = read_agent_info(path)
    assert found is not None and found.first_message == "real prompt"


SPOTTER = sorted((SHIPPED_REAL / "claude").glob("spotter--*.jsonl"))


@pytest.mark.parametrize("path", SPOTTER, ids=lambda p: p.name)
def test_real_2_1_local_commands_are_chips_and_dump_as_typed(path: Path) -> None:
    raw = raw_objects(path)
    commands = [o for o in raw if o.get("type") == "system" and o.get("subtype") == "local_command"]
    assert commands  # the file has what this test is about
    session = load_any(path)
    shown = [e for e in session.entries if e.get("customType") == "claude:system/local_command"]
    assert [e["id"] for e in shown] == [o["uuid"] for o in commands]
    rendered = render_session(session, RenderOptions(compress=False))
    value = rendered.frags.value()
    assert isinstance(value, list)
    frags = dict(zip((m["id"] for m in rendered.entries), value, strict=True))
    names = [re.search(r"<command-name>(.*?)</command-name>", o["content"]) for o in commands]
    for entry, name in zip(shown, names, strict=True):
        frag = frags[entry["id"]]
        assert "&lt;command-name&gt;" not in frag and "&lt;local-command-stdout&gt;" not in frag
        if name is not None:
            assert "st-chip-command" in frag and name[1] in frag
    text = _run("dump", "--stdout", str(path))
    assert "\x1b" not in text
    # the system lines' tags never reach dump (a user line may hold the same text: the older form)
    said = {str((o.get("message") or {}).get("content")) for o in raw if o.get("type") == "user"}
    assert not any(o["content"] in text for o in commands if o["content"] not in said)
    for name in names:
        if name is not None:
            assert f"## Command\n\n{name[1]}" in text
    summary = json.loads(_run("inspect", "--json", str(path)))
    assert summary["prompts"] == _typed_in_raw(path)
