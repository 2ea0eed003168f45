from __future__ import annotations

from sessiontree.store import build_session_context
from sessiontree.store.context import iso_to_millis
from tests.store.helpers import assistant, entry, msg


def _texts(messages: list[dict]) -> list[str]:  # type: ignore[type-arg]
    out = []
    for m in messages:
        if m["role"] in ("branchSummary", "compactionSummary"):
            out.append(f"{m['role']}:{m['summary']}")
        elif m["role"] == "custom":
            out.append(f"custom:{m['content']}")
        else:
            out.append(m["content"][0]["text"])
    return out


def test_none_leaf_gives_empty_context_and_unknown_leaf_falls_back_to_last() -> None:
    entries = [msg("a", None, "user", "u1"), assistant("b", "a", "a1")]
    empty = build_session_context(entries, None)
    assert empty.messages == [] and empty.thinking_level == "off" and empty.mode == "none"
    assert _texts(build_session_context(entries, "nope").messages) == ["u1", "a1"]
    assert _texts(build_session_context(entries).messages) == ["u1", "a1"]
    assert build_session_context([], "x").messages == []


def test_runtime_state_along_the_path() -> None:
    entries = [
        entry("thinking_level_change", "t1", None, thinkingLevel="high"),
        entry("model_change", "m1", "t1", model="openai/gpt-4o"),
        entry("model_change", "m2", "m1", model="x/small", role="smol"),
        entry("ttsr_injection", "r1", "m2", injectedRules=["ruleA", "ruleB"]),
        entry("ttsr_injection", "r2", "r1", injectedRules=["ruleB", "ruleC"]),
        entry("mode_change", "mo", "r2", mode="plan", data={"planFile": "/tmp/p.md"}),
        assistant("a1", "mo", model="other"),  # explicit default model wins over the assistant's
        entry("custom", "cu", "a1", customType="ext", data={}),
        entry("session_init", "si", "cu", systemPrompt="sys", tools=["read"]),
    ]
    ctx = build_session_context(entries, "si")
    assert ctx.thinking_level == "high"
    assert ctx.models == {"default": "openai/gpt-4o", "smol": "x/small"}
    assert ctx.injected_ttsr_rules == ["ruleA", "ruleB", "ruleC"]
    assert ctx.mode == "plan" and ctx.mode_data == {"planFile": "/tmp/p.md"}
    assert _texts(ctx.messages) == ["ok"]  # custom and session_init contribute nothing


def test_default_model_from_last_assistant_without_model_change() -> None:
    entries = [
        msg("u", None, "user"),
        assistant("a", "u", model="first"),
        assistant("b", "a", model="second"),
    ]
    assert build_session_context(entries).models == {"default": "prov/second"}


def test_custom_message_and_branch_summary_become_messages() -> None:
    entries = [
        msg("u", None, "user", "u1"),
        entry(
            "custom_message", "c", "u", customType="hook", content="injected", display=False, details={"k": 1}
        ),
        entry("branch_summary", "bs", "c", fromId="zz", summary="explored"),
        entry("branch_summary", "bs2", "bs", fromId="zz", summary=""),
    ]
    ctx = build_session_context(entries)
    assert _texts(ctx.messages) == ["u1", "custom:injected", "branchSummary:explored"]
    custom = ctx.messages[1]
    assert custom == {
        "role": "custom",
        "customType": "hook",
        "content": "injected",
        "display": False,
        "details": {"k": 1},
        "timestamp": iso_to_millis("2026-02-16T10:21:00.000Z"),
    }
    assert ctx.messages[2]["fromId"] == "zz"


def test_compaction_summary_first_then_kept_then_after() -> None:
    entries = [
        msg("1", None, "user", "old user"),
        assistant("2", "1", "old answer"),
        msg("3", "2", "user", "kept user"),
        assistant("4", "3", "kept answer"),
        entry("compaction", "c1", "4", summary="S1", firstKeptEntryId="3", tokensBefore=100),
        msg("5", "c1", "user", "after 1"),
        entry("compaction", "c2", "5", summary="S2", firstKeptEntryId="5", tokensBefore=200),
        assistant("6", "c2", "after 2"),
    ]
    ctx = build_session_context(entries, "6")
    # the latest compaction on the path wins
    assert _texts(ctx.messages) == ["compactionSummary:S2", "after 1", "after 2"]
    assert ctx.messages[0]["tokensBefore"] == 200
    ctx1 = build_session_context(entries, "5")
    assert _texts(ctx1.messages) == ["compactionSummary:S1", "kept user", "kept answer", "after 1"]


def test_compaction_with_unknown_first_kept_keeps_nothing_before() -> None:
    entries = [
        msg("1", None, "user", "old"),
        entry("compaction", "c", "1", summary="S", firstKeptEntryId="gone", tokensBefore=1),
        msg("2", "c", "user", "new"),
    ]
    assert _texts(build_session_context(entries).messages) == ["compactionSummary:S", "new"]


def test_branches_only_follow_the_leaf_path() -> None:
    entries = [msg("a", None, "user", "q"), assistant("b", "a", "one"), assistant("c", "a", "two")]
    assert _texts(build_session_context(entries, "b").messages) == ["q", "one"]
    assert _texts(build_session_context(entries, "c").messages) == ["q", "two"]


def test_parent_cycle_does_not_hang() -> None:
    entries = [msg("a", "b", "user", "x"), msg("b", "a", "user", "y")]
    assert _texts(build_session_context(entries, "b").messages) == ["x", "y"]
    self_parent = [msg("s", "s", "user", "z")]
    assert _texts(build_session_context(self_parent).messages) == ["z"]
