"""Cline's, Roo Code's and Kilo Code's task folders read into the session model.

The three VS Code extensions (Roo Code forked Cline, Kilo Code forked Roo Code) keep one folder a
task under their global storage (``<host>/User/globalStorage/<extension id>/tasks/<task id>/``, the
Cline CLI under ``~/.cline/data/tasks/``), read here as Cline 4.1.13 (``apps/vscode``,
``core/storage/disk.ts``, ``shared/ExtensionMessage.ts``) and Roo Code 3.52.1
(``core/task-persistence``) write it:

- ``api_conversation_history.json``: one JSON array of Anthropic messages ``{role, content, ts?}``
  (Roo Code adds ``ts``), blocks ``text``, ``image``, ``thinking``, ``tool_use``, ``tool_result``.
  What the person typed is inside ``<task>``, ``<feedback>``, ``<answer>`` or ``<user_message>``
  of a user text block; everything else the extension writes into the user's turn (environment
  details, tool results of the XML-tool era, resumption notes) is a notice, never a prompt.
- ``ui_messages.json``: the task's UI messages ``{ts, type: say | ask, say?, ask?, text?}``; each
  ``api_req_started``'s text is ``{tokensIn, tokensOut, cacheWrites, cacheReads, cost}``, one a
  request: the usage of the replies in order, their times, and the prompts' times.
- ``task_metadata.json``: ``model_usage: [{ts, model_id, model_provider_id}]``, the model.

The session file is ``api_conversation_history.json`` (its task folder's id is the session's); which
of the three agents wrote it is told by the extension folder it is in (``store.formats.task_agent``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    Chain,
    as_str,
    dict_items,
    image_block,
    make_session,
    number_or_zero,
    read_json_file,
    register,
    session_header,
    token_usage,
    tool_result_message,
    tool_use_call,
)
from sessiontree.readers.opencode_layout import iso_time
from sessiontree.store.bounded import read_head
from sessiontree.store.entries import content_blocks, dicts_of
from sessiontree.store.jsonl import BadLine, decode_json_at, decode_text
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

CLINE_KINDS = (LineKind("cline:context", "Context", show="meta", context=False, dumped=False),)
"""What the extensions write into the user's turn (see ``store.kinds``)."""
add_kinds(CLINE_KINDS)

HISTORY = "api_conversation_history.json"
UI_MESSAGES = "ui_messages.json"
METADATA = "task_metadata.json"

WHOLE_BYTES = 256 << 20
"""A task's file is parsed whole; a larger one is refused."""

_TYPED = re.compile(r"<(task|feedback|answer|user_message)>\s*(.*?)\s*</\1>", re.DOTALL)
XML_TOOLS = (
    "read_file", "write_to_file", "replace_in_file", "apply_diff", "insert_content", "search_and_replace",
    "execute_command", "search_files", "list_files", "list_code_definition_names", "codebase_search",
    "browser_action", "use_mcp_tool", "access_mcp_resource", "ask_followup_question", "attempt_completion",
    "new_task", "plan_mode_respond", "switch_mode", "update_todo_list", "fetch_instructions", "new_rule",
    "load_mcp_documentation", "web_fetch", "condense", "summarize_task", "report_bug",
)  # fmt: skip
"""The tools of the XML-tool era (before native tool calls), written as tags in a reply's text."""
_XML_CALL = re.compile(r"<(" + "|".join(XML_TOOLS) + r")>(.*?)</\1>", re.DOTALL)
_XML_PARAM = re.compile(r"<([a-z_]+)>\n?(.*?)\n?</\1>", re.DOTALL)
_THINKING = re.compile(r"<thinking>\s*(.*?)\s*</thinking>", re.DOTALL)
_XML_RESULT = re.compile(r"\[(\w+)(?: for [^\n]*?)?\] Result:\s*")
_CWD = re.compile(r"Current (?:Working|Workspace) Directory \(([^)\n]+)\)")


def salvage_array(text: str) -> list[Any]:
    """The items a JSON array cut short (or damaged) holds before the cut."""
    at = len(text) - len(text.lstrip())
    if not text.startswith("[", at):
        return []
    items: list[Any] = []
    at += 1
    while True:
        at = len(text) - len(text[at:].lstrip(" \t\r\n,"))
        try:
            value, at = decode_json_at(text, at)
        except ValueError:
            return items
        items.append(value)


