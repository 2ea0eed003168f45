"""Session -> plain text (what ``/dump`` copies): the model's context of a leaf, section by section.

The strings mirror the reference formatter (oh-my-pi ``formatSessionAsText``): lines are collected,
joined by newlines and the whole is trimmed, so the blank lines between sections come from the
``"\\n"`` items each section appends.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from sessiontree.errors import EntryNotFound, ExportError
from sessiontree.exporter.kinds import ROLES, dumps
from sessiontree.store import Session
from sessiontree.store.content import text_of
from sessiontree.store.kinds import kind_of
from sessiontree.store.system import canonical_tools

TextFilter = Literal["default", "no-tools", "user-only"]
FILTERS: tuple[str, ...] = ("default", "no-tools", "user-only")

# Roles hidden by --no-tools, besides the tool calls inside assistant messages.

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ATTR_ESCAPES = str.maketrans({"&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;"})


def _attr(value: Any) -> str:
    """Return ``value`` as a double-quoted attribute value (quotes escaped: names come from the session)."""
    return _js_str(value).translate(_ATTR_ESCAPES)


def _js_str(value: Any) -> str:
    """Return ``value`` as the reference's template strings show it (missing values as empty)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return str(value)
    return _json(value)


def _json(value: Any) -> str:
    """Return ``value`` as compact JSON, like ``JSON.stringify``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _blocks(content: Any) -> list[Mapping[str, Any]]:
    """Return the content blocks of a message (a plain string is one text block)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, Mapping)]
    return []


def format_args_as_xml(args: Mapping[str, Any], indent: str = "\t") -> str:
    """Return one ``<parameter name="k">value</parameter>`` line per key (non-strings as JSON)."""
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) else _json(value)
        parts.append(f'{indent}<parameter name="{_attr(key)}">{text}</parameter>')
    return "\n".join(parts)


