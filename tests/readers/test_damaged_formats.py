"""Damaged files of the formats added in issue 41 (OpenCode export, Gemini CLI / Qwen Code chats,
Crush, Copilot CLI, Goose, Aider, Amp): cut short, or with any value of the wrong type, they load,
summarize and render with no exception, and the CLI answers in one line, never a traceback."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter.api import RenderOptions, render_session
from sessiontree.readers import load_any
from sessiontree.store.kinds import summarize
from tests.readers import test_aider, test_amp, test_copilot, test_goose
from tests.readers.helpers import FIXTURES, run
from tests.readers.opencode_db import export_document, fixture_session

BAD: tuple[Any, ...] = (None, 7, "x", [], {}, [None])


def _jsonl(lines: list[Any]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _crush_document() -> dict[str, Any]:
    from tests.readers.test_crush import MESSAGES

    rows = [{"id": m, "session_id": s, "role": r, "parts": p, "created_at": 1764000000 + i}
            for i, (m, s, r, p) in enumerate(MESSAGES) if s == "s1"]  # fmt: skip
    info = {"id": "s1", "title": "Cold cache", "prompt_tokens": 5, "completion_tokens": 2, "cost": 0.1,
            "created_at": 1764000000, "updated_at": 1764000009, "parent_session_id": None}  # fmt: skip
    return {"crushSession": info, "cwd": "/w", "messages": rows}


# name -> (the file's name, its JSON lines or object, or its text)
def _fixture(folder: str, pattern: str) -> str:
    return next((FIXTURES / folder).rglob(pattern)).read_text(encoding="utf-8")


def _records(folder: str, pattern: str) -> list[Any]:
    return [json.loads(line) for line in _fixture(folder, pattern).splitlines()]


SOURCES: dict[str, Callable[[], tuple[str, Any]]] = {
    "opencode-export": lambda: ("export.json", export_document(fixture_session())),
    "gemini-json": lambda: ("session-1.json", json.loads(_fixture("gemini/tmp", "*.json"))),
    "qwen-jsonl": lambda: ("q.jsonl", _records("qwen", "*.jsonl")),
    "crush-document": lambda: ("s1.json", _crush_document()),
    "copilot": lambda: ("events.jsonl", test_copilot.events()),
    "goose": lambda: ("g.jsonl", list(test_goose.LINES)),
    "aider": lambda: (".aider.chat.history.md", test_aider.HISTORY),
    "amp": lambda: (f"{test_amp.THREAD_ID}.json", test_amp.THREAD),
}  # fmt: skip


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    children = (
        value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    )
    for key, child in children:
        yield from _paths(child, (*at, key))


def _replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    out = copy.deepcopy(value)
    holder = out
    for key in at[:-1]:
        holder = holder[key]
    holder[at[-1]] = new
    return out


def _write(path: Path, content: Any) -> None:
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    elif isinstance(content, list):
        path.write_text(_jsonl(content), encoding="utf-8")
    else:
        path.write_text(json.dumps(content, indent=2), encoding="utf-8")


def _loads(path: Path) -> None:
    session = load_any(path)
    summarize(session)
    if not session.is_empty:
        render_session(session, RenderOptions(compress=False))


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_value_of_the_wrong_type_still_loads(name: str, tmp_path: Path) -> None:
    filename, content = SOURCES[name]()
    path = tmp_path / filename
    if isinstance(content, str):
        lines = content.split("\n")
        junk = ["#### ", ">", "####", "# aider chat started at"]
        variants = ["\n".join([*lines[:i], *junk, *lines[i:]]) for i in range(0, len(lines), 3)]
    else:
        places = list(_paths(content))[1:]
        step = max(1, len(places) // 70)  # every value of a small file, a spread of a large one
        variants = [_replaced(content, at, bad) for at in places[::step] for bad in BAD]
    for variant in variants:
        _write(path, variant)
        _loads(path)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_a_file_cut_anywhere_loads_and_the_cli_answers_in_one_line(name: str, tmp_path: Path) -> None:
    filename, content = SOURCES[name]()
    whole = tmp_path / ("whole-" + filename)
    _write(whole, content)
    data = whole.read_bytes()
    path = tmp_path / filename
    for cut in sorted({len(data) * k // 9 for k in range(9)} | {1, len(data) - 1}):
        path.write_bytes(data[:cut])
        _loads(path)
        code, out, err = run("inspect", str(path))
        assert code in (0, 1) and "Traceback" not in out + err, (cut, err)
        if code == 1:
            assert err.count("\n") == 1, err
