"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) read into the session model.

A rollout is linear. Codex records most things twice, as a ``response_item`` (what the model
saw) and an ``event_msg`` (what the terminal showed): the response items are shown, the events
only where they add something (token counts become the usage of the reply before them, an
aborted turn a notice). Consecutive reasoning, tool calls and text of one reply become one
assistant entry; each tool output a ``toolResult`` entry. Unknown lines are carried as
``custom`` entries. The old format (a bare header line, ``record_type: state`` lines, CRLF)
reads the same way.

The item and event types are those openai/codex writes at commit 0136a731 (codex-rs/protocol
``models.rs`` ``ResponseItem``, codex-rs/rollout ``policy.rs``): tool searches, generated images,
inter-agent messages and tool outputs made of content items are shown; a review's findings and a
goal's changes are notices; the encrypted compaction items, the tool list (``additional_tools``) and
the events that repeat an item (``mcp_tool_call_end``, ``patch_apply_end``, ``web_search_end``,
``image_generation_end``, ``turn_started``, ``turn_complete``) stay carried under "all". A
``sub_agent_activity`` event (openai/codex at commit 3c6ad5ea, codex-rs/protocol ``legacy_events.rs``
``SubAgentActivityEvent``: ``agent_path``, ``agent_thread_id``, ``kind``) is a 'Subagent' notice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import EntryBuilder, as_str, iter_dicts, make_session, read_values, register
from sessiontree.readers.codex_items import (
    ABORTED_PREFIX,
    CONTEXT_PREFIXES,
    aborted_reason,
    agent_message_text,
    convert_call,
    convert_output,
    convert_user_content,
    generated_image,
    goal_text,
    plan_text,
    reasoning_block,
    review_text,
    subagent_activity_text,
    tool_search_text,
    usage_of,
)
from sessiontree.store.claude_markup import is_injected
from sessiontree.store.entries import Entry
from sessiontree.store.formats import CODEX_LINE_TYPES, is_codex_old_header
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

ITEM_TYPES = frozenset(
    {"message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
     "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
     "tool_search_output", "image_generation_call", "agent_message"}
)  # fmt: skip
CALL_ITEMS = frozenset(
    {"function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"}
)
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})
# Events that repeat a response item (shown once, from the item).
ECHO_EVENTS = frozenset(
    {"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
     "agent_reasoning_section_break"}
)  # fmt: skip

TURN_ABORTED = "codex:turn_aborted"
ROLLED_BACK = "codex:event/thread_rolled_back"
AGENT_MESSAGE = "codex:agent_message"
REVIEW = "codex:event/review"
GOAL = "codex:event/thread_goal_updated"
SUBAGENT = "codex:event/sub_agent_activity"
CODEX_KINDS = (
    LineKind(TURN_ABORTED, "Interrupted"),
    LineKind(ROLLED_BACK, "Rolled back", context=False),
    LineKind(AGENT_MESSAGE, "Agent message", counted=True),
    LineKind(REVIEW, "Review", context=False),
    LineKind(GOAL, "Goal", context=False),
    LineKind(SUBAGENT, "Subagent", context=False),
)
"""Codex CLI's lines that are not conversation (see ``store.kinds``)."""
add_kinds(CODEX_KINDS)


def normalise_line(obj: dict[str, Any], first: bool) -> tuple[str, dict[str, Any]]:
    """(line kind, payload) for both the current and the old layout."""
    kind = obj.get("type")
    payload = obj.get("payload")
    if isinstance(kind, str) and kind in CODEX_LINE_TYPES and isinstance(payload, dict):
        return kind, payload
    if "record_type" in obj:
        return f"old:{obj['record_type']}", obj
    if first and is_codex_old_header(obj):
        return "session_meta", obj
    if isinstance(kind, str) and kind in ITEM_TYPES:
        return "response_item", obj
    return kind if isinstance(kind, str) else "line", obj


