"""Any entry shape renders: malformed fields never crash the renderer or leak markup."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.exporter.render import RenderContext, render_entry
from tests.exporter.test_safety import audit

CATS = {"user", "assistant", "tool", "notice", "summary", "custom", "meta", "unknown"}
TEXT = st.lists(st.sampled_from([*"ab<>&\"'`*_[]()#:/\n\x1b", "javascript:", "<script>"]), max_size=12).map(
    "".join
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "toolCall", "image", "redactedThinking", "other"])},
    optional={
        "text": JSON,
        "thinking": JSON,
        "id": JSON,
        "name": JSON,
        "arguments": JSON,
        "data": JSON,
        "mimeType": JSON,
    },
)
MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(
            ["user", "assistant", "toolResult", "bashExecution", "pythonExecution", "custom", "branchSummary",
             "compactionSummary", "weird"]
        )
    },
    optional={
        "content": st.lists(BLOCK, max_size=3) | JSON,
        "toolCallId": JSON,
        "toolName": JSON,
        "isError": JSON,
        "details": JSON,
        "usage": JSON | st.dictionaries(st.sampled_from(["input", "output", "cacheRead", "cost"]), JSON),
        "stopReason": JSON,
        "errorMessage": JSON,
        "command": JSON,
        "code": JSON,
        "output": JSON,
        "exitCode": JSON,
        "summary": JSON,
        "model": JSON,
    },
)  # fmt: skip
ENTRY = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["message", "compaction", "branch_summary", "custom_message", "model_change",
             "thinking_level_change", "mode_change", "label", "session_init", "ttsr_injection", "custom",
             "new_kind"]
        ),
        "id": TEXT,
    },
    optional={
        "parentId": JSON,
        "timestamp": JSON,
        "message": MESSAGE | JSON,
        "summary": JSON,
        "content": JSON,
        "display": JSON,
        "customType": JSON,
        "label": JSON,
        "targetId": JSON,
        "model": JSON,
        "tools": JSON,
        "systemPrompt": JSON,
        "injectedRules": JSON,
        "tokensBefore": JSON,
        "data": JSON,
    },
)  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ENTRY, st.lists(ENTRY, max_size=3))
def test_any_entry_renders_one_inert_article(entry: dict[str, Any], others: list[dict[str, Any]]) -> None:
    ctx = RenderContext.for_entries([*others, entry], {})
    meta, html = render_entry(entry, ctx)
    assert meta["cat"] in CATS
    assert meta["id"] == entry["id"]
    assert isinstance(meta["preview"], str) and len(meta["preview"]) <= 120
    a = audit(html)
    assert a.problems == []
    assert a.tags[0] == "article"
    assert html.count("<article") == 1


def test_deeply_nested_values_render_a_note() -> None:
    deep: Any = "x"
    for _ in range(5000):
        deep = [deep]
    meta, html = render_entry({"type": "custom", "id": "c1", "data": deep}, RenderContext())
    assert meta["cat"] == "meta"
    assert "too deeply nested" in html
