"""Qwen Code chat records of QwenLM/qwen-code at commit 015346f1 (``ChatRecord``): a typed prompt's
``displayText``, a subagent's records in the file (``isSidechain``), a tool's nested images, and the
``rewind`` and ``session_model`` system records, counted from the file's lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from sessiontree.store.kinds import typed_prompt
from tests.readers.helpers import inspected, raw_objects, tiny_png

SID = "3c9d1e2f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
HOOK = "<hook_context>branch main is protected</hook_context>"


def _records() -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []

    def rec(kind: str, **fields: Any) -> None:
        made.append({"uuid": f"r{len(made) + 1}", "parentUuid": made[-1]["uuid"] if made else None,
                     "sessionId": SID, "cwd": "/home/dev/app", "version": "0.19.0",
                     "timestamp": f"2026-09-01T09:00:{len(made):02d}.000Z",
                     "type": kind, **fields})  # fmt: skip

    png = {"inlineData": {"mimeType": "image/png", "data": tiny_png()}}
    read = {"id": "call_1", "name": "read_file", "args": {"absolute_path": "/home/dev/app/logo.png"}}
    said = {
        "id": "call_1",
        "name": "read_file",
        "response": {"output": "Binary content provided"},
        "parts": [png],
    }
    rec("user", message={"role": "user", "parts": [{"text": f"look at the logo\n\n{HOOK}"}]},
        systemPayload={"displayText": "look at the logo", "hookContext": HOOK})  # fmt: skip
    rec("assistant", model="qwen3-coder-plus", message={"role": "model", "parts": [{"functionCall": read}]})
    rec("tool_result", toolCallResult={"callId": "call_1", "status": "success"},
        message={"role": "user", "parts": [{"functionResponse": said}]})  # fmt: skip
    rec("user", isSidechain=True, agentId="explore-7f3c", agentName="Explore",
        message={"role": "user", "parts": [{"text": "List the image assets"}]})  # fmt: skip
    rec("assistant", isSidechain=True, agentId="explore-7f3c",
        message={"role": "model", "parts": [{"text": "2 assets"}]})  # fmt: skip
    rec("system", subtype="rewind", systemPayload={"truncatedCount": 2})
    rec("system", subtype="session_model", systemPayload={"modelId": "qwen3.5-plus", "authType": "openai"})
    rec(
        "assistant",
        model="qwen3.5-plus",
        message={"role": "model", "parts": [{"text": "It is a blue square."}]},
    )
    return made


def test_prompts_images_and_system_records_are_shown_as_the_ui_showed_them(tmp_path: Path) -> None:
    path = tmp_path / ".qwen" / "projects" / "-home-dev-app" / "chats" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in _records()), encoding="utf-8")
    raw = raw_objects(path)
    typed = [r for r in raw if r["type"] == "user" and not r.get("subtype") and not r.get("isSidechain")]
    summary = inspected(path, "qwen")
    assert summary["prompts"] == len(typed) == 1
    session = load_any(path)
    prompts = [typed_prompt(e) for e in session.entries if typed_prompt(e)]
    assert prompts == [typed[0]["systemPayload"]["displayText"]]
    frags = render_session(session, RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    assert page.count('<img class="st-img"') == 1 and "base64" not in page
    assert "Rewound 2 items" in page and "Model: qwen3.5-plus" in page and "List the image assets" in page
    assert "protected" not in next(f for f in frags if "look at the logo" in f)
