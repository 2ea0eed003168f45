"""The line decoder contains what a file holds: surrogates, numbers, nesting and wrong types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.store.jsonl import NESTING, decode_json, decode_line, decode_raw, parse_jsonl_lenient
from sessiontree.store.load import parse_session_text
from sessiontree.store.numbers import MAX_COUNT
from tests.store.helpers import header, msg, write_jsonl


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_lone_surrogates_become_replacement_characters_in_values_and_keys() -> None:
    value = decode_line('{"type":"x","a\\ud800b":["\\udfff",{"k":"\\ud83d cut"}],"pair":"\\ud83d\\ude00"}')
    assert value == {"type": "x", "a\ufffdb": ["\ufffd", {"k": "\ufffd cut"}], "pair": "\U0001f600"}
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # strict: nothing left to fail


def test_surrogates_deep_inside_a_900_deep_value_are_replaced_without_recursion() -> None:
    value = decode_json("[" * 899 + '"\\ud800"' + "]" * 899)
    for _ in range(899):
        value = value[0]
    assert value == "\ufffd"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9" * 400, MAX_COUNT),
        ("-" + "9" * 5000, -MAX_COUNT),  # past Python's 4,300-digit limit: still a number
        (str(2**63), MAX_COUNT),
        (str(MAX_COUNT), MAX_COUNT),
        (str(MAX_COUNT + 1), MAX_COUNT),
        ("123456789012345", 123456789012345),
        ("1e400", None),
        ("-1e400", None),
        ("1e300", float(MAX_COUNT)),
        ("0.25", 0.25),
        ("NaN", None),
        ("Infinity", None),
        ("-Infinity", None),
    ],
)
def test_numbers_are_clamped_while_decoding(text: str, expected: object) -> None:
    assert decode_json(f'{{"n":{text}}}') == {"n": expected}


@pytest.mark.parametrize("depth", [1_200, 3_000, 100_000])
def test_nesting_too_deep_is_a_value_error(depth: int) -> None:
    with pytest.raises(ValueError, match=NESTING):
        decode_line(deep(depth))
    with pytest.raises(ValueError, match=NESTING):
        decode_raw(deep(depth))


def test_nesting_900_deep_decodes() -> None:
    assert decode_line(deep(900)) is not None


def test_naming_fields_of_the_wrong_type_are_absent() -> None:
    line = {
        "type": ["message"],
        "id": ["a", "b"],
        "parentId": {"k": 1},
        "timestamp": [1],
        "uuid": 5,
        "cwd": None,
        "keep": ["carried"],
        "message": {
            "role": ["user"],
            "model": {"m": 1},
            "timestamp": 1760000000000,
            "content": [{"type": {"t": 1}, "text": ["x"], "id": "c1"}, "plain"],
        },
        "payload": {"type": ["message"], "call_id": 3, "arguments": "{}"},
    }
    assert decode_line(json.dumps(line)) == {
        "cwd": None,
        "keep": ["carried"],
        "message": {"timestamp": 1760000000000, "content": [{"id": "c1"}, "plain"]},
        "payload": {"arguments": "{}"},
    }


def test_fields_deeper_than_the_blocks_are_carried_untouched() -> None:
    # A tool's input schema may say "type": ["string", "null"]: data, not a line's name.
    call = {"type": "toolCall", "id": "c", "name": "t", "arguments": {"type": ["string", "null"], "id": [1]}}
    line = {"type": "message", "id": "a", "message": {"role": "assistant", "content": [call]}}
    assert decode_line(json.dumps(line)) == line


def test_a_line_of_several_values_is_contained_too() -> None:
    values, bad = parse_jsonl_lenient('{"id":"a\\ud800","n":1e999}{"id":[1],"type":"x"}\n')
    assert bad == []
    assert [v for _, v in values] == [{"id": "a\ufffd", "n": None}, {"type": "x"}]


def test_the_write_path_reads_values_as_written(tmp_path: Path) -> None:
    text = (
        json.dumps(header(title="t \ud800"))
        + "\n"
        + json.dumps(msg("a1", None, "user", "big", n=2**70))
        + "\n"
    )
    written = parse_session_text(text, contain=False)
    assert written.header["title"] == "t \ud800"
    assert written.entries[0]["message"]["n"] == 2**70
    read = parse_session_text(text)
    assert read.header["title"] == "t \ufffd"
    assert read.entries[0]["message"]["n"] == MAX_COUNT


def test_every_reader_gets_contained_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [
            header(title="cut \ud83d"),
            msg("a1", None, "user", "hi \udfff"),
            '{"type":"message","id":"a2","parentId":"a1","deep":' + deep(1_200) + "}",
            {**msg("a3", "a1", "assistant", "ok"), "id": ["a3"]},
        ],
    )
    session = load_any(path)
    assert session.header["title"] == "cut \ufffd"
    assert session.entries[0]["message"]["content"][0]["text"] == "hi \ufffd"
    assert [(b.lineno, b.reason) for b in session.bad_lines] == [(3, NESTING)]
    assert len(session.entries) == 2 and "id" not in session.entries[1]
