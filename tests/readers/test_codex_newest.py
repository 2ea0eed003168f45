"""Codex rollouts with the items and events openai/codex writes at commit 0136a731 (tool searches,
tool outputs made of content items, generated images, inter-agent messages, reviews, goals), each
shown: checked against counts computed from the raw lines of a file written from that shape."""

from __future__ import annotations

import json
import re
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import FIXTURES, inspected, raw_objects, run

NEWEST = next((FIXTURES / "codex" / "newest").glob("rollout-*.jsonl"))
CALLS = {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call",
         "image_generation_call"}  # fmt: skip


def _lines(kind: str, payload_type: str | None = None) -> list[dict[str, Any]]:
    """The payloads of the raw lines of one kind (and payload type)."""
    return [
        o["payload"]
        for o in raw_objects(NEWEST)
        if o["type"] == kind and (payload_type is None or o["payload"].get("type") == payload_type)
    ]


def _page() -> dict[str, str]:
    rendered = render_session(load_any(NEWEST), RenderOptions(compress=False))
    frags = rendered.frags.value()
    assert isinstance(frags, list)
    return {str(e["id"]): f for e, f in zip(rendered.entries, frags, strict=True)}


def test_prompts_are_the_user_message_events_and_agent_messages_are_notices() -> None:
    summary = inspected(NEWEST, "codex")
    assert summary["prompts"] == len(_lines("event_msg", "user_message")) == 2
    said = _lines("response_item", "agent_message") + _lines("inter_agent_communication")
    assert summary["notices"] == {"Agent message": len(said)} == {"Agent message": 3}


def test_every_call_item_is_a_call_chip_with_its_result() -> None:
    items = [p for p in _lines("response_item") if p.get("type") in CALLS]
    page = "".join(_page().values())
    chips = re.findall(r'<div class="st-call" data-call-id="([^"]*)" data-tool="([^"]*)"', page)
    assert [tool for _, tool in chips] == ["tool_search", "view_image", "image_generation"]
    assert len(chips) == len(items)
    for call_id, _ in chips:
        assert f'<div class="st-result" data-call-id="{call_id}"' in page


def test_content_item_outputs_and_generated_images_are_images_not_json() -> None:
    images = [
        part
        for p in _lines("response_item", "function_call_output")
        for part in p["output"]
        if part["type"] == "input_image"
    ] + _lines("response_item", "image_generation_call")
    page = "".join(_page().values())
    assert page.count('<img class="st-img"') == len(images) == 2
    assert "base64" not in page and "input_image" not in page and "Viewed failure.png" in page
    assert "2 tools found: pytest_run, pytest_last_failed" in page


def test_reviews_and_goal_changes_are_notices_and_repeats_of_a_goal_are_not() -> None:
    notices = {
        f.split('<span class="st-role">', 1)[1].split("<", 1)[0] for f in _page().values() if "st-notice" in f
    }
    assert {"Agent message", "Review", "Goal"} <= notices
    page = "".join(_page().values())
    finding = _lines("event_msg", "exited_review_mode")[0]["review_output"]["findings"][0]
    assert finding["title"] in page and finding["body"] in page and "Review started: current changes" in page
    goals = {
        (g["goal"]["objective"], g["goal"]["status"]) for g in _lines("event_msg", "thread_goal_updated")
    }
    assert page.count("Make the parser suite pass (") == len(goals) == 2


def test_dump_prints_the_agent_messages_and_the_encrypted_one_says_so() -> None:
    code, out, err = run("dump", "--stdout", str(NEWEST))
    assert code == 0, err
    assert out.count("## Agent message") == 3
    assert "/root/fixer to /root: Fixed: the tokenizer skipped the last line" in out
    assert "[encrypted]" in out and "gAAAB" not in out