def _strip_typebox_fields(value: Any) -> Any:
    """Drop the ``TypeBox.*`` bookkeeping keys a schema may carry, at every depth."""
    if isinstance(value, list):
        return [_strip_typebox_fields(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _strip_typebox_fields(v) for k, v in value.items() if not str(k).startswith("TypeBox.")}
    return value


def format_system_prompt(prompts: Sequence[str]) -> list[str]:
    """Return the ``## System Prompt`` section (numbered sub-sections when there are several)."""
    prompts = [p for p in prompts if p]
    if not prompts:
        return []
    lines = ["## System Prompt\n"]
    for index, prompt in enumerate(prompts, 1):
        if len(prompts) > 1:
            lines.append(f"### System Prompt {index}\n")
        lines += [prompt, "\n"]
    return lines


def format_configuration(
    model: str | None, thinking_level: str | None, spawned_by: str | None = None
) -> list[str]:
    """Return the ``## Configuration`` section: model (``provider/id``), thinking level (the
    line left out when nothing in the session says it: ``None``) and the session that spawned it."""
    lines = ["## Configuration\n", f"Model: {model or '(not selected)'}"]
    if thinking_level is not None:
        lines.append(f"Thinking Level: {thinking_level}")
    if spawned_by:
        lines.append(f"Spawned by: {spawned_by}")
    return [*lines, "\n"]


def format_tools(tools: Sequence[Mapping[str, Any]]) -> list[str]:
    """Return the ``## Available Tools`` section (empty when there are no tools)."""
    if not tools:
        return []
    lines = ["## Available Tools\n"]
    for tool in tools:
        lines.append(f'<tool name="{_attr(tool.get("name"))}">')
        if "description" in tool:
            lines.append(_js_str(tool["description"]))
        params = tool.get("parameters")
        if isinstance(params, Mapping):
            lines.append(f"\nParameters:\n{format_args_as_xml(_strip_typebox_fields(params))}")
        lines.append("</tool>\n")
    lines.append("\n")
    return lines


def _text_and_images_section(heading: str, content: Any) -> list[str]:
    lines = [f"## {heading}\n"]
    for block in _blocks(content):
        if block.get("type") == "text":
            lines.append(_js_str(block.get("text")))
        elif block.get("type") == "image":
            lines.append("[Image]")
    lines.append("\n")
    return lines


def format_user(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## User`` (or ``## Developer``) section: text, ``[Image]`` for images."""
    heading = "Developer" if message.get("role") == "developer" else "User"
    return _text_and_images_section(heading, message.get("content"))


def format_assistant(message: Mapping[str, Any], *, tool_calls: bool = True) -> list[str]:
    """Return a ``## Assistant`` section: text, ``<thinking>`` blocks and ``<invoke>`` tool calls."""
    lines = ["## Assistant\n"]
    for block in _blocks(message.get("content")):
        kind = block.get("type")
        if kind == "text":
            lines.append(_js_str(block.get("text")))
        elif kind == "thinking" and block.get("redacted") is not True:
            thinking = _js_str(block.get("thinking"))
            if thinking.strip():
                lines += ["<thinking>", thinking, "</thinking>\n"]
        elif kind == "toolCall" and tool_calls:
            lines.append(f'<invoke name="{_attr(block.get("name"))}">')
            args = block.get("arguments")
            if isinstance(args, Mapping):
                lines.append(format_args_as_xml(args))
            lines.append("</invoke>\n")
    lines.append("")
    return lines


def format_tool_result(message: Mapping[str, Any]) -> list[str]:
    """Return a ``### Tool Result: <name>`` section: ``(error)``, fenced text, ``[Image output]``."""
    lines = [f"### Tool Result: {_js_str(message.get('toolName'))}"]
    if message.get("isError"):
        lines.append("(error)")
    for block in _blocks(message.get("content")):
        if block.get("type") == "text":
            lines += ["```", _js_str(block.get("text")), "```"]
        elif block.get("type") == "image":
            lines.append("[Image output]")
    lines.append("")
    return lines


def _exit_and_truncation(message: Mapping[str, Any], cancelled: str, failed: str) -> str:
    text = ""
    code = message.get("exitCode")
    if message.get("cancelled"):
        text += f"\n\n({cancelled})"
    elif code is not None and code != 0:
        text += f"\n\n{failed} {_js_str(code)}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {_js_str(message['fullOutputPath'])}]"
    return text


def bash_execution_to_text(message: Mapping[str, Any]) -> str:
    """Return a bash execution as the model saw it ("Ran `cmd`", fenced output, exit status)."""
    output = _js_str(message.get("output"))
    text = f"Ran `{_js_str(message.get('command'))}`\n"
    text += f"```\n{output}\n```" if output else "(no output)"
    return text + _exit_and_truncation(message, "command cancelled", "Command exited with code")


def python_execution_to_text(message: Mapping[str, Any]) -> str:
    """Return a python execution as the model saw it (the code, fenced output, exit status)."""
    output = _js_str(message.get("output"))
    text = f"Ran Python:\n```python\n{_js_str(message.get('code'))}\n```\n"
    text += f"Output:\n```\n{output}\n```" if output else "(no output)"
    return text + _exit_and_truncation(message, "execution cancelled", "Execution failed with code")


def format_execution(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## Bash Execution`` / ``## Python Execution`` section (none when excluded)."""
    if message.get("excludeFromContext"):
        return []
    if message.get("role") == "bashExecution":
        return ["## Bash Execution\n", bash_execution_to_text(message), "\n"]
    return ["## Python Execution\n", python_execution_to_text(message), "\n"]


def format_custom(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## <customType>`` section for an extension's message (an agent's line kind: its
    row's label and text, or nothing); never an empty heading."""
    content = message.get("content")
    blocks = _blocks(content)
    if not any(b.get("type") == "image" or _js_str(b.get("text")).strip() for b in blocks):
        return []
    row = kind_of(message)
    if row is None:
        return _text_and_images_section(_js_str(message.get("customType")), content)
    if not row.dumped:
        return []
    return [f"## {row.label}\n", row.dump_text(content) if row.dump_text else text_of(content), "\n"]


def _summary_section(title: str, note: str, summary: Any) -> list[str]:
    return [f"## {title}\n", f"({note})\n", _js_str(summary), "\n"]


def format_branch_summary(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## Branch Summary`` section with the branch it came from."""
    note = f"from branch: {_js_str(message.get('fromId'))}"
    return _summary_section("Branch Summary", note, message.get("summary"))


def format_compaction_summary(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## Compaction Summary`` section with the token count before compaction."""
    note = f"{_js_str(message.get('tokensBefore'))} tokens before compaction"
    return _summary_section("Compaction Summary", note, message.get("summary"))


def format_file_mention(message: Mapping[str, Any]) -> list[str]:
    """Return a ``## File Mention`` section: one ``<file path="...">`` element per file."""
    lines = ["## File Mention\n"]
    files = message.get("files")
    for file in files if isinstance(files, list) else ():
        if not isinstance(file, Mapping):
            continue
        lines.append(f'<file path="{_attr(file.get("path"))}">')
        if file.get("content"):
            lines.append(_js_str(file["content"]))
        if file.get("image"):
            lines.append("[Image attached]")
        lines.append("</file>\n")
    lines.append("\n")
    return lines


def format_message(message: Mapping[str, Any], text_filter: TextFilter = "default") -> list[str]:
    """Return the lines of one context message under a filter (none for hidden or unknown roles)."""
    role = message.get("role")
    if text_filter == "user-only" and role != "user":
        return []
    kind = ROLES.get(role) if isinstance(role, str) else None
    if kind is None or kind.dump is None or (text_filter == "no-tools" and kind.tool):
        return []
    return kind.dump(message, text_filter)


dumps("user", "developer")(lambda message, _: format_user(message))
dumps("assistant")(
    lambda message, text_filter: format_assistant(message, tool_calls=text_filter != "no-tools")
)
dumps("toolResult")(lambda message, _: format_tool_result(message))
dumps("bashExecution", "pythonExecution")(lambda message, _: format_execution(message))
dumps("custom", "hookMessage")(lambda message, _: format_custom(message))
dumps("branchSummary")(lambda message, _: format_branch_summary(message))
dumps("compactionSummary")(lambda message, _: format_compaction_summary(message))
dumps("fileMention")(lambda message, _: format_file_mention(message))


def format_messages_as_text(
    messages: Iterable[Mapping[str, Any]],
    *,
    system_prompt: str | Sequence[str] | None = None,
    model: str | None = None,
    thinking_level: str | None = None,
    tools: Sequence[Mapping[str, Any]] = (),
    text_filter: TextFilter = "default",
    joints: Mapping[int, str] | None = None,
    spawned_by: str | None = None,
) -> str:
    """Return the dump text of context messages; empty when no message survives the filter.

    ``joints`` (message index -> note) says, in one line at that point, where a damaged file
    lost lines (see ``store.repair``).
    """
    if text_filter not in FILTERS:
        raise ExportError(f"Unknown filter {text_filter!r}; use one of {', '.join(FILTERS)}")
    body: list[str] = []
    for index, message in enumerate(messages):
        if joints and index in joints:
            body.append(f"[{joints[index]}: the file is damaged at this point]\n")
        body += format_message(message, text_filter)
    if not body:
        return ""
    prompts = [system_prompt] if isinstance(system_prompt, str) else list(system_prompt or ())
    lines = format_system_prompt(prompts) + format_configuration(model, thinking_level, spawned_by)
    if text_filter == "default":
        lines += format_tools(tools)
    # A lone surrogate (legal in JSON, not in UTF-8) would break every clipboard tool.
    return _LONE_SURROGATE.sub("\ufffd", "\n".join(lines + body).strip())


def _prompts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [p for p in value if isinstance(p, str)]
    return []


def format_session_as_text(
    session: Session,
    system_prompt: str | Sequence[str] | None = None,
    tools: Sequence[Any] | None = None,
    *,
    leaf_id: str | None = None,
    filter: TextFilter = "default",
) -> str:
    """Return the dump text of a session: the context of ``leaf_id`` (default: the session's leaf).

    ``system_prompt`` and ``tools`` default to the ``session_init`` entry on that path; tools may be
    names or ``{name, description, parameters}`` objects. Empty when there are no messages to show.
    """
    if leaf_id is not None and leaf_id not in session.tree.by_id:
        raise EntryNotFound(f"Entry not found: {leaf_id}; pass an entry id of this session to --leaf")
    leaf = leaf_id if leaf_id is not None else session.leaf_id
    if leaf is None:
        return ""
    ctx = session.context(leaf)
    init = session.session_init(leaf) or {}
    prompts = _prompts(init.get("systemPrompt")) if system_prompt is None else _prompts(system_prompt)
    return format_messages_as_text(
        ctx.messages,
        system_prompt=prompts,
        model=ctx.models.get("default"),
        thinking_level=_thinking_level(session, leaf, ctx.thinking_level),
        tools=canonical_tools(list(tools) if tools is not None else init.get("tools")),
        text_filter=filter,
        joints=ctx.joints,
        spawned_by=parent
        if isinstance(parent := session.header.get("parentSession"), str)
        and session.header.get("agent") not in (None, "pi")
        else None,
    )


def _thinking_level(session: Session, leaf: str, level: str) -> str | None:
    """The context's thinking level; for another agent's file, what its lines say, else None."""
    if session.header.get("agent") in (None, "pi"):
        return level
    if any(e.get("type") == "thinking_level_change" for e in session.path_entries(leaf)):
        return level
    said = session.header.get("thinkingLevel")
    return said if isinstance(said, str) and said else None


def estimate_tokens(text: str) -> int:
    """Return a rough token count (four characters a token)."""
    return round(len(text) / 4)
