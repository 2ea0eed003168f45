"""Crush images as charmbracelet/crush writes them at commit 37f36e93 (internal/message/content.go):
a tool result's ``data`` and ``mime_type``, a ``binary`` part's ``Data`` / ``MIMEType`` (Go's field
names, bytes as base64) and a ``data:`` ``image_url``: each shown as an image."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from tests.readers.helpers import tiny_png
from tests.readers.test_crush import SCHEMA, T, part


def test_images_of_tools_and_attachments_are_shown(tmp_path: Path) -> None:
    db_path = tmp_path / "proj" / ".crush" / "crush.db"
    db_path.parent.mkdir(parents=True)
    shot, logo = tiny_png(b"\x01\x02\x03"), tiny_png(b"\x04\x05\x06")
    messages = [
        ("m1", "user", [part("text", text="what is in logo.png?"),
                        part("binary", Path="/p/logo.png", MIMEType="image/png", Data=logo)]),
        ("m2", "assistant", [part("tool_call", id="c1", name="mcp_browser_screenshot", input="{}"),
                             part("finish", reason="tool_use", time=T + 1)]),
        ("m3", "tool", [part("tool_result", tool_call_id="c1", name="mcp_browser_screenshot",
                             content="Screenshot taken", data=shot, mime_type="image/png", is_error=False)]),
        ("m4", "assistant", [part("text", text="A blue square."),
                             part("finish", reason="end_turn", time=T + 3)]),
    ]  # fmt: skip
    db = sqlite3.connect(db_path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO sessions VALUES ('s1', NULL, 'Logo', 4, 100, 10, 0.001, ?, ?)", (T + 3, T))
    for index, (mid, role, parts) in enumerate(messages):
        db.execute("INSERT INTO messages VALUES (?, 's1', ?, ?, 'gpt-5', ?, ?, NULL)",
                   (mid, role, json.dumps(parts), T + index, T + index))  # fmt: skip
    db.commit()
    db.close()
    frags = render_session(load_any(db_path), RenderOptions(compress=False)).frags.value()
    assert isinstance(frags, list)
    page = "".join(frags)
    images = [p for _, _, parts in messages for p in parts if "Data" in p["data"] or "data" in p["data"]]
    assert page.count('<img class="st-img"') == len(images) == 2
    assert "base64" not in page and "Screenshot taken" in page
