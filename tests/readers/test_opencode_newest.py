"""OpenCode tool results as anomalyco/opencode writes them at commit 007a9409 (session/message-v2.ts):
a completed tool's ``state.attachments`` (the images it read) are shown with its result, and an
interrupted tool's error keeps the output it had made (``state.metadata.output``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import tiny_png

PNG = tiny_png(b"\x10\x20\x30")
SID, PROJECT = "ses_7a0b1c2d3e4fNewestParts01", "0f" * 20


def _write(path: Path, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")


def _storage(root: Path) -> Path:
    """A storage folder with one turn: a read of an image (an attachment) and an interrupted bash."""
    session = root / "session" / PROJECT / f"{SID}.json"
    _write(session, {"id": SID, "projectID": PROJECT, "directory": "/home/dev/app",
                     "title": "Look at the logo",
                     "time": {"created": 1770000000000, "updated": 1770000009000}})  # fmt: skip
    user, reply = "msg_b00000000001Aa1", "msg_b00000000002Aa1"
    _write(root / "message" / SID / f"{user}.json", {"id": user, "sessionID": SID, "role": "user",
           "time": {"created": 1770000001000}, "agent": "build",
           "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}})  # fmt: skip
    _write(root / "part" / user / "prt_b0000000000101.json",
           {"id": "prt_b0000000000101", "sessionID": SID, "messageID": user, "type": "text",
            "text": "Read logo.png, then run the slow build"})  # fmt: skip
    _write(root / "message" / SID / f"{reply}.json", {"id": reply, "sessionID": SID, "role": "assistant",
           "time": {"created": 1770000002000, "completed": 1770000009000}, "parentID": user,
           "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "agent": "build",
           "path": {"cwd": "/home/dev/app", "root": "/home/dev/app"}, "cost": 0.01, "tokens":
           {"input": 100, "output": 20, "reasoning": 0, "cache": {"read": 0, "write": 0}}})  # fmt: skip
    base = {"sessionID": SID, "messageID": reply, "type": "tool"}
    image = {"id": "prt_att1", "sessionID": SID, "messageID": reply, "type": "file", "mime": "image/png",
             "filename": "logo.png", "url": f"data:image/png;base64,{PNG}"}  # fmt: skip
    _write(root / "part" / reply / "prt_b0000000000201.json", {**base, "id": "prt_b0000000000201",
           "callID": "toolu_read", "tool": "read", "state": {"status": "completed",
           "input": {"filePath": "/home/dev/app/logo.png"}, "output": "Image read successfully",
           "title": "logo.png", "metadata": {}, "time": {"start": 1770000003000, "end": 1770000004000},
           "attachments": [image]}})  # fmt: skip
    _write(root / "part" / reply / "prt_b0000000000202.json", {**base, "id": "prt_b0000000000202",
           "callID": "toolu_bash", "tool": "bash", "state": {"status": "error",
           "input": {"command": "make slow"}, "error": "Tool execution aborted",
           "metadata": {"interrupted": True, "output": "building 1/3\nbuilding 2/3"},
           "time": {"start": 1770000005000, "end": 1770000008000}}})  # fmt: skip
    return session


def test_a_tools_attachments_and_an_interrupted_tools_output_are_shown(tmp_path: Path) -> None:
    session = load_any(_storage(tmp_path))
    results = {
        e["message"]["toolName"]: e["message"]
        for e in session.entries
        if e.get("type") == "message" and e["message"].get("role") == "toolResult"
    }
    assert [b["type"] for b in results["read"]["content"]] == ["text", "image"]
    bash = results["bash"]["content"][0]["text"]
    assert bash.startswith("building 1/3\nbuilding 2/3") and bash.endswith("Tool execution aborted")
    assert results["bash"]["isError"] is True
    frags = render_session(session, RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    assert page.count('<img class="st-img"') == 1 and "base64" not in page
    assert "building 2/3" in page
