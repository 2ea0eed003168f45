"""One rule for a typed prompt in a Claude Code file: what the person typed (queued prompts too),
never what a model or Claude Code wrote (a Task's prompt inline, the compaction agent's task, the
answer to an unknown command), the same in inspect, the outline, the title and the listing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter.api import render_session
from sessiontree.readers import load_any
from sessiontree.readers.agent_info import read_agent_info
from sessiontree.store.kinds import summarize
from tests.conftest import SHIPPED_REAL
from tests.readers.helpers import REAL, raw_objects, run

SID = "9f1c2d3e-0000-4000-8000-00000000a001"
CLAUDE_WROTE = ("Unknown slash command:", "Your task is to create a detailed summary")


def line(uuid: str, parent: str | None, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    role = "assistant" if kind == "assistant" else "user"
    return {
        "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w/parser",
        "sessionId": SID, "version": "2.1.70", "gitBranch": "main", "type": kind, "uuid": uuid,
        "timestamp": f"2026-03-04T10:00:{len(uuid):02d}.000Z", "message": {"role": role, "content": content},
    } | extra  # fmt: skip


def write_session(path: Path) -> Path:
    task = {"type": "tool_use", "id": "toolu_1", "name": "Task", "input": {"prompt": "Find parser bugs"}}
    lines = [
        line("u1", None, "user", "fix the parser"),
        line("a1", "u1", "assistant", [task]),
        line("s1", "a1", "user", "Find parser bugs in src/parse.py", isSidechain=True),
        line("s2", "s1", "assistant", [{"type": "text", "text": "Line 40 drops a token."}], isSidechain=True),
        line("r1", "a1", "user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Line 40"}]),
        {"parentUuid": "r1", "isSidechain": False, "sessionId": SID, "type": "attachment", "uuid": "q1",
         "timestamp": "2026-03-04T10:01:00.000Z",
         "attachment": {"type": "queued_command", "prompt": "also run the tests", "commandMode": "prompt"}},
        line("a2", "r1", "assistant", [{"type": "text", "text": "Fixed; tests pass."}]),
        line("u2", "a2", "user", "Unknown slash command: frobnicate"),
        line("u3", "u2", "user", "Your task is to create a detailed summary of the conversation so far."),
        line("u4", "u3", "user", "thanks", origin={"kind": "human"}, promptSource="typed"),
    ]  # fmt: skip
    path.write_text("".join(json.dumps(obj) + "\n" for obj in lines), encoding="utf-8")
    return path


def typed_in_raw(path: Path) -> list[str]:
    """What the person typed, straight from the raw lines."""
    typed = []
    for obj in raw_objects(path):
        if obj.get("isSidechain"):
            continue
        if obj.get("type") == "attachment" and obj["attachment"].get("type") == "queued_command":
            typed.append(obj["attachment"]["prompt"])
        content = obj.get("message", {}).get("content")
        if obj.get("type") == "user" and isinstance(content, str) and not content.startswith(CLAUDE_WROTE):
            typed.append(content)
    return typed


def test_every_view_counts_what_the_person_typed(tmp_path: Path) -> None:
    path = write_session(tmp_path / f"{SID}.jsonl")
    typed = typed_in_raw(path)
    assert typed == ["fix the parser", "also run the tests", "thanks"]
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    assert json.loads(out)["prompts"] == len(typed)
    rendered = render_session(load_any(path), None)
    assert sum(1 for m in rendered.entries if m.get("prompt")) == len(typed)  # the outline
    assert rendered.title == typed[0]
    info = read_agent_info(path)
    assert info is not None and info.first_message == typed[0]


def test_the_task_prompt_is_still_shown_in_its_subagent(tmp_path: Path) -> None:
    session = load_any(write_session(tmp_path / f"{SID}.jsonl"))
    by_id = {e["id"]: e for e in session.entries}
    assert by_id["s1"]["message"]["content"][0]["text"] == "Find parser bugs in src/parse.py"
    assert by_id["s1"]["message"]["synthetic"] is True and "synthetic" not in by_id["u1"]["message"]


MARKUP = re.compile(
    r"<(command-name|command-message|command-args|local-command-stdout|local-command-stderr|"
    r"local-command-caveat|bash-input|bash-stdout|bash-stderr|ide_selection|ide_opened_file|"
    r"ide_diagnostics|system-reminder|user-prompt-submit-hook|task-notification)>.*?</\1>"
    r"|\[Request interrupted by user[^\]]*\]",
    re.S,
)


def typed_in_real(path: Path) -> int:
    """Typed prompts of a real file, from its raw lines: main-chain user text that is not markup,
    meta, a compaction summary or tool results, and queued prompts."""
    count = 0
    for obj in raw_objects(path):
        if obj.get("isSidechain"):
            continue
        attachment = obj.get("attachment")
        if isinstance(attachment, dict) and attachment.get("type") == "queued_command":
            count += 1
        if obj.get("type") != "user" or obj.get("isMeta") or obj.get("isCompactSummary"):
            continue
        content = obj.get("message", {}).get("content")
        if isinstance(content, list):
            if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
                continue
            content = "\n".join(
                b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
            )
        if (
            isinstance(content, str)
            and MARKUP.sub("", content).strip()
            and not content.startswith(CLAUDE_WROTE)
        ):
            count += 1
    return count


REAL_CLAUDE = sorted({*(REAL / "claude").glob("*.jsonl"), *(SHIPPED_REAL / "claude").glob("*.jsonl")})


@pytest.mark.parametrize("path", REAL_CLAUDE, ids=lambda p: p.name[-44:])
def test_real_files_count_what_their_raw_lines_say(path: Path) -> None:
    assert summarize(load_any(path)).prompts == typed_in_real(path)
