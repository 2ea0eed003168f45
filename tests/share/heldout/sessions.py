"""Write held-out cases as pi, Claude Code and Codex session files, and score what a share left."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from tests.share.heldout.generate import Case
from tests.share.heldout.lookalikes import Lookalike

AGENTS = ("pi", "claude", "codex")
Line = dict[str, Any]


def _stamp(n: int) -> str:
    return f"2026-02-16T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"


TOOL_FIELDS = ("tool-args", "tool-output", "tool-pair")


def call_texts(case: Case) -> tuple[str, str]:
    """Return the command and the output of a case in a tool call (the case's text in one of them)."""
    if case.field == "tool-pair":
        return case.text, case.output
    return (case.text, "ok") if case.field == "tool-args" else ("cat notes.txt", case.text)


def _pi(cases: list[Case], looks: list[Lookalike], cwd: str) -> list[Line]:
    titles = [c.text for c in cases if c.field == "title"]
    header: Line = {"type": "session", "version": 3, "id": "4e1d0u7a4e1d0u7a", "timestamp": _stamp(0)}
    header["cwd"] = cwd
    if titles:
        header["title"] = " | ".join(titles)
    lines: list[Line] = [header]

    def add(**fields: Any) -> str:
        n = len(lines)
        parent = lines[-1]["id"] if n > 1 else None
        lines.append({"id": f"h{n:07d}", "parentId": parent, "timestamp": _stamp(n), **fields})
        return f"h{n:07d}"

    def message(role: str, content: Any, **extra: Any) -> str:
        return add(type="message", message={"role": role, "content": content, **extra})

    first = message("user", [{"type": "text", "text": "Set up the deployment."}])
    for i, case in enumerate(cases):
        if case.field == "user":
            message("user", [{"type": "text", "text": case.text}])
        elif case.field == "assistant":
            message("assistant", [{"type": "text", "text": case.text}], provider="p", model="m")
        elif case.field in TOOL_FIELDS:
            text, output = call_texts(case)
            call = {"type": "toolCall", "id": f"call_h{i}", "name": "bash", "arguments": {"command": text}}
            message("assistant", [call], provider="p", model="m")
            message(
                "toolResult", [{"type": "text", "text": output}], toolCallId=f"call_h{i}", toolName="bash"
            )
        elif case.field == "label":
            add(type="label", targetId=first, label=case.text)
    for i, (_, text, _) in enumerate(looks):
        if i % 2:
            message("user", [{"type": "text", "text": text}])
        else:
            call = {"type": "toolCall", "id": f"call_l{i}", "name": "bash", "arguments": {"command": "cat f"}}
            message("assistant", [call], provider="p", model="m")
            message("toolResult", [{"type": "text", "text": text}], toolCallId=f"call_l{i}", toolName="bash")
    return lines


def _claude(cases: list[Case], looks: list[Lookalike], cwd: str) -> list[Line]:
    lines: list[Line] = []
    session = "4e1d0u7a-0000-4000-8000-000000000001"

    def add(kind: str, message: Line) -> None:
        n = len(lines)
        parent = lines[-1]["uuid"] if lines and "uuid" in lines[-1] else None
        uuid = f"00000000-0000-4000-8000-{n:012d}"
        line = {"type": kind, "uuid": uuid, "parentUuid": parent, "timestamp": _stamp(n), "cwd": cwd}
        lines.append({**line, "sessionId": session, "version": "2.0.0", "message": message})

    def user(content: Any) -> None:
        add("user", {"role": "user", "content": content})

    def assistant(content: Any) -> None:
        n = len(lines)
        add("assistant", {"id": f"msg_{n:024d}", "role": "assistant", "model": "m", "content": content})

    user("Set up the deployment.")
    for i, case in enumerate(cases):
        if case.field in ("user", "label"):
            user(case.text)
        elif case.field == "assistant":
            assistant([{"type": "text", "text": case.text}])
        elif case.field in TOOL_FIELDS:
            command, output = call_texts(case)
            assistant(
                [{"type": "tool_use", "id": f"toolu_{i:024d}", "name": "Bash", "input": {"command": command}}]
            )
            user([{"type": "tool_result", "tool_use_id": f"toolu_{i:024d}", "content": output}])
    for i, (_, text, _) in enumerate(looks):
        if i % 2:
            user(text)
        else:
            assistant(
                [
                    {
                        "type": "tool_use",
                        "id": f"toolu_l{i:023d}",
                        "name": "Bash",
                        "input": {"command": "cat f"},
                    }
                ]
            )
            user([{"type": "tool_result", "tool_use_id": f"toolu_l{i:023d}", "content": text}])
    titles = [c.text for c in cases if c.field == "title"]
    if titles:
        lines.append({"type": "summary", "summary": " | ".join(titles), "leafUuid": lines[-1]["uuid"]})
    return lines


def _codex(cases: list[Case], looks: list[Lookalike], cwd: str) -> list[Line]:
    session = "4e1d0u7a-0000-4000-8000-000000000002"
    meta = {
        "id": session,
        "timestamp": _stamp(0),
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.63.0",
    }
    lines: list[Line] = [{"timestamp": _stamp(0), "type": "session_meta", "payload": meta}]

    def item(payload: Line) -> None:
        lines.append({"timestamp": _stamp(len(lines)), "type": "response_item", "payload": payload})

    def user(text: str) -> None:
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})

    def call(i: str, command: str, output: str) -> None:
        arguments = json.dumps({"command": ["bash", "-lc", command]})
        item({"type": "function_call", "name": "shell", "arguments": arguments, "call_id": f"call_{i}"})
        item({"type": "function_call_output", "call_id": f"call_{i}", "output": output})

    titles = [c.text for c in cases if c.field == "title"]
    user(" | ".join(titles) if titles else "Set up the deployment.")  # the first prompt is the title
    for i, case in enumerate(cases):
        if case.field in ("user", "label"):
            user(case.text)
        elif case.field == "assistant":
            item(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": case.text}],
                }
            )
        elif case.field in TOOL_FIELDS:
            call(f"c{i}", *call_texts(case))
    for i, (_, text, _) in enumerate(looks):
        if i % 2:
            user(text)
        else:
            call(f"l{i}", "cat f", text)
    return lines


