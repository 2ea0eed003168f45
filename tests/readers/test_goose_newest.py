"""Goose messages of block/goose at commit 05132966 (conversation/message.rs): a user message the
model alone sees (``metadata.userVisible: false``), a ``systemNotification``, an ``actionRequired``,
a ``frontendToolRequest`` and a tool response holding a ``CallToolResult`` with an image."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import inspected, raw_objects, tiny_png
from tests.readers.test_goose import META, call, msg


def _seen(message: dict[str, Any], user: bool = True, agent: bool = True) -> dict[str, Any]:
    return {**message, "metadata": {"userVisible": user, "agentVisible": agent}}


def _lines() -> list[dict[str, Any]]:
    image = {"type": "image", "data": tiny_png(), "mimeType": "image/png"}
    shot = {"content": [{"type": "text", "text": "Took a screenshot"}, image], "isError": False}
    confirm = {"actionType": "toolConfirmation", "id": "c1", "toolName": "developer__shell",
               "arguments": {"command": "rm -rf build"}, "prompt": "Run rm -rf build?"}  # fmt: skip
    front = {**call("c2", "browser__open", url="https://x.test"), "type": "frontendToolRequest"}
    response = {"type": "toolResponse", "id": "c2", "toolResult": {"status": "success", "value": shot}}
    note = {
        "type": "systemNotification",
        "notificationType": "inlineMessage",
        "msg": "Compacting the conversation",
    }
    summary = {"type": "text", "text": "Summary so far: took a screenshot"}
    return [
        META,
        _seen(msg("user", 1764000000, {"type": "text", "text": "screenshot the page"})),
        _seen(msg("assistant", 1764000001, {"type": "actionRequired", "data": confirm})),
        _seen(msg("assistant", 1764000002, front)),
        _seen(msg("user", 1764000003, response)),
        _seen(msg("assistant", 1764000004, note), agent=False),
        _seen(msg("user", 1764000005, summary), user=False),
        _seen(msg("assistant", 1764000006, {"type": "text", "text": "The page is blue."})),
    ]


def test_agent_only_messages_are_not_prompts_and_the_new_items_are_shown(tmp_path: Path) -> None:
    path = tmp_path / "data" / "goose" / "sessions" / "20261101_090000.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in _lines()), encoding="utf-8")
    raw = raw_objects(path)[1:]
    typed = [m for m in raw if m["role"] == "user" and m["metadata"]["userVisible"]
             and any(c["type"] == "text" for c in m["content"])]  # fmt: skip
    assert inspected(path, "goose")["prompts"] == len(typed) == 1
    session = load_any(path)
    results = [e["message"] for e in session.entries if e.get("message", {}).get("role") == "toolResult"]
    assert [(r["toolName"], [b["type"] for b in r["content"]]) for r in results] == [
        ("browser__open", ["text", "image"])
    ]
    assert results[0]["content"][0]["text"] == "Took a screenshot"
    frags = render_session(session, RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    assert page.count('<img class="st-img"') == 1 and "base64" not in page
    assert "Compacting the conversation" in page and "Confirm developer__shell: Run rm -rf build?" in page
