"""Mutated session files (deterministic): every kind of damage that once took a command down.

Three small base sessions, one per format (a generated pi session, a real Claude Code file, the
start of a real Codex CLI file), each damaged one way per file: truncated, lone surrogates, bad
UTF-8, NUL, BOM with CRLF, huge numbers, deep nesting, type confusion. ``write_mutants`` puts them
beside the unmutated bases in one folder; the commands over that folder must never fail, and every
good session must be in what they show.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.archive.sessions import generate
from tests.conftest import REAL

CLAUDE_BASE = (
    REAL
    / "claude"
    / (
        "claude-code-log--test_test_data_real_projects_-Users-dain-workspace-claude-code-log-sample_"
        "71c9afe9-d9cc-4583-86b3-e62ba682b83a.jsonl"
    )
)
CODEX_BASE = (
    REAL
    / "codex"
    / (
        "codex-session-view--.sample_session_rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    )
)
CODEX_LINES = 40
"""The Codex base is the first lines of a real file (whole turns; the rest only costs time)."""

DEEP = (1_200, 3_000, 100_000)
"""Nesting depths past the JSON decoder's recursion limit (900 still decodes)."""

Lines = list[dict[str, Any]]


@dataclass(frozen=True)
class Mutant:
    """One damaged file: its name, bytes, and whether it must still be listed as a session."""

    name: str
    data: bytes
    readable: bool = True
    """False when the damage leaves no session (the header itself destroyed)."""


def _dumps(lines: Lines) -> bytes:
    # ensure_ascii: a lone surrogate is written "\ud800", as a JavaScript agent writes half an emoji.
    return "".join(json.dumps(line) + "\n" for line in lines).encode("ascii")


def pi_base(marker: str) -> Lines:
    """A generated pi session whose header id and title carry ``marker``."""
    lines = generate(6, 7)
    lines[0]["id"] = f"pi-{marker}"
    lines[0]["title"] = f"pi {marker}"
    return lines


def claude_base(marker: str) -> Lines:
    """The small real Claude Code file, its session id made unique with ``marker``."""
    lines = [json.loads(t) for t in CLAUDE_BASE.read_text(encoding="utf-8").splitlines() if t.strip()]
    for line in lines:
        if "sessionId" in line:
            line["sessionId"] = f"claude-{marker}"
    return lines


def codex_base(marker: str) -> Lines:
    """The start of a real Codex CLI file, its session id made unique with ``marker``."""
    texts = CODEX_BASE.read_text(encoding="utf-8").splitlines()[:CODEX_LINES]
    lines = [json.loads(t) for t in texts if t.strip()]
    lines[0]["payload"]["id"] = f"codex-{marker}"
    return lines


BASES: dict[str, Callable[[str], Lines]] = {"pi": pi_base, "claude": claude_base, "codex": codex_base}


