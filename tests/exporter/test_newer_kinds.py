"""Newer entry kinds, roles and blocks render as what they mean, never as an unknown JSON card."""

from __future__ import annotations

import json
from pathlib import Path

from sessiontree.exporter.render import RenderContext, render_entry
from sessiontree.exporter.stats import compute_stats
from sessiontree.store import load_session

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def rendered(name: str) -> dict[str, tuple[dict, str]]:  # type: ignore[type-arg]
    session = load_session(FIXTURES / name)
    ctx = RenderContext.for_session(session)
    return {e["id"]: render_entry(e, ctx, parent_id=session.tree.parent_of(e["id"])) for e in session.entries}


def test_no_entry_of_the_newer_format_is_unknown() -> None:
    for name in ("omp-newer-entries.jsonl", "pi-roles-and-blocks.jsonl"):
        for entry_id, (meta, html) in rendered(name).items():
            assert meta["cat"] != "unknown", (name, entry_id)
            assert "st-pre st-json" not in html or meta["type"] == "custom", (name, entry_id)  # raw JSON card


def test_oh_my_pi_notices() -> None:
    out = rendered("omp-newer-entries.jsonl")
    assert "Thinking level: auto" in out["t1"][1]
    assert "Service tier: anthropic priority" in out["s1"][1]
    pin_meta, pin = out["c1"]
    assert "Credential pinned for anthropic" in pin
    assert "9f2c4e1b" not in pin and "9f2c4e1b" not in json.dumps(pin_meta)  # never the hash
    assert "Fix the flaky widget test" in out["tc1"][1] and "by the user" in out["tc1"][1]
    assert 'class="st-reset"' in out["r1"][1] and out["r1"][0]["cat"] == "notice"
    assert "Model call for title" in out["mu1"][1] and out["mu1"][0]["cat"] == "meta"
    assert out["ar1"][0]["cat"] == "meta"


def test_archived_branch_is_flagged_for_the_tree() -> None:
    out = rendered("omp-newer-entries.jsonl")
    assert out["u3"][0].get("archived") is True and out["a3"][0].get("archived") is True
    assert "archived" not in out["u2"][0]


def test_roles_and_blocks() -> None:
    out = rendered("pi-roles-and-blocks.jsonl")
    assert out["si1"][0]["preview"] == "Session named “Refactor auth module”"
    assert (
        out["d1"][0]["cat"] == "custom" and "Repository rules" in out["d1"][1] and "Developer" in out["d1"][1]
    )
    assert "src/auth.ts" in out["f1"][1] and "export function login" in out["f1"][1]
    assert "Legacy hook message" in out["h1"][1]
    answer = out["a1"][1]
    assert answer.count("thinking redacted") == 2 and "st-thinking" not in answer
    assert "Fallback: claude-opus-4-6 → claude-sonnet-4-5" in answer
    assert "web_search (server tool)" in answer and "oauth pkce flow" in answer
    assert "PKCE explained https://example.test/pkce" in answer and "opaque-ciphertext" not in answer
    assert "Model: anthropic/claude-sonnet-4-5 (fallback)" in out["m2"][1]
    assert "Stopped: output token limit" in out["a2"][1]


def test_compaction_details() -> None:
    meta, html = rendered("pi-roles-and-blocks.jsonl")["k1"]
    assert meta["preview"] == "Auth refactor"
    for text in (
        "48,000 tokens before",
        "9,000 tokens after",
        "method: summary",
        "1 message kept verbatim",
        "Freed too little",
    ):
        assert text in html


def test_lost_lines_marker_at_the_joint() -> None:
    out = rendered("damaged-lost-line.jsonl")
    meta, html = out["a2"]
    assert meta["lost"] == "1 unreadable line lost here" and meta["parentId"] == "a1"
    assert 'class="st-lost"' in html
    assert sum('class="st-lost"' in h for _, h in out.values()) == 1


def test_header_counts_model_usage_branch_summary_and_tool_result_usage() -> None:
    session = load_session(FIXTURES / "omp-newer-entries.jsonl")
    stats = compute_stats(session.entries)
    assert stats.tokens["input"] == 3 * 1200 + 400
    assert "anthropic/claude-haiku-4-5" in stats.models
    pi = compute_stats(load_session(FIXTURES / "pi-roles-and-blocks.jsonl").entries)
    assert pi.tokens["input"] == 3 * 1200  # two assistant turns and the branch summary


def test_upstream_assistant_fixture_renders_its_thinking() -> None:
    message = json.loads((FIXTURES / "pi-mono" / "assistant-message-with-thinking-code.json").read_text())
    entry = {
        "type": "message",
        "id": "x",
        "parentId": None,
        "timestamp": "2026-01-01T00:00:00Z",
        "message": message,
    }
    meta, html = render_entry(entry, RenderContext())
    assert meta["cat"] == "assistant" and 'class="st-thinking"' in html
    thinking = next(b["thinking"] for b in message["content"] if b["type"] == "thinking")
    assert thinking.split()[0] in html