class _Converter:
    """The entries of one rollout, made line by line."""

    def __init__(self, use_events: bool) -> None:
        self.build = EntryBuilder("X")
        self.header: dict[str, Any] = {"type": "session", "version": 3}
        self.use_events = use_events  # no response_item messages at all: fall back to the events
        self.typed: set[str] | None = None  # the user_message events' texts: what the person typed
        self.last_id: str | None = None
        self.reply: Entry | None = None  # the assistant entry still being added to
        self.last_reply: Entry | None = None
        self.provider = "openai"
        self.model: str | None = None
        self.effort: str | None = None
        self.calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self.last_total: Any = None
        self.turns: list[Entry] = []  # the typed prompts of the active path: where each turn starts
        self.aborted: str | None = None  # the id of the last interruption notice
        self.goal: str | None = None  # the last goal shown (its updates repeat it as tokens are used)

    def add(self, entry: Entry, ts: Any) -> Entry:
        entry["parentId"] = self.last_id
        if isinstance(ts, str):
            entry["timestamp"] = ts
        self.build.entries.append(entry)
        self.last_id = entry["id"]
        return entry

    def line(self, lineno: int, obj: dict[str, Any], first: bool) -> None:
        kind, payload = normalise_line(obj, first)
        ts = obj.get("timestamp", payload.get("timestamp"))
        if kind == "session_meta":
            self._meta(lineno, payload, ts)
        elif kind == "turn_context":
            self._turn_context(lineno, payload, ts)
        elif kind == "response_item":
            self._item(lineno, payload, ts)
        elif kind == "event_msg":
            self._event(lineno, payload, ts)
        elif kind == "compacted":
            self.reply = None
            summary = as_str(payload.get("message")) or ""
            self.add(
                {
                    "type": "compaction",
                    "id": self.build.line_id(lineno),
                    "summary": summary,
                    "tokensBefore": 0,
                },
                ts,
            )
        elif kind == "inter_agent_communication" and isinstance(payload.get("payload"), dict):
            said = payload["payload"]
            self._agent_message(
                lineno, agent_message_text(said.get("author"), said.get("recipient"), said.get("content")), ts
            )
        elif kind == "old:state":
            pass  # the old format's state snapshots repeat what the items already say
        else:
            self._carry(lineno, f"codex:{kind}", obj, ts)

    def _carry(self, lineno: int, kind: str, data: Any, ts: Any) -> None:
        entry = self.build.carry(lineno, kind, data, None, None)
        self.build.entries.pop()
        self.add(entry, ts)

    def _meta(self, lineno: int, meta: dict[str, Any], ts: Any) -> None:
        header = self.header
        for key, field in (
            ("id", "id"),
            ("timestamp", "timestamp"),
            ("cwd", "cwd"),
            ("cli_version", "agentVersion"),
        ):
            value = as_str(meta.get(key))
            if value and field not in header:
                header[field] = value
        if (parent := spawned_by(meta)) is not None and "id" in header and header["id"] != parent:
            header.setdefault("parentSession", parent)
        git = meta.get("git")
        if isinstance(git, dict) and as_str(git.get("branch")):
            header.setdefault("gitBranch", git["branch"])
        self.provider = as_str(meta.get("model_provider")) or self.provider
        base = meta.get("base_instructions")
        prompt = as_str(meta.get("instructions")) or (
            as_str(base.get("text")) if isinstance(base, dict) else None
        )
        if prompt:
            self.add({"type": "session_init", "id": self.build.line_id(lineno), "systemPrompt": prompt}, ts)

    def _turn_context(self, lineno: int, ctx: dict[str, Any], ts: Any) -> None:
        model, effort = as_str(ctx.get("model")), as_str(ctx.get("effort"))
        if model and model != self.model:
            self.model = model
            self.add(
                {
                    "type": "model_change",
                    "id": self.build.line_id(lineno),
                    "model": f"{self.provider}/{model}",
                },
                ts,
            )
        if effort and effort != self.effort:
            self.effort = effort
            self.add(
                {
                    "type": "thinking_level_change",
                    "id": self.build.line_id(lineno, 1),
                    "thinkingLevel": effort,
                },
                ts,
            )

    def _open_reply(self, lineno: int, ts: Any) -> Entry:
        if self.reply is None:
            message: dict[str, Any] = {"role": "assistant", "content": [], "provider": self.provider}
            if self.model:
                message["model"] = self.model
            self.reply = self.add(
                {"type": "message", "id": self.build.line_id(lineno), "message": message}, ts
            )
            self.last_reply = self.reply
        return self.reply

    def _item(self, lineno: int, item: dict[str, Any], ts: Any) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(lineno, item, ts)
        elif kind == "reasoning":
            block = reasoning_block(item)
            if block is not None:
                self._open_reply(lineno, ts)["message"]["content"].append(block)
        elif kind in CALL_ITEMS:
            call = convert_call(item)
            self.calls[call["id"]] = (call["name"], call["arguments"])
            self._open_reply(lineno, ts)["message"]["content"].append(call)
        elif kind == "tool_search_output":
            self._output(lineno, as_str(item.get("call_id")) or "", tool_search_text(item), ts)
        elif kind == "image_generation_call":
            call, result = generated_image(item, as_str(item.get("id")) or self.build.line_id(lineno))
            self._open_reply(lineno, ts)["message"]["content"].append(call)
            self.reply = None
            self.add({"type": "message", "id": self.build.line_id(lineno, 1), "message": result}, ts)
        elif kind == "agent_message":
            text = agent_message_text(item.get("author"), item.get("recipient"), item.get("content"))
            self._agent_message(lineno, text, ts)
        elif kind in OUTPUT_ITEMS:
            self._output(lineno, as_str(item.get("call_id")) or "", item.get("output"), ts)
        else:
            self._carry(lineno, f"codex:{kind}" if isinstance(kind, str) else "codex:item", item, ts)

    def _output(self, lineno: int, call_id: str, output: Any, ts: Any) -> None:
        self.reply = None
        name, args = self.calls.get(call_id, ("tool", {}))
        message = convert_output(output, call_id, name, args)
        self.add({"type": "message", "id": self.build.line_id(lineno), "message": message}, ts)

    def _agent_message(self, lineno: int, text: str, ts: Any) -> None:
        """A message between agents of a multi-agent thread: in the model's context, never a prompt."""
        self.reply = None
        notice = {"customType": AGENT_MESSAGE, "content": text, "display": True}
        self.add({"type": "custom_message", "id": self.build.line_id(lineno), **notice}, ts)

    def _notice(self, lineno: int, kind: str, event: dict[str, Any], text: str, ts: Any) -> None:
        """An event the terminal showed as a line of its own (the event is kept as the entry's data)."""
        self.reply = None
        entry = self.build.carry(lineno, kind, event, None, None)
        self.build.entries.pop()
        entry["content"] = text
        self.add(entry, ts)

    def _message(self, lineno: int, item: dict[str, Any], ts: Any) -> None:
        role = item.get("role")
        content = item.get("content")
        if role == "assistant":
            texts = (
                [b.get("text") for b in content if isinstance(b, dict)]
                if isinstance(content, list)
                else [content]
            )
            reply = self._open_reply(lineno, ts)["message"]["content"]
            reply.extend({"type": "text", "text": plan_text(t)} for t in texts if isinstance(t, str))
            return
        self.reply = None
        blocks = convert_user_content(content)
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text").lstrip()
        entry_id = self.build.line_id(lineno)
        if role == "user" and text.startswith(ABORTED_PREFIX):
            self._aborted(lineno, aborted_reason(text), ts)  # injected by the CLI, never typed
            return
        if role == "user" and self._typed(text):
            self._prompt(entry_id, blocks, ts)
            return
        # Context the CLI injects (environment, AGENTS.md) and developer/system messages.
        kind = "codex:context" if role == "user" else f"codex:{role}"
        self.add(
            {
                "type": "custom_message",
                "id": entry_id,
                "customType": kind,
                "content": blocks,
                "display": False,
            },
            ts,
        )

    def _typed(self, text: str) -> bool:
        """Whether a user item is what the person typed: a ``user_message`` event says so where the
        rollout has them (a subagent's notification, the environment never get one); else no
        injected context (its known prefixes, or any block wrapped in a tag of the CLI's own)."""
        if self.typed is not None:
            text = text.strip()
            # The item may wrap the typed text (an IDE's "## My request for Codex:" context).
            return text in self.typed or any(len(t) >= 8 and t in text for t in self.typed)
        return not text.startswith(CONTEXT_PREFIXES) and not is_injected(text)

    def _event(self, lineno: int, event: dict[str, Any], ts: Any) -> None:
        kind = event.get("type")
        if kind == "token_count":
            self._tokens(event.get("info"))
        elif kind in ECHO_EVENTS:
            if self.use_events:
                self._event_message(lineno, event, ts)
        elif kind == "turn_aborted":
            self._aborted(lineno, as_str(event.get("reason")) or "aborted", ts)
        elif kind == "thread_rolled_back":
            self._roll_back(lineno, event, ts)
        elif kind == "entered_review_mode":
            hint = as_str(event.get("user_facing_hint"))
            self._notice(lineno, REVIEW, event, f"Review started: {hint}" if hint else "Review started", ts)
        elif kind == "exited_review_mode":
            self._notice(lineno, REVIEW, event, review_text(event), ts)
        elif kind == "thread_goal_updated" and (goal := goal_text(event)) is not None:
            if goal != self.goal:
                self.goal = goal
                self._notice(lineno, GOAL, event, goal, ts)
        elif kind == "sub_agent_activity":
            self._notice(lineno, SUBAGENT, event, subagent_activity_text(event), ts)
        else:
            self._carry(lineno, f"codex:event/{kind}" if isinstance(kind, str) else "codex:event", event, ts)

    def _prompt(self, entry_id: str, blocks: list[dict[str, Any]], ts: Any) -> None:
        """A typed prompt: the start of a turn (what a rollback counts)."""
        message = {"role": "user", "content": blocks}
        self.turns.append(self.add({"type": "message", "id": entry_id, "message": message}, ts))

    def _aborted(self, lineno: int, reason: str, ts: Any) -> None:
        """An interrupted turn: one notice for the injected ``<turn_aborted>`` message and its event."""
        self.reply = None
        if self.aborted is not None and self.aborted == self.last_id:
            return  # the event after the injected message (or the other way round): said once
        text = "Interrupted by the user" if reason == "interrupted" else f"Turn aborted ({reason})"
        notice = {"customType": TURN_ABORTED, "content": text, "display": True, "details": {"reason": reason}}
        self.aborted = self.add({"type": "custom_message", "id": self.build.line_id(lineno), **notice}, ts)[
            "id"
        ]

    def _roll_back(self, lineno: int, event: dict[str, Any], ts: Any) -> None:
        """Undo the last ``num_turns`` turns: the leaf moves back, the undone turns stay a side branch."""
        count = event.get("num_turns")
        turns = count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0
        self.reply = None
        undone = self.turns[-turns:] if turns else []
        if undone:
            del self.turns[-turns:]
            self.last_id = undone[0].get("parentId")
        said = f"{len(undone)} turn{'' if len(undone) == 1 else 's'} undone"
        self._notice(lineno, ROLLED_BACK, event, said + (f" (from {undone[0]['id']})" if undone else ""), ts)

    def _event_message(self, lineno: int, event: dict[str, Any], ts: Any) -> None:
        kind, text = event.get("type"), as_str(event.get("message")) or as_str(event.get("text")) or ""
        if kind == "user_message":
            self.reply = None
            if text.lstrip().startswith(ABORTED_PREFIX):
                self._aborted(lineno, aborted_reason(text), ts)
            else:
                self._prompt(self.build.line_id(lineno), [{"type": "text", "text": text}], ts)
        elif kind == "agent_message":
            self._open_reply(lineno, ts)["message"]["content"].append(
                {"type": "text", "text": plan_text(text)}
            )
        elif kind == "agent_reasoning" and text:
            self._open_reply(lineno, ts)["message"]["content"].append({"type": "thinking", "thinking": text})

    def _tokens(self, info: Any) -> None:
        if not isinstance(info, dict) or self.last_reply is None:
            return
        total = info.get("total_token_usage")
        if total is not None and total == self.last_total:
            return  # the same count reported again
        self.last_total = total
        usage = usage_of(info.get("last_token_usage"))
        if usage is None:
            return
        message = self.last_reply["message"]
        old = message.get("usage")
        if isinstance(old, dict):  # two model calls in one reply: add them up
            usage = {k: old.get(k, 0) + v for k, v in usage.items()}
        message["usage"] = usage

    def session(self, path: Path, bad: list[BadLine]) -> Session:
        header = self.header
        header.setdefault("id", path.stem)
        header["agent"] = "codex"
        return make_session(path, header, self.build.entries, bad, self.last_id)