def read_array(path: Path, bad: list[BadLine] | None = None) -> list[Any]:
    """A task file's array (whole, or the items before damage; a missing file: none)."""
    try:
        value = read_json_file(path, WHOLE_BYTES)
    except FileNotFoundError:
        return []
    except ValueError:
        text = decode_text(read_head(path, WHOLE_BYTES))
        if bad is not None:
            bad.append(BadLine(1, f"{path.name} is cut short or damaged", text[-120:]))
        return salvage_array(text)
    return value if isinstance(value, list) else []


def request_usages(ui: list[Any]) -> list[tuple[str | None, dict[str, Any] | None]]:
    """(time, usage) of each API request a task's UI messages record, in order."""
    found: list[tuple[str | None, dict[str, Any] | None]] = []
    for message in dicts_of(ui):
        if message.get("say") != "api_req_started":
            continue
        try:
            info = json.loads(message["text"]) if isinstance(message.get("text"), str) else {}
        except ValueError:
            info = {}
        info = info if isinstance(info, dict) else {}
        usage = token_usage(info, ("tokensIn", "tokensOut", "cacheReads", "cacheWrites"))
        if number_or_zero(info.get("cost")):
            usage = usage or {"input": 0, "output": 0, "totalTokens": 0}
            usage["cost"] = number_or_zero(info.get("cost"))
        found.append((iso_time(message.get("ts")), usage))
    return found


def prompt_times(ui: list[Any]) -> list[str | None]:
    """The times of what the person typed, in order: the task, then each feedback or answer."""
    times = []
    for index, message in enumerate(dicts_of(ui)):
        if message.get("say") in ("task", "user_feedback") or (index == 0 and message.get("say") == "text"):
            times.append(iso_time(message.get("ts")))
    return times


def split_typed(text: str, plain_is_typed: bool = True) -> tuple[list[str], str]:
    """What the person typed in a user text block, and what the extension wrote around it (plain
    text with no tag is typed too, unless it is a tool's result: ``plain_is_typed``)."""
    typed = [m[2] for m in _TYPED.finditer(text) if m[2].strip()]
    rest = _TYPED.sub("", text).strip()
    if plain_is_typed and not typed and rest and not rest.startswith(("[", "<")) and "<" not in rest:
        return [rest], ""  # plain text, nothing wrapped: typed
    return typed, rest


def task_cwd(history: list[Any]) -> str:
    """The folder a task ran in, as its environment details name it."""
    for message in dicts_of(history)[:4]:
        content = message.get("content")
        texts = [content] if isinstance(content, str) else [b.get("text") for b in content_blocks(content)]
        for text in texts:
            found = _CWD.search(text) if isinstance(text, str) else None
            if found:
                return found[1].strip()
    return ""


