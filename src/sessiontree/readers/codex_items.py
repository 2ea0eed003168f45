"""Codex response items -> model blocks: tool calls of every CLI version, their outputs, reasoning."""

from __future__ import annotations

import json
import math
import re
import shlex
from typing import Any

from sessiontree.readers.base import as_str
from sessiontree.store.jsonl import decode_json

CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<user_shell_command>",
)
"""User messages that are context the CLI injected, not something the person typed."""
ABORTED_PREFIX = "<turn_aborted>"
"""What the CLI (0.116+) injects into the conversation when the user interrupts a turn."""
_REASON = re.compile(r"<reason>\s*([^<]{1,80}?)\s*</reason>")
_PLAN = re.compile(r"^[ \t]*<proposed_plan>[ \t]*\n(.*?)\n?[ \t]*</proposed_plan>[ \t]*$", re.M | re.S)
"""A plan the model proposes in plan mode: Codex's TUI draws it as a "Proposed Plan" block."""


def plan_text(text: str) -> str:
    """A reply's text with each ``<proposed_plan>`` block shown as the TUI shows it: a heading and
    the plan's markdown (the tags were printed as literal text)."""
    if "<proposed_plan>" not in text:
        return text
    return _PLAN.sub(lambda m: f"**Proposed plan**\n\n{m.group(1).strip()}", text)


def aborted_reason(text: str) -> str:
    """The reason of an injected ``<turn_aborted>`` message (``interrupted`` when it names none)."""
    found = _REASON.search(text)
    return found[1] if found else "interrupted"


_EXIT_CODE = re.compile(r"\AExit code: (-?\d+)")
_SHELLS = {"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"}


def _parse_json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return decode_json(text)
    except ValueError:
        return None


def _argv_text(argv: list[Any]) -> str:
    """A command given as an argv list as one line a person would type (``bash -lc X`` shows X)."""
    words = [str(w) for w in argv]
    if len(words) == 3 and words[0] in _SHELLS and words[1] in ("-lc", "-c"):
        return words[2]
    return shlex.join(words)


def convert_call(item: dict[str, Any]) -> dict[str, Any]:
    """A function / custom / local-shell / web-search call as a ``toolCall`` block."""
    kind = item.get("type")
    call_id = as_str(item.get("call_id")) or as_str(item.get("id")) or ""
    name = as_str(item.get("name")) or {
        "local_shell_call": "local_shell",
        "web_search_call": "web_search",
        "tool_search_call": "tool_search",
    }.get(str(kind), "tool")
    args: dict[str, Any]
    if kind == "custom_tool_call":
        args = {"input": item.get("input")}
    elif kind in ("local_shell_call", "web_search_call"):
        action = item.get("action")
        args = dict(action) if isinstance(action, dict) else {}
    else:
        parsed = _parse_json(item.get("arguments"))
        args = parsed if isinstance(parsed, dict) else {"arguments": item.get("arguments")}
    command = args.get("command")
    if isinstance(command, list):
        # ``shell`` (0.58 and before) passes argv; the page and search want the command line.
        args = {**args, "command": _argv_text(command), "argv": command}
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": args}


