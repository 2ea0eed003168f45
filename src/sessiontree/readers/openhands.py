"""OpenHands' conversations (``~/.openhands/conversations/<id>/``) read into the session model.

Read as the OpenHands software-agent-sdk 1.43.1 persists them (``conversation/persistence_const.py``,
``conversation/state.py``, ``event/llm_convertible/*.py``, ``llm/utils/metrics.py``): a folder a
conversation with ``base_state.json`` (``{id, agent: {llm: {model}}, workspace: {working_dir},
stats: {usage_to_metrics: {<usage id>: {accumulated_cost, accumulated_token_usage: {prompt_tokens,
completion_tokens, cache_read_tokens, cache_write_tokens}}}}, ...}``), read as the session file, and
``events/event-<index>-<id>.json``, one event a file, told by ``kind``: ``MessageEvent`` (``source``,
``llm_message: {role, content: [{type: text, text}]}``), ``ActionEvent`` (``thought``,
``reasoning_content``, ``tool_name``, ``tool_call_id``, ``tool_call: {arguments}``, ``action``),
``ObservationEvent`` / ``UserRejectObservation`` / ``AgentErrorEvent`` (``tool_call_id``,
``observation: {content}``), others kept as notices. A user message's ``<…>``-wrapped text (skills,
context the SDK adds) is context, not a typed prompt. The conversation's accumulated tokens and cost
go on its last reply. The 0.x server's conversations (``sessions/<id>/metadata.json``) are read by
``readers.openhands_v0``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from sessiontree.readers.base import (
    ModelChain,
    as_str,
    make_session,
    number_or_zero,
    read_json_file,
    register,
    session_header,
    token_usage,
)
from sessiontree.readers.chat_messages import arguments_of, text_of_content
from sessiontree.readers.kimi import is_injected
from sessiontree.store.discovery import scandir_sorted
from sessiontree.store.entries import dicts_of
from sessiontree.store.jsonl import BadLine
from sessiontree.store.kinds import LineKind, add_kinds
from sessiontree.store.session import Session

OPENHANDS_KINDS = (
    LineKind("openhands:context", "Context", show="meta", context=False, dumped=False),
    LineKind("openhands:event", "Event", show="meta", context=False, dumped=False),
)
"""OpenHands' events that are not conversation (see ``store.kinds``)."""
add_kinds(OPENHANDS_KINDS)

EVENT_BYTES = 64 << 20
STATE_BYTES = 64 << 20
MAX_EVENTS = 100_000
RESULTS = ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent")
V0_METADATA = "metadata.json"
"""The session file of a conversation of OpenHands' 0.x server (``readers.openhands_v0``)."""


def read_events(folder: Path, bad: list[BadLine]) -> list[dict[str, Any]]:
    """A conversation's events in the order written (their file names), each read bounded."""
    events = []
    names = [e for e in scandir_sorted(folder) if e.name.endswith(".json")][:MAX_EVENTS]
    for index, entry in enumerate(names, start=1):
        try:
            event = read_json_file(Path(entry.path), EVENT_BYTES)
        except (OSError, ValueError) as exc:
            bad.append(BadLine(index, f"{entry.name}: {exc.__class__.__name__}", ""))
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def _observation_text(observation: Any) -> str:
    if not isinstance(observation, dict):
        return ""
    content = observation.get("content")
    texts = text_of_content(content)
    if texts:
        return "\n".join(texts)
    return as_str(observation.get("detail")) or as_str(observation.get("command")) or ""


class EventEntries(ModelChain):
    """A conversation's events as entries (the SDK's; ``readers.openhands_v0`` the 0.x server's)."""

    def __init__(self, model: str | None) -> None:
        super().__init__(model)
        self.names: dict[str, str] = {}

    def event(self, index: int, event: dict[str, Any]) -> None:
        kind, ts = event.get("kind"), as_str(event.get("timestamp"))
        mid = as_str(event.get("id")) or f"O{index}"
        if kind == "MessageEvent":
            message = event.get("llm_message")
            message = message if isinstance(message, dict) else {}
            texts = text_of_content(message.get("content"))
            if message.get("role") == "user":
                typed = [t for t in texts if not is_injected(t)]
                if typed:
                    parts = [{"type": "text", "text": t} for t in typed]
                    self.add(
                        {"type": "message", "id": mid, "message": {"role": "user", "content": parts}}, ts
                    )
                for at, text in enumerate(t for t in texts if is_injected(t)):
                    self.add({"type": "custom", "id": f"{mid}.c{at}", "customType": "openhands:context",
                              "content": text}, ts)  # fmt: skip
            elif message.get("role") == "assistant" and texts:
                self.reply(mid, [{"type": "text", "text": t} for t in texts], ts)
        elif kind == "ActionEvent":
            blocks: list[dict[str, Any]] = []
            thinking = as_str(event.get("reasoning_content"))
            if thinking:
                blocks.append({"type": "thinking", "thinking": thinking})
            blocks += [{"type": "text", "text": t} for t in text_of_content(event.get("thought"))]
            call = event.get("tool_call")
            cid = as_str(event.get("tool_call_id")) or mid
            self.names[cid] = as_str(event.get("tool_name")) or "tool"
            args = arguments_of(call.get("arguments")) if isinstance(call, dict) else {}
            action = event.get("action")
            blocks.append({"type": "toolCall", "id": cid, "name": self.names[cid],
                           "arguments": args or (action if isinstance(action, dict) else {})})  # fmt: skip
            self.reply(mid, blocks, ts)
        elif kind in RESULTS:
            cid = as_str(event.get("tool_call_id")) or mid
            text = (
                _observation_text(event.get("observation"))
                or as_str(event.get("rejection_reason"))
                or (as_str(event.get("error")) or "")
            )
            failed = kind != "ObservationEvent" or (
                isinstance(event.get("observation"), dict) and event["observation"].get("is_error") is True
            )
            result = {"role": "toolResult", "toolCallId": cid, "toolName": self.names.get(cid, "tool"),
                      "content": [{"type": "text", "text": text}], "isError": failed}  # fmt: skip
            self.add({"type": "message", "id": mid, "message": result}, ts)
        elif isinstance(kind, str):
            self.add({"type": "custom", "id": mid, "customType": "openhands:event", "data": event}, ts)