class _Made(Chain):
    def __init__(
        self, usages: list[tuple[str | None, dict[str, Any] | None]], times: list[str | None]
    ) -> None:
        super().__init__()
        self.usages = usages
        self.times = times
        self.names: dict[str, str] = {}
        self.pending: list[str] = []  # XML-era calls not answered yet, oldest first
        self.model: str | None = None

    def user(self, mid: str, blocks: list[dict[str, Any]], ts: Any) -> None:
        prompt: list[dict[str, Any]] = []
        around: list[str] = []
        result: dict[str, Any] | None = None  # an XML-era tool's result, its text in the next block
        for at, block in enumerate(blocks):
            kind = block.get("type")
            text = block.get("text") if kind == "text" else None
            header = _XML_RESULT.match(text) if isinstance(text, str) else None
            if header is not None:
                result = self.xml_result(f"{mid}.r{at}", header[1], ts)
                text = text[header.end() :]  # type: ignore[index]
            elif (
                result is not None and isinstance(text, str) and not text.lstrip().startswith("<environment")
            ):
                typed, rest = split_typed(text, plain_is_typed=False)  # feedback is typed in <feedback>
                prompt += [{"type": "text", "text": t} for t in typed]
                result["content"][0]["text"] += rest
                result = None
                continue
            if isinstance(text, str):
                typed, rest = split_typed(text) if header is None else ([], text)
                prompt += [{"type": "text", "text": t} for t in typed]
                if header is not None:
                    result["content"][0]["text"] += rest  # type: ignore[index]
                else:
                    around += [rest] if rest else []
                    result = None
            elif kind == "image" and (image := image_block(block)) is not None:
                prompt.append(image)
            elif kind == "tool_result":
                made = tool_result_message(block, self.names, f"{mid}.{at}")
                self.add({"type": "message", "id": f"{mid}.r{at}", "message": made}, ts)
        if any(p["type"] == "text" for p in prompt):
            ts = ts or (self.times.pop(0) if self.times else None)
            self.add({"type": "message", "id": mid, "message": {"role": "user", "content": prompt}}, ts)
        for at, rest in enumerate(around):
            self.add(
                {"type": "custom", "id": f"{mid}.c{at}", "customType": "cline:context", "content": rest}, ts
            )

    def xml_result(self, rid: str, name: str, ts: Any) -> dict[str, Any]:
        """The result of the oldest XML-era call not answered yet (its text filled in by the caller)."""
        cid = self.pending.pop(0) if self.pending else rid
        result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, name),
                  "content": [{"type": "text", "text": ""}], "isError": False}  # fmt: skip
        self.add({"type": "message", "id": rid, "message": result}, ts)
        return result

    def xml_calls(self, mid: str, text: str) -> tuple[str, list[dict[str, Any]]]:
        """A reply's text without the XML-era tool calls it writes, and those calls."""
        calls = []
        for n, found in enumerate(_XML_CALL.finditer(text)):
            cid = f"{mid}.x{n}"
            self.names[cid] = found[1]
            self.pending.append(cid)
            args = {p[1]: p[2] for p in _XML_PARAM.finditer(found[2])}
            calls.append({"type": "toolCall", "id": cid, "name": found[1], "arguments": args})
        return (_XML_CALL.sub("", text).strip() if calls else text), calls

    def assistant(self, mid: str, blocks: list[dict[str, Any]], ts: Any) -> None:
        content: list[dict[str, Any]] = []
        for at, block in enumerate(blocks):
            kind = block.get("type")
            if kind == "text" and as_str(block.get("text")):
                thoughts = [t for t in _THINKING.findall(block["text"]) if t]  # the XML era's reasoning
                text, calls = self.xml_calls(mid, _THINKING.sub("", block["text"]).strip())
                content += [{"type": "thinking", "thinking": t} for t in thoughts]
                content += ([{"type": "text", "text": text}] if text else []) + calls
            elif kind in ("thinking", "reasoning") and as_str(block.get(str(kind)) or block.get("text")):
                content.append({"type": "thinking", "thinking": block.get(str(kind)) or block.get("text")})
            elif kind == "tool_use":
                content.append(tool_use_call(block, self.names, f"{mid}.{at}"))
        if not content:
            return
        when, usage = self.usages.pop(0) if self.usages else (None, None)
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if self.model:
            message["model"] = self.model
        if usage is not None:
            message["usage"] = usage
        self.add({"type": "message", "id": mid, "message": message}, ts or when)


def last_model(metadata: Any) -> str | None:
    """The model a task's metadata names last."""
    used = dicts_of(metadata.get("model_usage")) if isinstance(metadata, dict) else []
    return next((m["model_id"] for m in reversed(used) if as_str(m.get("model_id"))), None)


class TaskReader:
    """A task folder of Cline, Roo Code or Kilo Code (the one format of the three)."""

    agent: ClassVar[str] = "cline"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the task folder of ``path`` (its history, UI messages and metadata; read-only)."""
        folder = path.parent
        bad: list[BadLine] = []
        history = read_array(folder / HISTORY, bad)
        ui = read_array(folder / UI_MESSAGES)
        try:
            metadata = read_json_file(folder / METADATA, WHOLE_BYTES)
        except (OSError, ValueError):
            metadata = {}
        made = _Made(request_usages(ui), prompt_times(ui))
        made.model = last_model(metadata)
        for index, record in dict_items(history, "message", bad):
            content = record.get("content")
            blocks = (
                [{"type": "text", "text": content}] if isinstance(content, str) else content_blocks(content)
            )
            ts = iso_time(record.get("ts"))
            if record.get("role") == "user":
                made.user(f"T{index}", blocks, ts)
            elif record.get("role") == "assistant":
                made.assistant(f"T{index}", blocks, ts)
        first = next((m for m in dicts_of(ui)), {})
        stamp = iso_time(first.get("ts")) or (iso_time(int(folder.name)) if folder.name.isdigit() else None)
        header = session_header(self.agent, folder.name, task_cwd(history), timestamp=stamp)
        return make_session(
            path, header if history or made.entries else {}, made.entries, bad, made.last_id()
        )


class RooReader(TaskReader):
    """Roo Code's task folders."""

    agent: ClassVar[str] = "roo"


class KiloReader(TaskReader):
    """Kilo Code's task folders."""

    agent: ClassVar[str] = "kilo"


register(TaskReader())
register(RooReader())
register(KiloReader())
