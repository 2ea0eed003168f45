"""GitHub Copilot CLI events of the newest copilot-sdk schema (session-events.ts, late 2026): a tool
result's ``detailedContent`` and ``contents`` images, and the events the timeline shows as a line
(task summary, warning, mode change, skill, failed subagent), counted from the file's lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import copilot_log, inspected, raw_objects, tiny_png

PNG = tiny_png(b"\x40\x50\x60")
SID = "6a1f0e2d-3c4b-4a59-8e7d-0f1e2d3c4b5a"


def _events() -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []

    def ev(event: str, **data: Any) -> None:
        made.append({"type": event, "data": data, "id": f"e{len(made) + 1}", "parentId": None,
                     "timestamp": f"2026-11-02T08:00:{len(made):02d}.000Z"})  # fmt: skip

    ev("session.start", sessionId=SID, version=1, producer="copilot-agent", copilotVersion="1.0.2",
       startTime="2026-11-02T08:00:00.000Z", context={"cwd": "/home/dev/ui"})  # fmt: skip
    ev("session.mode_changed", previousMode="interactive", newMode="autopilot")
    ev("user.message", content="Screenshot the login page and fix the button colour")
    ev(
        "skill.invoked",
        name="playwright",
        path="/home/dev/.copilot/skills/playwright/SKILL.md",
        content="# Use it",
    )
    ev("assistant.message", messageId="m1", content="Taking a screenshot.",
       toolRequests=[{"toolCallId": "t1", "name": "screenshot", "arguments": {"url": "/login"}},
                     {"toolCallId": "t2", "name": "edit", "arguments": {"path": "login.css"}}])  # fmt: skip
    ev("tool.execution_complete", toolCallId="t1", success=True, model="gpt-5.2",
       result={"content": "Screenshot taken",
               "contents": [{"type": "text", "text": "Screenshot taken"},
                            {"type": "image", "data": PNG, "mimeType": "image/png"}]})  # fmt: skip
    ev("tool.execution_complete", toolCallId="t2", success=True,
       result={"content": "Edited login.css",
               "detailedContent": "--- a/login.css\n+++ b/login.css\n-red\n+blue"})  # fmt: skip
    ev("session.warning", warningType="policy", message="MCP server github is disabled by policy")
    ev(
        "subagent.failed",
        toolCallId="t3",
        agentName="reviewer",
        agentDisplayName="Reviewer",
        error="timed out",
    )
    ev(
        "system.notification",
        content="<system_notification>Agent explore-1 completed</system_notification>",
        kind={
            "type": "agent_completed",
            "agentId": "explore-1",
            "agentType": "explore",
            "status": "completed",
        },
    )
    ev("assistant.message", messageId="m2", content="Done.")
    ev("session.task_complete", summary="The login button is blue now.", success=True)
    return made


def test_results_show_what_the_timeline_showed_and_the_new_events_are_notices(tmp_path: Path) -> None:
    log = copilot_log(tmp_path, SID, _events())
    raw = raw_objects(log)
    of = lambda kind: [e["data"] for e in raw if e["type"] == kind]  # noqa: E731
    summary = inspected(log, "copilot")
    assert summary["prompts"] == len(of("user.message")) == 1
    assert summary["notices"] == {
        "Warning": len(of("session.warning")),
        "Subagent failed": len(of("subagent.failed")),
        "Notification": len(of("system.notification")),
    }
    results = [
        e["message"] for e in load_any(log).entries if e.get("message", {}).get("role") == "toolResult"
    ]
    assert [[b["type"] for b in r["content"]] for r in results] == [["text", "image"], ["text"]]
    assert results[1]["content"][0]["text"] == of("tool.execution_complete")[1]["result"]["detailedContent"]
    frags = render_session(load_any(log), RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    assert page.count('<img class="st-img"') == 1 and "base64" not in page
    for said in (
        "The login button is blue now.",
        "Mode: autopilot",
        "playwright",
        "timed out",
        "disabled by policy",
        "Agent explore-1 completed",
    ):
        assert said in page


def test_a_failed_hook_a_handoff_and_a_truncation_are_notices_never_prompts(tmp_path: Path) -> None:
    """copilot-sdk cc0438d6 session-events.ts: HookEndData, HandoffData, TruncationData."""
    events = _events()[:3]
    for kind, data in (
        ("hook.end", {"hookInvocationId": "h1", "hookType": "preToolUse", "success": False,
                      "error": {"message": "lint.sh exited 2", "source": "team-plugin"}}),
        ("hook.end", {"hookInvocationId": "h2", "hookType": "postToolUse", "success": True}),
        ("session.handoff", {"handoffTime": "2026-11-02T08:01:00.000Z", "sourceType": "remote",
                             "host": "https://github.com", "remoteSessionId": "r-77",
                             "repository": {"owner": "acme", "name": "ui", "branch": "fix/login"},
                             "summary": "Found the colour in login.css", "context": "Issue #12"}),
        ("session.truncation", {"performedBy": "BasicTruncator", "messagesRemovedDuringTruncation": 14,
                                "tokensRemovedDuringTruncation": 52000, "preTruncationMessagesLength": 40,
                                "preTruncationTokensInMessages": 180000, "postTruncationMessagesLength": 26,
                                "postTruncationTokensInMessages": 128000, "tokenLimit": 128000}),
    ):  # fmt: skip
        events.append({"type": kind, "data": data, "id": f"x{len(events)}", "parentId": None,
                       "timestamp": f"2026-11-02T08:01:{len(events):02d}.000Z"})  # fmt: skip
    log = copilot_log(tmp_path, SID, events)
    summary = inspected(log, "copilot")
    assert summary["prompts"] == 1
    assert summary["notices"] == {"Hook failed": 1}
    notices = {e["customType"]: e["content"] for e in load_any(log).entries if "content" in e}
    assert notices["copilot:hook_failed"] == "preToolUse: lint.sh exited 2 (team-plugin)"
    assert notices["copilot:handoff"].startswith("Handed off from a remote session (acme/ui@fix/login)")
    assert "Found the colour in login.css" in notices["copilot:handoff"]
    assert notices["copilot:truncation"] == (
        "Context truncated by BasicTruncator: 14 messages (52,000 tokens) removed;"
        " 26 messages, 128,000 of 128,000 tokens left"
    )
    frags = render_session(load_any(log), RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    for said in ("lint.sh exited 2", "acme/ui@fix/login", "Issue #12", "52,000 tokens"):
        assert said in page
    assert "tokensRemovedDuringTruncation" not in page and "remoteSessionId" not in page
