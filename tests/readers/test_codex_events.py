"""Codex CLI 0.116+ lines that are not typed prompts: an injected ``<turn_aborted>``, a rollback
(``thread_rolled_back``) and a web search, checked against counts computed from the raw lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.readers import load_any
from sessiontree.store.content import text_of
from tests.readers.helpers import FIXTURES, raw_objects

ROLLBACK = next((FIXTURES / "codex" / "rollback").glob("rollout-*.jsonl"))


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def _said(payload: dict[str, Any]) -> str:
    return "".join(p.get("text", "") for p in payload.get("content", []) if isinstance(p, dict))


def _conversation_minus_rollbacks(path: Path) -> list[tuple[str, str]]:
    """(role, text) of the typed prompts and replies, each rollback dropping its last N turns."""
    turns: list[list[tuple[str, str]]] = []
    for obj in raw_objects(path):
        payload = obj.get("payload") or {}
        if obj.get("type") == "event_msg" and payload.get("type") == "thread_rolled_back":
            del turns[len(turns) - payload["num_turns"] :]
        if obj.get("type") != "response_item" or payload.get("type") != "message":
            continue
        text = _said(payload)
        if payload["role"] == "user" and not text.startswith("<"):
            turns.append([("user", text)])
        elif payload["role"] == "assistant" and turns:
            turns[-1].append(("assistant", text))
    return [said for turn in turns for said in turn]


def test_a_rollback_moves_the_leaf_back_and_leaves_the_undone_turns_a_side_branch() -> None:
    session = load_any(ROLLBACK)
    tree = session.tree
    path = session.path_entries()
    ctx = session.context()
    said = [
        (m["role"], text_of(m["content"]))
        for m in ctx.messages
        if m["role"] in ("user", "assistant") and text_of(m["content"])
    ]
    assert said == _conversation_minus_rollbacks(ROLLBACK)
    undone = [
        e
        for e in session.entries
        if text_of((e.get("message") or {}).get("content")) == "Write it as a separate module"
    ]
    assert len(undone) == 1 and undone[0] not in path and undone[0]["id"] in tree.by_id
    assert len(tree.branch_points) == 1 and len(tree.roots) == 1
    notice = next(e for e in path if e.get("customType") == "codex:event/thread_rolled_back")
    assert notice["content"].startswith("2 turns undone")
    dump = _run("dump", "--stdout", str(ROLLBACK))
    assert "Write it as a separate module" not in dump and "Created probes.py." not in dump
    assert dump.count("Also add a readiness probe") == 1  # the redone prompt, once


def test_turn_aborted_is_one_interrupted_notice_and_no_prompt() -> None:
    session = load_any(ROLLBACK)
    aborted = [e for e in session.entries if e.get("customType") == "codex:turn_aborted"]
    assert [e["content"] for e in aborted] == ["Interrupted by the user"]  # the message and its event: once
    summary = json.loads(_run("inspect", "--json", str(ROLLBACK)))
    items = [o["payload"] for o in raw_objects(ROLLBACK) if o["type"] == "response_item"]
    typed = [p for p in items if p.get("role") == "user" and not _said(p).startswith("<")]
    assert summary["prompts"] == len(typed) == summary["message_roles"]["user"] == 4
    rendered = render_session(session, RenderOptions(compress=False))
    frags = rendered.frags.value()
    assert isinstance(frags, list)
    by_id = dict(zip((m["id"] for m in rendered.entries), frags, strict=True))
    frag = by_id[aborted[0]["id"]]
    assert '<span class="st-role">Interrupted</span>' in frag and "turn_aborted" not in frag


def test_a_web_search_is_a_chip_with_its_query() -> None:
    session = load_any(ROLLBACK)
    rendered = render_session(session, RenderOptions(compress=False))
    frags = rendered.frags.value()
    assert isinstance(frags, list)
    frag = next(f for f in frags if 'data-tool="web_search"' in f)
    assert "Search</span>" in frag and "fastapi health check endpoint best practice" in frag
    assert "&#34;query&#34;" not in frag and "st-json" not in frag
    assert 'data-status="success"' in frag  # done by the model's server: no result entry will come