def spawned_by(meta: dict[str, Any]) -> str | None:
    """The thread a subagent's rollout was spawned by (``source.subagent.thread_spawn.parent_thread_id``,
    or the later top-level ``parent_thread_id``), else None."""
    source = meta.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else meta.get("parent_thread_id")
    return as_str(parent)


def typed_messages(values: list[tuple[int, Any]]) -> set[str] | None:
    """What the person typed, as the rollout's ``user_message`` events say (the texts, stripped);
    None for a rollout with no such event (its user items then go by the injected-block rule)."""
    typed: set[str] | None = None
    for _, obj in values:
        payload = obj.get("payload") if isinstance(obj, dict) and obj.get("type") == "event_msg" else None
        if isinstance(payload, dict) and payload.get("type") == "user_message":
            text = as_str(payload.get("message")) or ""
            typed = (typed or set()) | {text.strip()}
    return typed


def has_response_messages(values: list[tuple[int, Any]]) -> bool:
    """Tell whether a rollout holds its messages as response items (else only events have them)."""
    for _, obj in values:
        if not isinstance(obj, dict):
            continue
        payload = obj.get("payload") if obj.get("type") == "response_item" else obj
        if isinstance(payload, dict) and payload.get("type") == "message":
            return True
    return False


class CodexReader:
    """Codex CLI rollouts (the 2025 formats, old and current)."""

    agent: ClassVar[str] = "codex"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the rollout (read-only)."""
        values, bad = read_values(path)
        convert = _Converter(use_events=not has_response_messages(values))
        convert.typed = typed_messages(values)
        for index, (lineno, obj) in enumerate(iter_dicts(values, bad)):
            try:
                convert.line(lineno, obj, index == 0)
            except (TypeError, ValueError, AttributeError, KeyError, RecursionError):
                convert._carry(lineno, "codex:unreadable", obj, obj.get("timestamp"))
        return convert.session(path, bad)


register(CodexReader())