def _first(lines: Lines, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    return next(line for line in lines if match(line))


def _pi_user(lines: Lines) -> dict[str, Any]:
    line = _first(lines, lambda x: x.get("type") == "message" and x["message"].get("role") == "user")
    message: dict[str, Any] = line["message"]
    return message


def _pi_assistant(lines: Lines) -> dict[str, Any]:
    line = _first(lines, lambda x: x.get("type") == "message" and x["message"].get("role") == "assistant")
    message: dict[str, Any] = line["message"]
    return message


def _claude_user(lines: Lines) -> dict[str, Any]:
    return _first(lines, lambda x: x.get("type") == "user" and isinstance(x["message"].get("content"), str))


def _claude_assistant(lines: Lines) -> dict[str, Any]:
    return _first(lines, lambda x: x.get("type") == "assistant")


def _codex_user(lines: Lines) -> dict[str, Any]:
    return _first(
        lines, lambda x: x.get("type") == "event_msg" and x["payload"].get("type") == "user_message"
    )


def _codex_tokens(lines: Lines) -> dict[str, Any]:
    line = _first(lines, lambda x: x["payload"].get("type") == "token_count" and x["payload"].get("info"))
    usage: dict[str, Any] = line["payload"]["info"]["total_token_usage"]
    return usage


# Structural damage: each function changes parsed lines in place (one kind of damage per file).
def _surrogates_pi(lines: Lines) -> None:
    lines[0]["title"] = "cut \ud800 title"
    lines[0]["cwd"] = "/w/\udfff"
    _pi_user(lines)["content"] = [{"type": "text", "text": "first prompt \ud83d cut"}]
    _pi_assistant(lines)["content"].append({"type": "text", "text": "reply \udc00", "\ud800key": 1})


def _surrogates_claude(lines: Lines) -> None:
    _claude_user(lines)["message"]["content"] = "first prompt \ud83d cut"
    for line in lines:
        line["cwd"] = "/w/\udfff"


def _surrogates_codex(lines: Lines) -> None:
    lines[0]["payload"]["cwd"] = "/w/\udfff"
    _codex_user(lines)["payload"]["message"] = "first prompt \ud83d cut"


def _numbers_pi(lines: Lines) -> None:
    for line in lines:
        message = line.get("message")
        if isinstance(message, dict) and message.get("role") == "assistant":
            message["usage"] = {
                "input": 10**400, "output": -(10**30), "cacheRead": 1e308, "cacheWrite": 2**63,
                "totalTokens": 10**25, "cost": {"total": 1e400, "input": -1e400},
            }  # fmt: skip
            message["timestamp"] = 10**30
    lines[0]["timestamp"] = 10**40


def _numbers_claude(lines: Lines) -> None:
    for line in lines:
        if line.get("type") == "assistant":
            line["message"]["usage"] = {
                "input_tokens": 10**400,
                "output_tokens": 2**64,
                "cache_read_input_tokens": 1e400,
            }
            line["costUSD"] = 1e400


def _numbers_codex(lines: Lines) -> None:
    usage = _codex_tokens(lines)
    usage.update(input_tokens=10**400, output_tokens=2**64, cached_input_tokens=1e400, total_tokens=-(10**30))


_LIST, _DICT = ["x", "y"], {"k": ["v"]}


def _types_pi(lines: Lines) -> None:
    lines[0]["cwd"] = _LIST
    lines[0]["title"] = _DICT
    lines[0]["timestamp"] = _LIST
    kinds: dict[str, dict[str, Any]] = {}
    for line in lines[1:]:
        kinds.setdefault(line["type"], line)
    message = kinds["message"]
    message["timestamp"] = _DICT
    message["message"]["role"] = _LIST
    _pi_user(lines)["content"] = 42
    assistant = _pi_assistant(lines)
    assistant["usage"] = _LIST
    assistant["model"] = _DICT
    assistant["provider"] = _LIST
    for line in lines[1:]:
        if line.get("type") == "label":
            line["targetId"] = _LIST
            line["label"] = _DICT
        if line.get("type") == "model_change":
            line["model"] = _LIST
    lines[3]["id"] = _LIST  # an id used as a dict key
    lines[4]["parentId"] = _DICT
    lines.append({"type": "session_info", "id": "x1", "parentId": None, "name": _LIST})
    lines.append({"type": "title_change", "id": "x2", "parentId": "x1", "title": _DICT})


def _types_header_id(lines: Lines) -> None:
    lines[0]["id"] = _LIST


def _types_claude(lines: Lines) -> None:
    user = _claude_user(lines)
    user["uuid"] = _LIST
    user["timestamp"] = _DICT
    assistant = _claude_assistant(lines)
    assistant["parentUuid"] = _DICT
    assistant["message"]["id"] = _LIST
    assistant["message"]["model"] = _DICT
    assistant["message"]["usage"] = _LIST
    for line in lines:
        line["sessionId"] = _LIST
        line["cwd"] = _DICT


def _types_codex(lines: Lines) -> None:
    lines[0]["payload"]["id"] = _LIST
    lines[0]["payload"]["cwd"] = _DICT
    lines[0]["payload"]["timestamp"] = _LIST
    _codex_user(lines)["payload"]["message"] = _DICT
    for line in lines[1:]:
        line["timestamp"] = _LIST
    usage = _codex_tokens(lines)
    usage["input_tokens"] = _LIST


def _nul_pi(lines: Lines) -> None:
    lines[0]["title"] = "nul\x00title"
    _pi_user(lines)["content"] = [{"type": "text", "text": "first\x00prompt"}]


STRUCTURAL: dict[str, dict[str, Callable[[Lines], None]]] = {
    "pi": {
        "surrogates": _surrogates_pi,
        "numbers": _numbers_pi,
        "types": _types_pi,
        "header-id-type": _types_header_id,
        "nul-escaped": _nul_pi,
    },
    "claude": {"surrogates": _surrogates_claude, "numbers": _numbers_claude, "types": _types_claude},
    "codex": {"surrogates": _surrogates_codex, "numbers": _numbers_codex, "types": _types_codex},
}


def _deep_value(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


# Byte damage: each function takes a base file's bytes.
def _truncated_mid_line(data: bytes) -> bytes:
    last = data.rstrip(b"\n").rfind(b"\n")
    return data[: last + 1 + (len(data) - last) // 2]


def _truncated_mid_char(data: bytes) -> bytes:
    cut = data.rstrip(b"\n").rfind(b"\n") + 40
    return data[:cut] + "é€".encode()[:3]  # ends inside the euro sign


def _bad_utf8(data: bytes) -> bytes:
    lines = data.split(b"\n")
    # Every string value of line 2 but its type, and one of its keys; the last string value of
    # the header, with a surrogate written in UTF-8 (which no UTF-8 decoder takes).
    bad = lines[1].replace(b'": "', b'": "\xff\xfe\xc3(').replace(b'"type": "\xff\xfe\xc3(', b'"type": "')
    lines[1] = bad.replace(b', "', b', "\xc3', 1)
    cut = lines[0].rfind(b'": "') + 4
    lines[0] = lines[0][:cut] + b"\xed\xa0\x80" + lines[0][cut:]
    return b"\n".join(lines)


def _raw_nul(data: bytes) -> bytes:
    lines = data.split(b"\n")
    lines[2] = lines[2][:30] + b"\x00" + lines[2][30:]  # a bad line: NUL is no JSON
    return b"\n".join(lines) + b"\x00\x00\x00\n"


def _bom_crlf(data: bytes) -> bytes:
    return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")


def _deep_line(depth: int) -> Callable[[bytes], bytes]:
    def mutate(data: bytes) -> bytes:
        lines = data.split(b"\n")
        # A line of its own in the middle (its neighbours are read) and an entry holding it.
        lines.insert(3, b'{"type":"custom","deep":' + _deep_value(depth) + b"}")
        lines[5] = lines[5][:-1] + b',"deep":' + _deep_value(depth) + b"}"
        return b"\n".join(lines)

    return mutate


BYTES: dict[str, Callable[[bytes], bytes]] = {
    "truncated-mid-line": _truncated_mid_line,
    "truncated-mid-char": _truncated_mid_char,
    "bad-utf8": _bad_utf8,
    "raw-nul": _raw_nul,
    "bom-crlf": _bom_crlf,
    **{f"deep-{depth}": _deep_line(depth) for depth in DEEP},
}


def iter_mutants(formats: tuple[str, ...] = ("pi", "claude", "codex")) -> Iterator[Mutant]:
    """Every mutant of every base format, named ``<format>-<damage>.jsonl``."""
    for fmt in formats:
        make = BASES[fmt]
        for damage, mutate in STRUCTURAL[fmt].items():
            lines = copy.deepcopy(make(damage))
            mutate(lines)
            # A header whose id is no string is no header (the id is absent once contained).
            yield Mutant(f"{fmt}-{damage}.jsonl", _dumps(lines), readable=damage != "header-id-type")
        for damage, mutate_bytes in BYTES.items():
            yield Mutant(f"{fmt}-{damage}.jsonl", mutate_bytes(_dumps(make(damage))))
        yield Mutant(f"{fmt}-header-cut.jsonl", _dumps(make("header-cut"))[:25], readable=False)


@dataclass(frozen=True)
class MutantFolder:
    """A flat folder of mutants beside good sessions of every format."""

    root: Path
    good: dict[str, str]
    """File name -> session id of each unmutated session (each must be in every listing)."""
    mutants: list[Mutant]


def write_mutants(root: Path, formats: tuple[str, ...] = ("pi", "claude", "codex")) -> MutantFolder:
    """Write the good sessions and every mutant into ``root`` (a flat folder)."""
    root.mkdir(parents=True, exist_ok=True)
    good: dict[str, str] = {}
    for fmt in formats:
        name = f"{fmt}-good.jsonl"
        (root / name).write_bytes(_dumps(BASES[fmt]("good")))
        good[name] = f"{fmt}-good"
    mutants = list(iter_mutants(formats))
    for mutant in mutants:
        (root / mutant.name).write_bytes(mutant.data)
    return MutantFolder(root, good, mutants)
