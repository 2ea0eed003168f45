"""Codex CLI rollouts read into the session model: one of each doubled record, calls of every version."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from sessiontree.store.session import Session
from tests.readers.helpers import CODEX_FILES, CODEX_NEW, CODEX_OLD, codex_role_counts


def roles(session: Session) -> Counter[str]:
    return Counter(m["role"] for m in map(message_of, session.entries) if m is not None)


@pytest.fixture(scope="module")
def new() -> Session:
    return load_any(CODEX_NEW)


def calls(session: Session) -> dict[str, dict]:
    return {
        b["id"]: b
        for e in session.entries
        for b in (message_of(e) or {}).get("content") or []
        if isinstance(b, dict) and b.get("type") == "toolCall"
    }


def results(session: Session) -> dict[str, dict]:
    return {
        m["toolCallId"]: m
        for m in map(message_of, session.entries)
        if m is not None and m["role"] == "toolResult"
    }


def test_header_instructions_and_models(new: Session) -> None:
    assert new.header["agent"] == "codex"
    assert new.id == "019b0000-aaaa-7bbb-8ccc-000000000001"
    assert new.cwd == "/home/dev/chess" and new.header["gitBranch"] == "main"
    init = new.session_init()
    assert init is not None and init["systemPrompt"] == "You are Codex, a coding agent."
    models = [e["model"] for e in new.entries if e["type"] == "model_change"]
    assert models == ["openai/gpt-5.1-codex", "openai/gpt-5.1-codex-max"]
    levels = [e["thinkingLevel"] for e in new.entries if e["type"] == "thinking_level_change"]
    assert levels == ["medium", "high"]


def test_doubled_records_show_once(new: Session) -> None:
    users = [m for m in map(message_of, new.entries) if m is not None and m["role"] == "user"]
    texts = [m["content"][0]["text"] for m in users]
    assert texts == ["Make the board render, see the sketch", "Now add a clock", "Continue with the clock"]
    thinking = [
        b for m in map(message_of, new.entries) if m for b in m["content"] if b.get("type") == "thinking"
    ]
    assert [b["thinking"] for b in thinking] == ["**Reading the board code**"]


def test_injected_context_is_hidden_not_dropped(new: Session) -> None:
    hidden = [e for e in new.entries if e["type"] == "custom_message"]
    kinds = [(e["customType"], e["display"]) for e in hidden]
    assert ("codex:developer", False) in kinds and ("codex:context", False) in kinds
    assert ("codex:turn_aborted", True) in kinds


def test_calls_of_each_version_pair_with_their_outputs(new: Session) -> None:
    found, outs = calls(new), results(new)
    assert set(found) == {"call_ls", "call_cat", "call_patch", ""} | (set(found) - set(outs))
    assert found["call_ls"]["name"] == "shell_command" and found["call_ls"]["arguments"]["command"] == "ls"
    assert found["call_cat"]["arguments"] == {"cmd": "cat board.js"}  # exec_command, as written
    assert outs["call_ls"]["isError"] is False and outs["call_cat"]["isError"] is True
    assert outs["call_patch"]["details"]["diff"].startswith("*** Begin Patch")
    assert outs["call_patch"]["content"][0]["text"].startswith("Success.")
    assert outs["call_patch"]["details"]["metadata"]["exit_code"] == 0
    for call_id, message in outs.items():
        assert message["toolName"] == found[call_id]["name"]


def test_one_reply_holds_its_reasoning_and_parallel_calls(new: Session) -> None:
    [reply] = [
        m for m in map(message_of, new.entries) if m and any(b.get("id") == "call_ls" for b in m["content"])
    ]
    assert [b["type"] for b in reply["content"]] == ["thinking", "toolCall", "toolCall"]
    assert reply["model"] == "gpt-5.1-codex" and reply["provider"] == "openai"
    # a token count reported twice counts once; cached input is a cache read
    assert reply["usage"] == {
        "input": 1000,
        "output": 120,
        "cacheRead": 4000,
        "cacheWrite": 0,
        "totalTokens": 5120,
    }


def test_image_prompt_compaction_and_unknown_lines(new: Session) -> None:
    [prompt] = [
        m for m in map(message_of, new.entries) if m and m["role"] == "user" and len(m["content"]) == 2
    ]
    assert prompt["content"][1]["type"] == "image" and prompt["content"][1]["mimeType"] == "image/png"
    [compaction] = [e for e in new.entries if e["type"] == "compaction"]
    assert compaction["summary"].startswith("Summary: the board renders")
    assert new.context().messages[0]["role"] == "compactionSummary"
    carried = {e["customType"]: e["data"] for e in new.entries if e["type"] == "custom"}
    assert carried["codex:future_line_kind"]["payload"] == {"anything": [1, 2]}  # the whole line
    assert carried["codex:event/exec_approval_request"]["command"] == ["rm", "-rf", "build"]
    assert "codex:ghost_snapshot" in carried


def test_the_old_format_with_crlf_and_argv_shell() -> None:
    session = load_any(CODEX_OLD)
    assert session.header["agent"] == "codex" and session.id == "0e0d0c0b-1111-4222-8333-444455556666"
    assert session.bad_lines == []
    assert session.session_init() is not None
    found, outs = calls(session), results(session)
    assert found["call_old"]["arguments"]["command"] == "ls"  # bash -lc ls shows as ls
    assert found["call_old"]["arguments"]["argv"] == ["bash", "-lc", "ls"]
    assert found["call_old2"]["arguments"]["command"] == "python3 -c 'import sys; sys.exit(2)'"
    assert outs["call_old"]["content"][0]["text"] == "a.txt\nb.txt\n"
    assert outs["call_old2"]["isError"] is True
    [user] = [m for m in map(message_of, session.entries) if m and m["role"] == "user"]
    assert user["content"][0]["text"] == "List the files\r\nplease"


@pytest.mark.parametrize("path", CODEX_FILES, ids=lambda p: p.name[-40:])
def test_every_codex_file_counts_match_the_raw_json(path: Path) -> None:
    session = load_any(path)
    assert session.header["agent"] == "codex"
    assert roles(session) == codex_role_counts(path)
    assert session.tree.roots == [session.entries[0]["id"]]
    assert len(session.path_entries()) == len(session.entries)  # linear


def test_a_corrupt_line_and_a_truncated_last_line(tmp_path: Path) -> None:
    lines = CODEX_NEW.read_text(encoding="utf-8").splitlines()
    broken = [*lines[:6], '{"type":"response_item","payload":{"type":"mess', *lines[6:]]
    broken[-1] = broken[-1][:20]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(broken), encoding="utf-8")
    session = load_any(path)
    assert [(b.lineno, b.reason.startswith("incomplete")) for b in session.bad_lines] == [
        (7, False),
        (len(broken), True),
    ]
    full = load_any(CODEX_NEW)
    assert roles(session) == roles(full)
    assert len(session.entries) == len(full.entries) - 1  # only the cut unknown last line is missing
