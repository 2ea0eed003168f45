"""Amp's threads (``$XDG_DATA_HOME/amp/threads/T-<uuid>.json``) read into the session model.

Amp (Sourcegraph) keeps each thread as one JSON object: ``{v, id: "T-…", created: <ms>, title?,
env: {initial: {trees: [{uri: "file:///…"}], cwd?}}, messages: [...]}``. A message is ``{role:
user | assistant | info, messageId, content: [...], meta?: {sentAt: <ms>}, state?: {type: complete
| streaming | cancelled | error, stopReason?, error?}, usage?: {model, inputTokens, outputTokens,
cacheCreationInputTokens, cacheReadInputTokens, timestamp?}}`` whose blocks are Anthropic's: ``text``,
``image`` (``source: {data, mediaType | media_type}``), ``thinking``, ``redacted_thinking``,
``tool_use`` (``id, name, input``); a user-role message carries ``tool_result`` blocks
(``toolUseID, run: {status: done | error | cancelled | rejected-by-user | in-progress, result?,
error?, reason?, progress?}``) and an info-role one a ``summary`` (a compaction) or a shell command the
person ran (``manual_bash_invocation``). A file cut short still shows every message before the cut.
Amp's releases since early 2026 keep threads on its server; this folder is what the CLI wrote before.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote

from sessiontree.readers.base import (
    Chain,
    as_str,
    dict_items,
    make_session,
    read_whole_object,
    register,
    session_header,
    tool_use_call,
)
from sessiontree.readers.opencode_layout import field, iso_time
from sessiontree.store.bounded import read_head
from sessiontree.store.entries import content_blocks
from sessiontree.store.jsonl import BadLine, decode_json_at, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

AMP_KINDS = (
    LineKind("amp:summary", "Summary", context=False, counted=True),
    LineKind("amp:shell", "Shell command", context=False),
    LineKind("amp:error", "Error", show="error", context=False, counted=True),
    LineKind("amp:cancelled", "Cancelled", context=False, counted=True),
)
"""Amp's records that are not conversation (see ``store.kinds``)."""
add_kinds(AMP_KINDS)

WHOLE_BYTES = 256 << 20
"""A thread is parsed whole; a larger file is refused."""

FAILED = frozenset({"error", "cancelled", "rejected-by-user"})
"""A tool run's statuses that are no result."""

_MESSAGES = re.compile(r'"messages"\s*:\s*\[')


def thread_cwd(thread: dict[str, Any]) -> str:
    """The folder a thread ran in: ``env.initial.cwd``, else its first tree's ``file://`` URI."""
    initial = field(field(thread, "env"), "initial")
    if as_str(initial.get("cwd")):
        return str(initial["cwd"])
    trees = initial.get("trees")
    for tree in trees if isinstance(trees, list) else []:
        uri = as_str(tree.get("uri")) if isinstance(tree, dict) else None
        if uri is not None:
            return unquote(uri.removeprefix("file://")) if uri.startswith("file://") else uri
    return ""


def salvage(text: str) -> dict[str, Any]:
    """The messages a thread cut short (or damaged) holds before the cut, as a thread object."""
    found = _MESSAGES.search(text)
    if found is None:
        return {}
    messages: list[Any] = []
    at = found.end()
    while True:
        at = len(text) - len(text[at:].lstrip(" \t\r\n,"))
        try:
            value, at = decode_json_at(text, at)
        except ValueError:
            break
        messages.append(value)
    head = text[: found.start()]
    ids = re.search(r'"id"\s*:\s*"(T-[^"]*)"', head)
    return {"id": ids[1] if ids else None, "messages": messages}


def _run_text(run: dict[str, Any]) -> str:
    value = next((run[k] for k in ("result", "error", "progress") if run.get(k) not in (None, "", [])), None)
    if value is None:
        return f"[{as_str(run.get('status')) or 'no result'}]"
    if isinstance(value, list) and all(isinstance(v, dict) and v.get("type") == "text" for v in value):
        return "\n".join(str(v.get("text", "")) for v in value)
    if isinstance(value, dict) and isinstance(value.get("output"), str):
        return str(value["output"])
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _usage(usage: dict[str, Any]) -> dict[str, float] | None:
    numbers: dict[str, float] = {
        # A number as written (store.sane says which are out of range), else none: 0.
        key: value if isinstance(value, int | float) and not isinstance(value, bool) else 0
        for key in ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")
        for value in (usage.get(key),)
    }
    if not any(numbers.values()):
        return None
    made = {
        "input": numbers["inputTokens"],
        "output": numbers["outputTokens"],
        "cacheRead": numbers["cacheReadInputTokens"],
        "cacheWrite": numbers["cacheCreationInputTokens"],
    }
    return {**made, "totalTokens": sum(made.values())}