def state_usage(state: dict[str, Any]) -> dict[str, Any] | None:
    """A conversation's accumulated tokens and cost, over every usage id its stats name."""
    stats = state.get("stats")
    metrics = stats.get("usage_to_metrics") if isinstance(stats, dict) else None
    keys = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
    total: dict[str, Any] | None = None
    for metric in dicts_of(list(metrics.values())) if isinstance(metrics, dict) else []:
        used = metric.get("accumulated_token_usage")
        usage = token_usage(used, keys) if isinstance(used, dict) else None
        cost = number_or_zero(metric.get("accumulated_cost"))
        if usage is None and not cost:
            continue
        usage = usage or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
        total = {k: (total or {}).get(k, 0) + v for k, v in usage.items()}
        if cost:
            total["cost"] = total.get("cost", 0) + cost
    return total


def state_of(path: Path) -> dict[str, Any]:
    """A conversation's ``base_state.json`` (damaged or missing: empty)."""
    try:
        state = read_json_file(path, STATE_BYTES)
    except (OSError, ValueError):
        return {}
    return state if isinstance(state, dict) else {}


def state_cwd(state: dict[str, Any]) -> str:
    """The folder a conversation worked in, as its workspace names it."""
    workspace = state.get("workspace")
    workspace = workspace if isinstance(workspace, dict) else {}
    return next((str(workspace[k]) for k in ("working_dir", "cwd", "path") if as_str(workspace.get(k))), "")


class OpenHandsReader:
    """OpenHands conversations: ``base_state.json`` and the ``events`` folder beside it."""

    agent: ClassVar[str] = "openhands"

    def read(self, path: Path, *, agent_dir: Path | None = None, blobs_dir: Path | None = None) -> Session:
        """Read the conversation of ``path`` (read-only)."""
        bad: list[BadLine] = []
        state = state_of(path)
        if path.name == V0_METADATA:
            return _read_v0(path, state, bad)
        agent = state.get("agent")
        llm = agent.get("llm") if isinstance(agent, dict) else None
        made = EventEntries(as_str(llm.get("model")) if isinstance(llm, dict) else None)
        for index, event in enumerate(read_events(path.parent / "events", bad)):
            made.event(index, event)
        replies = [e["message"] for e in made.entries if e.get("message", {}).get("role") == "assistant"]
        usage = state_usage(state)
        if replies and usage is not None:  # the conversation's totals, counted once: on its last reply
            replies[-1]["usage"] = usage
        first = next((e.get("timestamp") for e in made.entries if e.get("timestamp")), None)
        header = session_header("openhands", as_str(state.get("id")) or path.parent.name, state_cwd(state),
                                timestamp=first, title=state.get("title"))  # fmt: skip
        if not state and not made.entries:
            bad.append(BadLine(1, "not an OpenHands conversation", json.dumps(state)[:120]))
        return make_session(path, header if state or made.entries else {}, made.entries, bad, made.last_id())


def _read_v0(path: Path, metadata: dict[str, Any], bad: list[BadLine]) -> Session:
    """A conversation of OpenHands' 0.x server: its metadata and events (``readers.openhands_v0``)."""
    from sessiontree.readers.openhands_v0 import V0Entries, metadata_usage, read_v0_events

    events = read_v0_events(path.parent / "events", bad)
    made = V0Entries(as_str(metadata.get("llm_model")))
    for event in events:
        made.event_v0(event)
    replies = [e["message"] for e in made.entries if e.get("message", {}).get("role") == "assistant"]
    usage = metadata_usage(metadata, events)
    if replies and usage is not None:  # the conversation's totals, counted once: on its last reply
        replies[-1]["usage"] = usage
    first = as_str(metadata.get("created_at")) or next((e.get("timestamp") for e in made.entries), None)
    header = session_header("openhands", as_str(metadata.get("conversation_id")) or path.parent.name, "",
                            timestamp=first, title=metadata.get("title"))  # fmt: skip
    if not metadata and not made.entries:
        bad.append(BadLine(1, "not an OpenHands conversation", ""))
    return make_session(path, header if metadata or made.entries else {}, made.entries, bad, made.last_id())


register(OpenHandsReader())
