"""Fixture paths and counts computed straight from the raw JSON lines (independent of the readers)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import struct
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sessiontree.cli import cli
from tests.conftest import REAL as REAL  # re-exported: the readers tests take it from here
from tests.conftest import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
TOUR = FIXTURES / "claude" / "tour" / "5e55a0b1-0000-4000-8000-00000000000a.jsonl"
TOUR_AGENT = TOUR.with_suffix("") / "subagents" / "agent-a1b2c3d.jsonl"
CODEX_NEW = next((FIXTURES / "codex").glob("rollout-2026-*.jsonl"))
CODEX_OLD = next((FIXTURES / "codex").glob("rollout-2025-*.jsonl"))
CLAUDE_FILES = sorted([*(FIXTURES / "claude").glob("*.jsonl"), TOUR, *(REAL / "claude").glob("*.jsonl")])
CODEX_FILES = sorted([*(FIXTURES / "codex").glob("*.jsonl"), *(REAL / "codex").glob("*.jsonl")])
REAL_FILES = sorted([*(REAL / "claude").glob("*.jsonl"), *(REAL / "codex").glob("*.jsonl")])
CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<user_shell_command>",
)


def raw_objects(path: Path) -> list[dict[str, Any]]:
    """Every line of a file that parses as a JSON object."""
    out = []
    for line in path.read_bytes().decode("utf-8", "replace").split("\n"):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def claude_role_counts(*paths: Path) -> Counter[str]:
    """Messages by role as a Claude file states them: one per reply id, one per tool_result block."""
    counts: Counter[str] = Counter()
    seen: set[str] = set()
    for path in paths:
        replies: set[str | None] = set()
        for obj in raw_objects(path):
            message, uuid = obj.get("message"), obj.get("uuid")
            if obj.get("type") not in ("user", "assistant") or not isinstance(message, dict):
                continue
            if not isinstance(uuid, str) or not uuid:
                continue
            if uuid in seen:
                continue
            seen.add(uuid)
            if obj["type"] == "assistant":
                reply = message.get("id")
                if reply is None or reply not in replies:
                    counts["assistant"] += 1
                replies.add(reply)
                continue
            if obj.get("isMeta") is True or obj.get("isCompactSummary") is True:
                continue
            content = message.get("content")
            blocks = content if isinstance(content, list) else []
            results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
            counts["toolResult"] += len(results)
            if not results or len(results) < len(blocks):
                counts["user"] += 1
    return +counts


def codex_role_counts(path: Path) -> Counter[str]:
    """Messages by role as a rollout states them: typed prompts, tool outputs, runs of model output."""
    counts: Counter[str] = Counter()
    in_reply = False
    objs = raw_objects(path)
    for obj in objs:
        kind = obj.get("type")
        payload: dict[str, Any] = obj["payload"] if isinstance(obj.get("payload"), dict) else obj
        if kind == "event_msg":
            if payload.get("type") == "turn_aborted":
                in_reply = False
            continue
        if kind == "compacted":
            in_reply = False
            continue
        if kind not in (
            "response_item",
            "message",
            "reasoning",
            "function_call",
            "function_call_output",
            "custom_tool_call",
            "custom_tool_call_output",
            "web_search_call",
            "local_shell_call",
        ):
            continue
        item = payload.get("type")
        role = payload.get("role")
        model_part = (
            item in ("function_call", "custom_tool_call", "web_search_call", "local_shell_call")
            or (item == "message" and role == "assistant")
            or (item == "reasoning" and (payload.get("summary") or payload.get("encrypted_content")))
        )
        if model_part:
            if not in_reply:
                counts["assistant"] += 1
            in_reply = True
        elif item in ("function_call_output", "custom_tool_call_output"):
            counts["toolResult"] += 1
            in_reply = False
        elif item == "message":
            in_reply = False
            texts = "".join(p.get("text", "") for p in payload.get("content") or [] if isinstance(p, dict))
            if role == "user" and not texts.lstrip().startswith(CONTEXT_PREFIXES):
                counts["user"] += 1
    return +counts


def populate_home(isolated_agent_dir: Path, gen_session: Callable[..., Path]) -> Path:
    """A home with the tour in ~/.claude/projects, a Codex rollout in ~/.codex/sessions and one of ours."""
    home = Path(os.environ["HOME"])
    shutil.copytree(TOUR.parent, home / ".claude" / "projects" / "-home-dev-tour")
    day = home / ".codex" / "sessions" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    shutil.copy(CODEX_NEW, day / CODEX_NEW.name)
    ours = isolated_agent_dir / "sessions" / "--home-dev-ours--"
    ours.mkdir(parents=True)
    shutil.copy(gen_session(4), ours / "2026-01-01T00-00-00-000Z_ours.jsonl")
    return home


def run(*args: str) -> tuple[int, str, str]:
    """Run ``sessiontree ARGS`` in this process: exit code, stdout, stderr."""
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def inspected(path: Path, agent: str) -> dict[str, Any]:
    """``inspect --json`` of a file its agent's reader is found for: the summary."""
    from sessiontree.readers import detect_agent

    assert detect_agent(path) == agent
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary: dict[str, Any] = json.loads(out)
    return summary


def st_data(html: str) -> dict[str, Any]:
    """The st-data JSON a session page carries (its entries, leaf, packed fragments)."""
    found = re.search(r'<script type="application/json" id="st-data">(.*?)</script>', html, re.S)
    assert found is not None, "no st-data in the page"
    data: dict[str, Any] = json.loads(found[1])
    return data


def tiny_png(rgb: bytes = b"\x10\x20\x30") -> str:
    """A valid one-pixel PNG of that colour, base64: an image a tool returned, for the page to show."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    head = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    body = chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(b"\x00" + rgb)) + chunk(b"IEND", b"")
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + body).decode()


def copilot_log(root: Path, sid: str, events: list[dict[str, Any]]) -> Path:
    """Copilot CLI's ``events.jsonl`` of those events, where it keeps it under a home at ROOT."""
    path = root / ".copilot" / "session-state" / sid / "events.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path