def test_a_proposed_plan_is_a_plan_heading_not_literal_tags(tmp_path: Any) -> None:
    plan = "1. Read the parser\n2. Add a **test**"
    reply = f"Here is the plan.\n\n<proposed_plan>\n{plan}\n</proposed_plan>\n"
    lines = [
        {"type": "session_meta", "payload": {"id": "p1", "timestamp": "2026-11-01T10:00:00Z", "cwd": "/w"}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "plan it"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "plan it"}]}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text", "text": reply}]}},
    ]  # fmt: skip
    path = tmp_path / "rollout-2026-11-01T10-00-00-p1.jsonl"
    stamp = {"timestamp": "2026-11-01T10:00:01Z"}
    path.write_text("".join(json.dumps({**stamp, **line}) + "\n" for line in lines), encoding="utf-8")
    page = "".join(render_session(load_any(path), RenderOptions(compress=False)).frags.value())
    assert "proposed_plan" not in page
    assert "<strong>Proposed plan</strong>" in page
    assert "<li>Read the parser</li>" in page and "<strong>test</strong>" in page
    assert "Here is the plan." in page


def test_sub_agent_activity_is_a_subagent_notice_never_a_prompt(tmp_path: Any) -> None:
    """openai/codex 3c6ad5ea legacy_events.rs: SubAgentActivityEvent {event_id, occurred_at_ms,
    agent_thread_id, agent_path, kind: started | interacted | interrupted}, persisted as an event."""
    child = "019a2b3c-4d5e-7f60-8a9b-0c1d2e3f4a5b"
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "s1", "timestamp": "2026-11-01T10:00:00Z", "cwd": "/w"}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "review it"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "review it"}]}},
    ]  # fmt: skip
    for kind in ("started", "interacted", "interrupted"):
        event = {"type": "sub_agent_activity", "event_id": f"call_{kind}", "occurred_at_ms": 1793527200000,
                 "agent_thread_id": child, "agent_path": "/root/reviewer", "kind": kind}  # fmt: skip
        lines.append({"type": "event_msg", "payload": event})
    path = tmp_path / "rollout-2026-11-01T10-00-00-s1.jsonl"
    stamp = {"timestamp": "2026-11-01T10:00:01Z"}
    path.write_text("".join(json.dumps({**stamp, **line}) + "\n" for line in lines), encoding="utf-8")
    assert inspected(path, "codex")["prompts"] == 1
    said = [
        e.get("content")
        for e in load_any(path).entries
        if e.get("customType") == "codex:event/sub_agent_activity"
    ]
    assert said == [
        f"Subagent /root/reviewer started (thread {child})",
        f"Message sent to subagent /root/reviewer (thread {child})",
        f"Subagent /root/reviewer interrupted (thread {child})",
    ]
    page = "".join(render_session(load_any(path), RenderOptions(compress=False)).frags.value())
    assert page.count('<span class="st-role">Subagent</span>') == 3
    assert "occurred_at_ms" not in page and "Message sent to subagent /root/reviewer" in page


def test_a_find_in_page_shows_its_pattern_beside_its_page(tmp_path: Any) -> None:
    """openai/codex 001cb8e2 models.rs: a web_search_call's action {type: find_in_page, url, pattern}."""
    url = "https://docs.python.org/3/library/asyncio-task.html"
    actions = [
        {"type": "search", "query": "asyncio TaskGroup cancel"},
        {"type": "open_page", "url": url},
        {"type": "find_in_page", "url": url, "pattern": "ExceptionGroup"},
    ]
    lines: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "w1", "timestamp": "2026-11-01T10:00:00Z", "cwd": "/w"}},
        {"type": "event_msg", "payload": {"type": "user_message", "message": "look it up"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user",
                                              "content": [{"type": "input_text", "text": "look it up"}]}},
    ] + [
        {"type": "response_item", "payload": {"type": "web_search_call", "status": "completed", "action": a}}
        for a in actions
    ]  # fmt: skip
    path = tmp_path / "rollout-2026-11-01T10-00-00-w1.jsonl"
    stamp = {"timestamp": "2026-11-01T10:00:01Z"}
    path.write_text("".join(json.dumps({**stamp, **line}) + "\n" for line in lines), encoding="utf-8")
    page = "".join(render_session(load_any(path), RenderOptions(compress=False)).frags.value())
    chips = re.findall(
        r'<span class="st-chip-label">(\w+)</span> <span class="st-call-(\w+)">([^<]*)</span>', page
    )
    assert chips == [("Search", "pattern", actions[0]["query"]), ("Open", "path", url),
                     ("Find", "pattern", "ExceptionGroup")]  # fmt: skip
    assert (
        f'ExceptionGroup</span> <span class="st-call-in">in</span> <span class="st-call-path">{url}' in page
    )
    assert "find_in_page" not in page
