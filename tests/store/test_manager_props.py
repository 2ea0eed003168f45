"""Property: whatever mix of operations runs, the file loads back to the manager's entries."""

from __future__ import annotations

import base64
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager

IMAGE = base64.b64encode(bytes(range(256)) * 4).decode()

# Lone surrogates included: JavaScript strings allow them and they must survive a round trip.
texts = st.text(
    st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", "\n", "\u2028"])), max_size=30
)
roles = st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom"])
operations = st.lists(
    st.one_of(
        st.tuples(st.just("message"), roles, texts, st.booleans()),
        st.tuples(st.just("thinking"), st.sampled_from(["off", "low", "high"])),
        st.tuples(st.just("model"), texts),
        st.tuples(st.just("custom"), texts),
        st.tuples(st.just("label"), st.integers(0, 50), st.one_of(st.none(), texts)),
        st.tuples(st.just("branch"), st.integers(0, 50)),
        st.tuples(st.just("summary"), st.integers(-1, 50), texts),
        st.tuples(st.just("reset")),
        st.tuples(st.just("name"), texts),
        st.tuples(st.just("rewrite")),
        st.tuples(st.just("flush")),
    ),
    max_size=40,
)


def apply(manager: SessionManager, op: tuple[Any, ...]) -> None:
    ids = [e["id"] for e in manager.get_entries()]
    kind = op[0]
    if kind == "message":
        _, role, text, with_image = op
        content: Any = [{"type": "text", "text": text}]
        if with_image:
            content.append({"type": "image", "data": IMAGE, "mimeType": "image/png"})
        manager.append_message({"role": role, "content": content})
    elif kind == "thinking":
        manager.append_thinking_level_change(op[1])
    elif kind == "model":
        manager.append_model_change(f"p/{op[1]}")
    elif kind == "custom":
        manager.append_custom_entry("ext", {"text": op[1]})
    elif kind == "label" and ids:
        manager.append_label_change(ids[op[1] % len(ids)], op[2])
    elif kind == "branch" and ids:
        manager.branch(ids[op[1] % len(ids)])
    elif kind == "summary":
        target = ids[op[1] % len(ids)] if ids and op[1] >= 0 else None
        manager.branch_with_summary(target, op[2])
    elif kind == "reset":
        manager.reset_leaf()
    elif kind == "name":
        manager.set_session_name(op[1])
    elif kind == "rewrite":
        manager.rewrite_entries()
    elif kind == "flush":
        manager.flush()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_file_matches_memory_after_any_operations(ops: list[tuple[Any, ...]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        manager = SessionManager.create(root / "proj", agent_dir=root / "agent", term="t")
        for op in ops:
            apply(manager, op)
        manager.close()
        assert manager.session_file is not None
        has_answer = any(e.get("message", {}).get("role") == "assistant" for e in manager.get_entries())
        if not has_answer:
            assert not manager.session_file.exists()  # nothing before the first assistant message
            return
        loaded = load_session(manager.session_file, agent_dir=root / "agent")
        assert loaded.bad_lines == [] and loaded.missing_blobs == []
        assert loaded.header == manager.header
        assert loaded.entries == manager.get_entries()
        parents = {e["id"]: e["parentId"] for e in loaded.entries}
        assert all(p is None or p in parents for p in parents.values())
