"""Aider's chat history (``<repo>/.aider.chat.history.md``) read into the session model.

Aider (Aider-AI/aider, ``aider/io.py``) appends to one Markdown file per repository: ``# aider chat
started at <local time>`` when it starts, each line the person typed as ``#### <line>``, the
model's reply as plain Markdown, and its own output (files added, edits applied, commits, errors,
``Tokens: 2.3k sent, 120 received. Cost: $0.01 message, $0.05 session.``) as ``> `` lines. Every
run is one part of the same file: a ``Aider started`` notice marks where each begins. An input
starting with ``/`` is a command (shown, not a prompt); the token line of a reply becomes its
usage, and the ``Model:`` line of a start names the replies' model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import make_session, register, session_header
from sessiontree.store.bounded import read_regular
from sessiontree.store.entries import Entry
from sessiontree.store.formats import is_aider_text
from sessiontree.store.jsonl import BadLine, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

AIDER_KINDS = (
    LineKind("aider:start", "Aider started", context=False),
    LineKind("aider:command", "Command", context=False),
    LineKind("aider:output", "Aider", show="meta", context=False),
)
"""Aider's lines that are not conversation (see ``store.kinds``)."""
add_kinds(AIDER_KINDS)

FILE_BYTES = 256 << 20
"""A history file larger than this is refused (one-line error)."""

_START = re.compile(r"^# aider chat started at (.+?)\s*$")
_TOKENS = re.compile(
    r"Tokens: ([\d.,]+)([kKmM]?) sent(?:, ([\d.,]+)([kKmM]?) cache write)?(?:, ([\d.,]+)([kKmM]?) cache hit)?"
    r", ([\d.,]+)([kKmM]?) received\.(?: Cost: \$([\d.,]+) (?:message|request))?"
)
_MODEL = re.compile(r"^(?:Main model|Model): (\S+)")


def _number(digits: str | None, unit: str | None) -> int:
    if not digits:
        return 0
    try:
        value = float(digits.replace(",", ""))
    except ValueError:
        return 0
    return int(value * {"k": 1e3, "m": 1e6}.get((unit or "").lower(), 1))


def usage_of(line: str) -> dict[str, Any] | None:
    """A ``Tokens: ... sent, ... received. Cost: $... message`` line as the store's usage."""
    found = _TOKENS.search(line)
    if found is None:
        return None
    g = found.groups()
    usage: dict[str, Any] = {
        "input": _number(g[0], g[1]),
        "output": _number(g[6], g[7]),
        "cacheRead": _number(g[4], g[5]),
        "cacheWrite": _number(g[2], g[3]),
    }
    usage["totalTokens"] = sum(usage.values())
    if g[8]:
        usage["cost"] = float(g[8].replace(",", ""))
    return usage


class _Made:
    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.model: str | None = None
        self.reply: dict[str, Any] | None = None

    def add(self, kind: str, **fields: Any) -> None:
        entry: Entry = {"type": kind, "id": f"A{len(self.entries) + 1}", **fields}
        entry["parentId"] = str(self.entries[-1]["id"]) if self.entries else None
        self.entries.append(entry)

    def block(self, kind: str, lines: list[str]) -> None:
        text = "\n".join(line.rstrip() for line in lines).strip("\n")
        if not text.strip():
            return
        if kind == "user":
            if text.lstrip().startswith("/"):
                self.add("custom", customType="aider:command", content=text)
            else:
                self.add("message", message={"role": "user", "content": [{"type": "text", "text": text}]})
            self.reply = None
        elif kind == "output":
            kept = []
            for line in text.split("\n"):
                usage = usage_of(line)
                model = _MODEL.match(line)
                if model is not None:
                    self.model = model[1]
                if usage is not None and self.reply is not None:
                    self.reply["usage"] = usage
                elif line.strip():
                    kept.append(line)
            if kept:
                self.add("custom", customType="aider:output", content="\n".join(kept))
        else:
            message: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
            if self.model:  # litellm's name: "anthropic/claude-…", or a bare "gpt-4o" (OpenAI's)
                provider, _, name = self.model.rpartition("/")
                message["provider"], message["model"] = provider or "openai", name
            self.add("message", message=message)
            self.reply = message


def _line_kind(raw: str) -> str:
    if raw.startswith("####"):
        return "user"
    if raw.startswith(">"):
        return "output"
    return "blank" if not raw.strip() else "reply"


def read_history(text: str) -> _Made:
    """The entries of a history file's text, block by block (a blank line ends an input or output)."""
    made = _Made()
    kind, lines = "reply", []  # type: tuple[str, list[str]]
    for raw in text.split("\n"):
        start = _START.match(raw)
        line_kind = _line_kind(raw)
        if start is not None:
            made.block(kind, lines)
            kind, lines = "reply", []
            made.model = None
            made.add("custom", customType="aider:start", content=f"Aider started at {start[1]}")
        elif line_kind in ("user", "output"):
            if kind != line_kind:
                made.block(kind, lines)
                kind, lines = line_kind, []
            lines.append(raw[4 if line_kind == "user" else 1 :].strip())
        elif kind != "reply":  # a blank line or the reply after an input or output
            made.block(kind, lines)
            kind, lines = "reply", [] if line_kind == "blank" else [raw]
        else:
            lines.append(raw)
    made.block(kind, lines)
    return made


class AiderReader:
    """Aider's ``.aider.chat.history.md``: every run of it, one after the other."""

    agent: ClassVar[str] = "aider"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the history (read-only)."""
        if path.stat().st_size > FILE_BYTES:
            return make_session(path, {}, [], [BadLine(1, "an Aider history larger than 256 MiB", "")], None)
        text = decode_text(read_regular(path, FILE_BYTES))
        if not is_aider_text(text.encode("utf-8", "surrogatepass")[:4096]):
            return make_session(path, {}, [], [BadLine(1, "not an Aider chat history", "")], None)
        made = read_history(text)
        header = session_header("aider", path.parent.name or path.stem, str(path.absolute().parent))
        last = str(made.entries[-1]["id"]) if made.entries else None
        return make_session(path, header, made.entries, [], last)


register(AiderReader())