WRITERS: dict[str, Callable[[list[Case], list[Lookalike], str], list[Line]]] = {
    "pi": _pi,
    "claude": _claude,
    "codex": _codex,
}


def write_agent_session(
    path: Path, agent: str, cases: list[Case], looks: list[Lookalike], cwd: str = "/home/dev/app"
) -> Path:
    """Write the cases and look-alikes as one session file of ``agent``'s format."""
    lines = WRITERS[agent](cases, looks, cwd)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@dataclass
class Score:
    """Secrets left and look-alikes masked, per kind and per placement."""

    secrets: Counter[str] = field(default_factory=Counter)
    left: list[tuple[str, Case]] = field(default_factory=list)  # (agent, case)
    lookalikes: int = 0
    masked: list[tuple[str, str, str]] = field(default_factory=list)  # (agent, kind, evidence)
    by_kind: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    by_placement: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))
    by_family: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    def add_case(self, agent: str, case: Case, survived: bool) -> None:
        """Count one case: found (masked) or left."""
        self.secrets[agent] += 1
        for table, name in (
            (self.by_kind, case.kind),
            (self.by_placement, case.placement),
            (self.by_family, case.family),
        ):
            table[name][0] += not survived
            table[name][1] += 1
        if survived:
            self.left.append((agent, case))

    def add_lookalike(self, agent: str, look: Lookalike, kept: bool) -> None:
        """Count one look-alike: kept or masked."""
        self.lookalikes += 1
        if not kept:
            self.masked.append((agent, look[0], look[2]))

    @property
    def total(self) -> int:
        """Return how many secret cases were scored."""
        return sum(self.secrets.values())

    @property
    def survived_share(self) -> float:
        """Return the share of secrets left on the page."""
        return len(self.left) / self.total if self.total else 0.0

    @property
    def masked_share(self) -> float:
        """Return the share of look-alikes masked."""
        return len(self.masked) / self.lookalikes if self.lookalikes else 0.0


def survived(case: Case, page: str) -> bool:
    """Tell whether the page still shows the case's value or a piece of it."""
    lowered = _lowered(page)
    # A piece on the page is on the lowered page too, unless it holds a capital sigma, which
    # lowers by its place in a word (str.lower's one rule by context): only then read the page.
    return any(e.lower() in lowered or ("Σ" in e and e in page) for e in case.evidence)


@lru_cache(maxsize=1)
def _lowered(page: str) -> str:
    """The page in lower case, made once for all the cases scored against it (not once a case)."""
    return page.lower()
