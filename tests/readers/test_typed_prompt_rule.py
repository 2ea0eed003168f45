"""The typed-prompt rule, generalised (issue 50 item 2): what an agent puts into the user's turn is no
prompt, known tags or not; where a format marks what the person typed, that marker decides; a
prompt with only an attachment is a prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sessiontree.readers import load_any
from sessiontree.store.claude_markup import is_injected
from sessiontree.store.kinds import typed_prompt


@pytest.mark.parametrize(
    ("text", "injected"),
    [
        ('<subagent_notification>{"agent": "Euler", "status": "done"}</subagent_notification>', True),
        ("<environment_context>\n  <cwd>/home/dev</cwd>\n</environment_context>", True),
        ("<task-notification>\n<task-id>7</task-id>\n<status>completed</status>\n</task-notification>", True),
        ('<hook_output event="Stop">ok</hook_output>\n<session-start-hook>x</session-start-hook>', True),
        ("<backgroundcommandresult>done</backgroundcommandresult>", True),  # a long name of its own
        ("<div>hello</div>", False),  # an HTML element a person pastes
        ("why does <my_widget>x</my_widget> break?", False),  # typed words around a tag
        ("fix <code>parse()</code> please", False),
        ("plain words", False),
    ],
)
def test_a_block_an_agent_wrapped_in_its_own_tag_is_injected(text: str, injected: bool) -> None:
    assert is_injected(text) is injected


def _typed(session: Any) -> list[str]:
    return [t for e in session.entries if (t := typed_prompt(e))]


def _rollout(path: Path, lines: list[tuple[str, dict[str, Any]]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"id": "0199a0a0-0000-7000-8000-000000000001", "timestamp": "2026-03-01T10:00:00.000Z",
            "cwd": "/home/dev/chess", "originator": "codex_cli_rs", "cli_version": "0.80.0"}  # fmt: skip
    rows = [("session_meta", meta), *lines]
    path.write_text(
        "".join(
            json.dumps({"timestamp": f"2026-03-01T10:00:{n:02d}.000Z", "type": kind, "payload": payload})
            + "\n"
            for n, (kind, payload) in enumerate(rows)
        ),
        encoding="utf-8",
    )
    return path


def _user(text: str) -> tuple[str, dict[str, Any]]:
    return "response_item", {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": text}],
    }


def _said(text: str) -> tuple[str, dict[str, Any]]:
    return "event_msg", {"type": "user_message", "message": text, "images": []}


def _reply(text: str) -> tuple[str, dict[str, Any]]:
    return "response_item", {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }


NOTE = '<subagent_notification>{"agent_id": "a1", "status": "completed"}</subagent_notification>'


def test_codex_counts_what_its_user_message_events_say(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "sessions" / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-x.jsonl",
        [
            _user("<environment_context>\n  <cwd>/home/dev/chess</cwd>\n</environment_context>"),
            _user("add castling"),
            _said("add castling"),
            _reply("Spawning a worker."),
            _user(NOTE),  # the multi-agent notification: no user_message event
            _user(
                "# Context from my IDE setup:\n## Active file: a.py\n## My request for Codex:\nand en passant"
            ),
            _said("and en passant"),
            _reply("Done."),
        ],
    )
    assert _typed(load_any(path)) == [
        "add castling",
        "# Context from my IDE setup:\n## Active file: a.py\n## My request for Codex:\nand en passant",
    ]


def test_a_codex_rollout_without_events_goes_by_the_injected_block_rule(tmp_path: Path) -> None:
    path = _rollout(
        tmp_path / "sessions" / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-y.jsonl",
        [_user("add castling"), _reply("ok"), _user(NOTE), _user("<div>why?</div>"), _reply("ok")],
    )
    assert _typed(load_any(path)) == ["add castling", "<div>why?</div>"]


def test_claude_code_notifications_of_unknown_tags_are_no_prompts(tmp_path: Path) -> None:
    path = tmp_path / "projects" / "-home-dev" / "c1a0de00-0000-4000-8000-000000000001.jsonl"
    path.parent.mkdir(parents=True)
    lines = []
    for n, (role, text) in enumerate(
        [
            ("user", "add a test"),
            ("assistant", "Added."),
            (
                "user",
                "<task-notification>\n<task-id>b1</task-id>\n<summary>done</summary>\n</task-notification>",
            ),
            ("user", '<teammate_message from="reviewer">LGTM</teammate_message>'),
            ("user", "now <b>ship</b> it"),
        ]
    ):
        content: Any = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(
            {
                "type": role,
                "uuid": f"u{n}",
                "parentUuid": f"u{n - 1}" if n else None,
                "sessionId": "c1a0de00-0000-4000-8000-000000000001",
                "cwd": "/home/dev",
                "timestamp": f"2026-03-01T10:00:0{n}.000Z",
                "message": {"role": role, "content": content},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert _typed(load_any(path)) == ["add a test", "now <b>ship</b> it"]


def test_a_copilot_prompt_with_only_an_attachment_is_a_prompt(tmp_path: Path) -> None:
    sid = "51854430-83f7-4543-a9bf-ec76ead71f59"
    path = tmp_path / ".copilot" / "session-state" / sid / "events.jsonl"
    path.parent.mkdir(parents=True)
    shot = {"type": "file", "path": "/tmp/shot.png", "displayName": "shot.png"}
    start = {"sessionId": sid, "version": 1, "producer": "copilot-agent", "copilotVersion": "0.0.407"}
    events = [
        ("session.start", start),
        ("user.message", {"content": "", "attachments": [shot]}),
        ("assistant.message", {"messageId": "m1", "content": "I see a stack trace."}),
        ("user.message", {"content": "fix it", "attachments": [{"type": "file", "path": "/src/app.py"}]}),
    ]
    path.write_text(
        "".join(
            json.dumps(
                {"type": k, "data": d, "id": f"e{n}", "timestamp": f"2026-03-01T10:00:0{n}.000Z"}
                | {"parentId": f"e{n - 1}" if n else None}
            )
            + "\n"
            for n, (k, d) in enumerate(events)
        ),
        encoding="utf-8",
    )
    assert _typed(load_any(path)) == ["[attached: shot.png]", "fix it\n[attached: /src/app.py]"]


def test_a_gemini_file_holding_several_sessions_reads_every_one(tmp_path: Path) -> None:
    """Gemini CLI's a2a server writes several sessions one after the other into one file (a metadata
    line each, message ids starting again): every session's prompts and replies are read, in order,
    each later session opened by a notice (issue 50 item 3)."""
    path = tmp_path / ".gemini" / "tmp" / "abc" / "chats" / "session-2026-03-01T10-00-abc.jsonl"
    path.parent.mkdir(parents=True)
    lines: list[dict[str, Any]] = []
    for s in range(3):
        day = f"2026-03-0{s + 1}T10:00"
        lines.append({"sessionId": f"sess-{s}", "projectHash": "abc", "startTime": f"{day}:00.000Z"})
        lines.append({"id": "1", "timestamp": f"{day}:01.000Z", "type": "user", "content": f"prompt {s}"})
        lines.append(
            {
                "id": "2",
                "timestamp": f"{day}:02.000Z",
                "type": "gemini",
                "content": f"answer {s}",
                "model": "gemini-2.5-pro",
                "tokens": {"input": 10, "output": 5},
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    session = load_any(path)
    assert _typed(session) == ["prompt 0", "prompt 1", "prompt 2"]
    replies = [e for e in session.entries if e.get("message", {}).get("role") == "assistant"]
    assert [r["message"]["content"][0]["text"] for r in replies] == ["answer 0", "answer 1", "answer 2"]
    notices = [e["content"] for e in session.entries if e.get("type") == "custom"]
    assert notices == ["Session sess-1 began", "Session sess-2 began"]
    assert session.header["id"] == "sess-0"
    path_ids = [e["id"] for e in session.path_entries()]
    assert len(path_ids) == len(session.entries)  # one conversation, in order, no side branch
