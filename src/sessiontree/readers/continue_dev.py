"""Continue's sessions (``~/.continue/sessions/<id>.json``) read into the session model.

Read as Continue 1.3.40 writes them (``core/index.d.ts``: ``Session``, ``ChatHistoryItem``,
``ChatMessage``; ``core/util/paths.ts``: ``getSessionFilePath``; ``$CONTINUE_GLOBAL_DIR`` moves
``~/.continue`` on every OS). A session is one JSON object ``{sessionId, title, workspaceDirectory
(a file:// URI), history: [{message, contextItems, toolCallStates?, reasoning?}], chatModelTitle?,
usage?: {promptTokens, completionTokens, totalCost}}``. A message is ``{role: user | assistant |
thinking | tool | system, content: text | [{type: text | imageUrl}], toolCalls?: [{id, function:
{name, arguments}}], toolCallId?, usage?: {promptTokens, completionTokens, promptTokensDetails?:
{cachedTokens, cacheWriteTokens}}}``; a tool's result is a ``tool`` message, or, before those, the
output of its ``toolCallStates`` entry. The context items attached to a prompt (files, the
codebase) are shown as a notice, never as typed text. ``sessions.json`` beside (the list) is no session.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote

from sessiontree.readers.base import (
    Chain,
    as_str,
    dict_items,
    head_members,
    make_session,
    number_or_zero,
    read_whole_object,
    register,
    session_header,
    token_usage,
)
from sessiontree.readers.chat_messages import function_calls, text_of_content
from sessiontree.readers.cline import salvage_array
from sessiontree.store.bounded import read_head
from sessiontree.store.claude_markup import is_injected
from sessiontree.store.entries import dicts_of
from sessiontree.store.jsonl import BadLine, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

CONTINUE_KINDS = (LineKind("continue:context", "Context", show="meta", context=False, dumped=False),)
"""The context items a prompt carries (see ``store.kinds``)."""
add_kinds(CONTINUE_KINDS)

WHOLE_BYTES = 256 << 20
"""A session is parsed whole; a larger file is refused."""


def _usage(usage: Any) -> dict[str, Any] | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("promptTokensDetails")
    flat = {**usage, **(details if isinstance(details, dict) else {})}
    return token_usage(flat, ("promptTokens", "completionTokens", "cachedTokens", "cacheWriteTokens"))


def workspace_path(value: Any) -> str:
    """A session's workspace folder (Continue keeps it as a ``file://`` URI)."""
    uri = as_str(value) or ""
    return unquote(uri.removeprefix("file://")) if uri.startswith("file://") else uri


def _result_text(state: dict[str, Any]) -> str:
    texts = [
        str(item.get("content")) for item in dicts_of(state.get("output")) if as_str(item.get("content"))
    ]
    return "\n".join(texts) or f"[{as_str(state.get('status')) or 'no result'}]"