class _Made(Chain):
    names: dict[str, str]

    def __init__(self) -> None:
        super().__init__()
        self.names = {}

    def notice(self, mid: str, kind: str, text: str, ts: str | None) -> None:
        self.add({"type": "custom", "id": mid, "customType": kind, "content": text}, ts)

    def message(self, index: int, record: dict[str, Any]) -> None:
        role = record.get("role")
        mid = f"A{index}"
        usage = field(record, "usage")
        stamp = usage.get("timestamp")  # a reply's time (newer files); a prompt has ``meta.sentAt``
        ts = iso_time(field(record, "meta").get("sentAt")) or (stamp if isinstance(stamp, str) else None)
        blocks = content_blocks(record.get("content"))
        content: list[dict[str, Any]] = []
        for at, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "text" and as_str(block.get("text")):
                content.append({"type": "text", "text": block["text"]})
            elif kind == "thinking" and as_str(block.get("thinking")):
                content.append({"type": "thinking", "thinking": block["thinking"]})
            elif kind == "image":
                source = field(block, "source")
                mime = as_str(source.get("mediaType")) or as_str(source.get("media_type")) or "image/png"
                if as_str(source.get("data")):
                    content.append({"type": "image", "data": source["data"], "mimeType": mime})
            elif kind == "tool_use":
                content.append(tool_use_call(block, self.names, f"{mid}.{at}"))
            elif kind == "tool_result":
                run = field(block, "run")
                cid = as_str(block.get("toolUseID")) or as_str(block.get("tool_use_id")) or f"{mid}.{at}"
                result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, "tool"),
                          "content": [{"type": "text", "text": _run_text(run)}],
                          "isError": as_str(run.get("status")) in FAILED}  # fmt: skip
                self.add({"type": "message", "id": f"{mid}.r{at}", "message": result}, ts)
            elif kind == "summary":
                summary = field(block, "summary")
                text = as_str(summary.get("summary")) or as_str(summary.get("thread")) or "summary"
                self.notice(f"{mid}.{at}", "amp:summary", text, ts)
            elif kind == "manual_bash_invocation":
                command = as_str(field(block, "args").get("cmd")) or ""
                output = field(block, "bashResult").get("output")
                shown = f"$ {command}" + (f"\n{output}" if isinstance(output, str) and output else "")
                self.notice(f"{mid}.{at}", "amp:shell", shown, ts)
        if content and role in ("user", "assistant"):
            message: dict[str, Any] = {"role": role, "content": content}
            if role == "assistant" and as_str(usage.get("model")):
                message["model"] = usage["model"]
            if role == "assistant" and (counted := _usage(usage)) is not None:
                message["usage"] = counted
            self.add({"type": "message", "id": mid, "message": message}, ts)
        state = field(record, "state")
        if state.get("type") == "error":
            error = state.get("error")
            text = as_str(field(state, "error").get("message")) or as_str(error) or "error"
            self.notice(f"{mid}.state", "amp:error", text, ts)
        elif state.get("type") == "cancelled":
            self.notice(f"{mid}.state", "amp:cancelled", "cancelled", ts)


def read_thread(path: Path) -> tuple[dict[str, Any], list[BadLine]]:
    """A thread's object (whole, or what a damaged file holds before the damage) and what was lost."""
    thread = read_whole_object(path, WHOLE_BYTES)
    if thread is not None:
        return thread, []
    text = decode_text(read_head(path, WHOLE_BYTES))
    return salvage(text), [BadLine(1, "the thread is cut short or damaged", text[-120:])]


class AmpReader:
    """Amp's thread files (one JSON object a thread)."""

    agent: ClassVar[str] = "amp"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the thread (read-only)."""
        thread, bad = read_thread(path)
        made = _Made()
        for index, record in dict_items(thread.get("messages"), "message", bad):
            made.message(index, record)
        header = session_header(
            "amp",
            as_str(thread.get("id")) or path.stem,
            thread_cwd(thread),
            timestamp=iso_time(thread.get("created")),
            title=thread.get("title"),
        )
        return make_session(path, header if thread else {}, made.entries, bad, made.last_id())


register(AmpReader())
