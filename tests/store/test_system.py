from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.errors import InputFileError
from sessiontree.store import Session
from sessiontree.store.system import canonical_tools, read_text_file, read_tools_file
from tests.store.helpers import entry, header, msg


def test_canonical_tools_from_every_schema() -> None:
    tools = canonical_tools(
        [
            "read",
            {"name": "bash", "description": "Run", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "grep", "parameters": {"type": "object"}}},
            {"name": "edit", "input_schema": {"type": "object"}},
            {"description": "no name"},
            42,
            "",
        ]
    )
    assert tools == [
        {"name": "read"},
        {"name": "bash", "description": "Run", "parameters": {"type": "object"}},
        {"name": "grep", "parameters": {"type": "object"}},
        {"name": "edit", "parameters": {"type": "object"}},
    ]
    assert canonical_tools({"tools": ["x"]}) == [{"name": "x"}]
    assert canonical_tools("nope") == []


def test_tool_and_prompt_files(tmp_path: Path) -> None:
    good = tmp_path / "tools.json"
    good.write_text(json.dumps([{"name": "read", "description": "Read a file"}]))
    assert read_tools_file(good) == [{"name": "read", "description": "Read a file"}]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputFileError, match="is not valid JSON"):
        read_tools_file(bad)
    empty = tmp_path / "empty.json"
    empty.write_text('[{"nameless": 1}]')
    with pytest.raises(InputFileError, match="No tools found"):
        read_tools_file(empty)
    with pytest.raises(InputFileError, match="File not found"):
        read_text_file(tmp_path / "missing.md")
    with pytest.raises(InputFileError, match="is a directory"):
        read_text_file(tmp_path)


def test_session_init_is_the_last_one_on_the_path() -> None:
    entries = [
        entry("session_init", "i1", None, systemPrompt="first"),
        msg("u", "i1", "user"),
        entry("session_init", "i2", "u", systemPrompt="second"),
        entry("session_init", "i3", "u", systemPrompt="other branch"),
    ]
    session = Session(header=header(), entries=entries, leaf_id="i2")
    assert session.session_init() is entries[2]
    assert session.session_init("i3") is entries[3]
    assert session.session_init("u") is entries[0]
    assert Session(header=header(), entries=[msg("u", None, "user")], leaf_id="u").session_init() is None