class _Made(Chain):
    def __init__(self, model: str | None) -> None:
        super().__init__()
        self.names: dict[str, str] = {}
        self.answered: set[str] = set()
        self.model = model

    def item(self, index: int, item: dict[str, Any]) -> None:
        message = item.get("message")
        message = message if isinstance(message, dict) else {}
        role, mid = message.get("role"), f"C{index}"
        content = message.get("content")
        if role == "user":
            texts = text_of_content(content)
            parts: list[dict[str, Any]] = [{"type": "text", "text": t} for t in texts if not is_injected(t)]
            for at, text in enumerate(t for t in texts if is_injected(t)):  # the extension's, not typed
                self.add(
                    {
                        "type": "custom",
                        "id": f"{mid}.i{at}",
                        "customType": "continue:context",
                        "content": text,
                    }
                )
            for part in dicts_of(content):
                url = part.get("imageUrl")
                data = (
                    as_str(url.get("url"))
                    if isinstance(url, dict) and part.get("type") == "imageUrl"
                    else None
                )
                if data is not None and data.startswith("data:") and ";base64," in data:
                    mime, _, body = data[5:].partition(";base64,")
                    parts.append({"type": "image", "data": body, "mimeType": mime or "image/png"})
            if parts:
                self.add({"type": "message", "id": mid, "message": {"role": "user", "content": parts}})
            names = [as_str(c.get("name")) or "context" for c in dicts_of(item.get("contextItems"))]
            if names:
                self.add({"type": "custom", "id": f"{mid}.ctx", "customType": "continue:context",
                          "content": "Context: " + ", ".join(names)})  # fmt: skip
        elif role in ("assistant", "thinking"):
            blocks: list[dict[str, Any]] = []
            reasoning = item.get("reasoning")
            thought = as_str(reasoning.get("text")) if isinstance(reasoning, dict) else None
            thoughts = [thought] if thought else []
            if role == "thinking":
                thoughts += text_of_content(content)
            blocks += [{"type": "thinking", "thinking": t} for t in thoughts]
            if role == "assistant":
                blocks += [{"type": "text", "text": t} for t in text_of_content(content)]
            blocks += function_calls(message.get("toolCalls"), self.names, mid)
            if blocks:
                made: dict[str, Any] = {"role": "assistant", "content": blocks}
                if self.model:
                    made["model"] = self.model
                if (usage := _usage(message.get("usage"))) is not None:
                    made["usage"] = usage
                self.add({"type": "message", "id": mid, "message": made})
            for at, state in enumerate(dicts_of(item.get("toolCallStates"))):
                cid = as_str(state.get("toolCallId"))
                if cid is not None and state.get("output") is not None:
                    self.result(f"{mid}.s{at}", cid, _result_text(state), state.get("status") == "errored")
        elif role == "tool":
            cid = as_str(message.get("toolCallId")) or mid
            self.result(mid, cid, "\n".join(text_of_content(content)), False)

    def result(self, mid: str, cid: str, text: str, failed: bool) -> None:
        if cid in self.answered:
            return
        self.answered.add(cid)
        result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, "tool"),
                  "content": [{"type": "text", "text": text}], "isError": failed}  # fmt: skip
        self.add({"type": "message", "id": mid, "message": result})


_HISTORY = re.compile(r'"history"\s*:\s*(?=\[)')


def salvage(path: Path) -> dict[str, Any]:
    """What a session cut short (or damaged) holds before the damage: its leading members and the
    history items before the cut."""
    text = decode_text(read_head(path, WHOLE_BYTES))
    found = _HISTORY.search(text)
    head = head_members(text[: found.start()] + "}") if found else None
    if found is None or not isinstance(head, dict):
        return {}
    return {**head, "history": salvage_array(text[found.end() :])}


class ContinueReader:
    """Continue's session files (one JSON object a session)."""

    agent: ClassVar[str] = "continue"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the session (read-only)."""
        document = read_whole_object(path, WHOLE_BYTES) or {}
        bad = [] if document else [BadLine(1, "the session is cut short or damaged", "")]
        if not document:
            document = salvage(path)
        made = _Made(as_str(document.get("chatModelTitle")))
        for index, item in dict_items(document.get("history"), "history item", bad):
            made.item(index, item)
        cost = document.get("usage")
        total = number_or_zero(cost.get("totalCost")) if isinstance(cost, dict) else 0
        replies = [e for e in made.entries if e.get("message", {}).get("role") == "assistant"]
        if total and replies:  # the session's cost, counted once: on its last reply
            usage = replies[-1]["message"].setdefault("usage", {"input": 0, "output": 0, "totalTokens": 0})
            usage["cost"] = total
        header = session_header(
            self.agent,
            as_str(document.get("sessionId")) or path.stem,
            workspace_path(document.get("workspaceDirectory") or document.get("workspacePath")),
            title=document.get("title"),
        )
        return make_session(path, header if document else {}, made.entries, bad, made.last_id())


class KiroReader(ContinueReader):
    """Kiro's chat sessions: Kiro's agent extension (``kiro.kiroagent``) keeps Continue's session
    shape, ``{sessionId, title, workspacePath, selectedModel, history: [{message: {role, content}}]}``,
    in ``<config>/Kiro/User/globalStorage/kiro.kiroagent/workspace-sessions/<encoded folder>/<id>.json``
    (``sessions.json`` beside is the list). Kiro is not public: the shape is the one its files have as
    public readers of them describe it (2026). A reply there is what the session file holds (often a
    short acknowledgement; the execution logs holding the full run are not read)."""

    agent: ClassVar[str] = "kiro"


register(ContinueReader())
register(KiroReader())
