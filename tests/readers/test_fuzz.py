"""Fuzz: Claude- and Codex-shaped lines of any shape never crash a reader, the tree or the renderer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.exporter.api import RenderOptions, render_session
from sessiontree.readers import load_any
from sessiontree.store.summary import summarize_session

UUIDS = ["u1", "u2", "u3", "a1", "a2", None]
json_leaf = st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=True) | st.text(max_size=8)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["type", "text", "id", "x"]), inner, max_size=3)
    ),
    max_leaves=8,
)

claude_block = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["text", "thinking", "tool_use", "tool_result", "image", "redacted_thinking", "zzz"]
        )
    },
    optional={
        "text": json_value,
        "thinking": json_value,
        "id": st.sampled_from(["t1", "t2", 5]),
        "tool_use_id": st.sampled_from(["t1", "t2", None]),
        "name": json_value,
        "input": json_value,
        "content": json_value,
        "is_error": json_value,
        "source": json_value,
    },
)
claude_line = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["user", "assistant", "system", "summary", "progress", "file-history-snapshot", "x"]
        )
    },
    optional={
        "uuid": st.sampled_from(UUIDS),
        "parentUuid": st.sampled_from(UUIDS),
        "logicalParentUuid": st.sampled_from(UUIDS),
        "sessionId": st.just("s"),
        "isSidechain": json_value,
        "isMeta": json_value,
        "isCompactSummary": json_value,
        "subtype": st.sampled_from(["compact_boundary", "x", 3]),
        "message": st.fixed_dictionaries(
            {},
            optional={
                "id": st.sampled_from(["m1", "m2", 3]),
                "role": json_value,
                "model": json_value,
                "content": st.lists(claude_block | json_value, max_size=4) | json_value,
                "usage": json_value,
                "stop_reason": json_value,
            },
        )
        | json_value,
        "toolUseResult": json_value,
        "content": json_value,
        "summary": json_value,
        "leafUuid": json_value,
        "compactMetadata": json_value,
        "costUSD": json_value,
        "timestamp": json_value,
        "cwd": json_value,
    },
)
codex_payload = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "reasoning",
                "function_call",
                "function_call_output",
                "custom_tool_call",
                "custom_tool_call_output",
                "token_count",
                "user_message",
                "turn_aborted",
                "zzz",
            ]
        )
    },
    optional={
        "role": st.sampled_from(["user", "assistant", "developer", 1]),
        "content": json_value,
        "summary": json_value,
        "name": json_value,
        "arguments": json_value | st.just('{"command": ["ls"]}'),
        "call_id": st.sampled_from(["c1", "c2", None]),
        "output": json_value | st.just('{"output": 1}'),
        "input": json_value,
        "info": json_value,
        "message": json_value,
        "id": json_value,
    },
)
codex_line = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["session_meta", "response_item", "event_msg", "turn_context", "compacted", "q"]
        ),
        "payload": codex_payload | json_value,
    },
    optional={"timestamp": json_value},
)


def _write(path: Path, lines: list[Any], cut: int) -> Path:
    data = "\n".join(json.dumps(v) for v in lines).encode() + b"\n"
    path.write_bytes(data[: len(data) - cut] if cut else data)
    return path


def _check(path: Path, agent: str) -> None:
    assert load_any(path) is not None  # detection on any content
    session = load_any(path, agent)
    ids = [e["id"] for e in session.entries]
    assert len(ids) == len(set(ids))
    assert all(isinstance(i, str) for i in ids)
    summarize_session(session)
    session.path_entries()
    session.context()
    rendered = render_session(session, RenderOptions(compress=False))
    assert len(rendered.entries) == len(session.entries)
    rendered.frags.close()


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(lines=st.lists(claude_line, min_size=1, max_size=10), cut=st.integers(0, 5))
def test_claude_shaped_lines_never_crash(tmp_path: Path, lines: list[Any], cut: int) -> None:
    _check(_write(tmp_path / "c.jsonl", lines, cut), "claude")


@SETTINGS
@given(lines=st.lists(codex_line, min_size=1, max_size=10), cut=st.integers(0, 5))
def test_codex_shaped_lines_never_crash(tmp_path: Path, lines: list[Any], cut: int) -> None:
    _check(
        _write(tmp_path / "x.jsonl", [{"type": "session_meta", "payload": {"id": "s"}}, *lines], cut), "codex"
    )