def convert_output(output: Any, call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A tool output (plain text, or the JSON ``{output, metadata}`` string) as a ``toolResult``."""
    details: dict[str, Any] = {}
    text: str
    blocks: list[dict[str, Any]] | None = None
    if isinstance(output, list):  # content items (0.4x+): text and images, as a user message's parts
        blocks = convert_user_content(output)
        output = "".join(b["text"] for b in blocks if b.get("type") == "text")
    parsed = _parse_json(output) if isinstance(output, str) and output[:1] == "{" else None
    if isinstance(output, dict):
        parsed = output
    if isinstance(parsed, dict) and ("output" in parsed or "content" in parsed):
        body = parsed.get("output", parsed.get("content"))
        text = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
        metadata = parsed.get("metadata")
        if isinstance(metadata, dict):
            details["metadata"] = metadata
        if parsed.get("success") is False:
            details["success"] = False
    else:
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    code = details.get("metadata", {}).get("exit_code")
    match = _EXIT_CODE.match(text)
    if not isinstance(code, int) and match:
        code = int(match.group(1))
    is_error = details.get("success") is False or (
        isinstance(code, int) and not isinstance(code, bool) and code != 0
    )
    patch = args.get("input")
    if name == "apply_patch" and isinstance(patch, str):
        details["diff"] = patch  # the page shows an edit tool's change from details.diff
    message: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": blocks if blocks else [{"type": "text", "text": text}],
        "isError": is_error,
    }
    if details:
        message["details"] = details
    return message


def convert_user_content(content: Any) -> list[dict[str, Any]]:
    """``input_text`` / ``input_image`` parts as text and image blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    blocks: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else ():
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
            blocks.append({"type": "text", "text": part["text"]})
        elif kind == "input_image" and isinstance(part.get("image_url"), str):
            url = part["image_url"]
            head, sep, data = url.partition(";base64,")
            if url.startswith("data:") and sep:
                blocks.append({"type": "image", "data": data, "mimeType": head[5:]})
            else:
                blocks.append({"type": "text", "text": f"[image: {url[:200]}]"})
        else:
            blocks.append(part)
    return blocks


def reasoning_block(item: dict[str, Any]) -> dict[str, Any] | None:
    """A reasoning item as a thinking block (its summary, or its raw text); encrypted-only as redacted."""
    texts: list[str] = []
    for key in ("summary", "content"):
        parts = item.get(key)
        for part in parts if isinstance(parts, list) else ():
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    if texts:
        return {"type": "thinking", "thinking": "\n\n".join(texts)}
    if item.get("encrypted_content"):
        return {"type": "redactedThinking"}
    return None


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return int(value)


def usage_of(last: Any) -> dict[str, int] | None:
    """A ``last_token_usage`` as ``{input, output, cacheRead, cacheWrite, totalTokens}``."""
    if not isinstance(last, dict):
        return None
    cached = _count(last.get("cached_input_tokens"))
    output = _count(last.get("output_tokens"))
    inputs = max(_count(last.get("input_tokens")) - cached, 0)
    total = _count(last.get("total_tokens")) or inputs + cached + output
    return {"input": inputs, "output": output, "cacheRead": cached, "cacheWrite": 0, "totalTokens": total}


def tool_search_text(item: dict[str, Any]) -> str:
    """What a ``tool_search_output`` found: the names of the tools it loaded."""
    tools = item.get("tools")
    names = [
        as_str(t.get("name")) or as_str(t.get("type")) or "tool"
        for t in (tools if isinstance(tools, list) else ())
        if isinstance(t, dict)
    ]
    return f"{len(names)} tool{'' if len(names) == 1 else 's'} found" + (
        f": {', '.join(names)}" if names else ""
    )


def generated_image(item: dict[str, Any], call_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ``image_generation_call`` as a call (its revised prompt) and a result holding the image."""
    prompt = as_str(item.get("revised_prompt"))
    call = {
        "type": "toolCall",
        "id": call_id,
        "name": "image_generation",
        "arguments": {"prompt": prompt or ""},
    }
    data = as_str(item.get("result"))
    status = as_str(item.get("status")) or "completed"
    content: list[dict[str, Any]] = (
        [{"type": "image", "data": data, "mimeType": "image/png"}]
        if data
        else [{"type": "text", "text": status}]
    )
    result = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": "image_generation",
        "content": content,
        "isError": status not in ("completed", "generating"),
    }
    return call, result


def agent_message_text(author: Any, recipient: Any, content: Any) -> str:
    """An inter-agent message as one notice: who wrote to whom, and what (encrypted parts say so)."""
    if isinstance(content, list):
        said = "".join(
            p["text"] if isinstance(p.get("text"), str) else "[encrypted]"
            for p in content
            if isinstance(p, dict)
        )
    else:
        said = as_str(content) or ""
    return f"{as_str(author) or 'agent'} to {as_str(recipient) or 'agent'}: {said}"


def review_text(event: dict[str, Any]) -> str:
    """What a review showed: its verdict and explanation, then each finding's title and body."""
    out = event.get("review_output")
    if not isinstance(out, dict):
        return "Review ended with no output"
    lines = [s for s in (as_str(out.get("overall_correctness")), as_str(out.get("overall_explanation"))) if s]
    findings = out.get("findings")
    for finding in findings if isinstance(findings, list) else ():
        if isinstance(finding, dict):
            title, body = as_str(finding.get("title")) or "", as_str(finding.get("body")) or ""
            lines.append(f"- {title}" + (f": {body}" if body else ""))
    return "\n".join(lines) or "Review ended"


def goal_text(event: dict[str, Any]) -> str | None:
    """A goal's objective and status (``thread_goal_updated``), or None when the event has none."""
    goal = event.get("goal")
    objective = as_str(goal.get("objective")) if isinstance(goal, dict) else None
    if not objective:
        return None
    status = as_str(goal.get("status")) if isinstance(goal, dict) else None
    return objective + (f" ({status})" if status else "")


SUBAGENT_DOINGS = {
    "started": "Subagent {} started",
    "interacted": "Message sent to subagent {}",
    "interrupted": "Subagent {} interrupted",
    "completed": "Subagent {} completed",
}
"""``SubAgentActivityKind`` (codex-rs/protocol ``protocol.rs``, snake_case; 'completed' is newer) in words."""


def subagent_activity_text(event: dict[str, Any]) -> str:
    """A ``sub_agent_activity`` event: 'Subagent /root/reviewer started (thread <id>)'."""
    kind = as_str(event.get("kind")) or "activity"
    path = as_str(event.get("agent_path")) or "agent"
    said = SUBAGENT_DOINGS[kind].format(path) if kind in SUBAGENT_DOINGS else f"Subagent {path}: {kind}"
    thread = as_str(event.get("agent_thread_id"))
    return f"{said} (thread {thread})" if thread else said
