"""OpenHands' conversations before its SDK (its 0.x server's file store, ``~/.openhands/sessions/<id>/``,
earlier ``~/.openhands-state/sessions/<id>/``) read into the session model.

Read as OpenHands 0.x's server writes them (``openhands/storage/locations.py``: ``sessions/<sid>/
metadata.json`` and ``events/<n>.json``; ``events/serialization``: an event is ``{id, timestamp,
source: user | agent | environment, message, action | observation, args | content + extras, cause?,
tool_call_metadata?: {function_name, tool_call_id}, llm_metrics?}``; ``ConversationMetadata``:
``{conversation_id, title, selected_repository, created_at, last_updated_at, llm_model,
accumulated_cost, prompt_tokens, completion_tokens}``). ``metadata.json`` is the session file; the
events beside it are read in their number's order, each bounded: a ``message`` action is a prompt
(the user's) or a reply (the agent's), the ``system`` action's prompt a context notice, any other
agent action a tool call (its ``thought`` as text), an observation the result of the action it
answers (``cause``; an ``error`` or ``user_rejected`` one failed), the rest notices.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sessiontree.readers.base import ModelChain, as_str, number_or_zero, read_json_file, token_usage
from sessiontree.store.discovery import scandir_sorted
from sessiontree.store.jsonl import BadLine

EVENT_BYTES = 64 << 20
MAX_EVENTS = 100_000
QUIET = frozenset({"change_agent_state", "agent_state_changed", "null"})
"""Events that only say the agent's state changed: not shown."""
FAILED = frozenset({"error", "user_rejected"})


def read_v0_events(folder: Path, bad: list[BadLine]) -> list[dict[str, Any]]:
    """A conversation's events in their number's order (``<n>.json``), each read bounded."""
    named = [
        (int(e.name[:-5]), e)
        for e in scandir_sorted(folder)
        if e.name[:-5].isdigit() and e.name.endswith(".json")
    ]
    events = []
    for number, entry in sorted(named, key=lambda pair: pair[0])[:MAX_EVENTS]:
        try:
            event = read_json_file(Path(entry.path), EVENT_BYTES)
        except (OSError, ValueError) as exc:
            bad.append(BadLine(number + 1, f"{entry.name}: {exc.__class__.__name__}", ""))
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def metadata_usage(metadata: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A conversation's tokens and cost: its metadata's, else the last event's accumulated metrics."""
    usage = token_usage(
        metadata, ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
    )
    cost = number_or_zero(metadata.get("accumulated_cost"))
    if usage is None and not cost:
        metrics = next((m for e in reversed(events) if isinstance(m := e.get("llm_metrics"), dict)), {})
        used = metrics.get("accumulated_token_usage")
        keys = ("prompt_tokens", "completion_tokens", "cache_read_tokens", "cache_write_tokens")
        usage = token_usage(used, keys) if isinstance(used, dict) else None
        cost = number_or_zero(metrics.get("accumulated_cost"))
    if usage is None and not cost:
        return None
    usage = usage or {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    return {**usage, "cost": cost} if cost else usage


class V0Entries(ModelChain):
    """The events of a 0.x conversation as entries."""

    def __init__(self, model: str | None) -> None:
        super().__init__(model)
        self.calls: dict[int, tuple[str, str]] = {}  # an action's event id -> (call id, tool name)

    def event_v0(self, event: dict[str, Any]) -> None:
        number = event.get("id")
        mid = f"V{number}" if isinstance(number, int) else f"V{len(self.entries)}.x"
        ts = as_str(event.get("timestamp"))
        args = event.get("args")
        args = args if isinstance(args, dict) else {}
        action, observation = as_str(event.get("action")), as_str(event.get("observation"))
        if action in QUIET or observation in QUIET:
            return
        if action == "message":
            text = as_str(args.get("content")) or as_str(event.get("message")) or ""
            images = [u for u in args.get("image_urls") or [] if isinstance(u, str)]
            text = "\n".join([text, *(f"[image: {u[:60]}]" for u in images)]).strip()
            if text and event.get("source") == "user":
                prompt = {"role": "user", "content": [{"type": "text", "text": text}]}
                self.add({"type": "message", "id": mid, "message": prompt}, ts)
            elif text:
                self.reply(mid, [{"type": "text", "text": text}], ts)
        elif action == "system":
            content = as_str(args.get("content")) or ""
            self.add({"type": "custom", "id": mid, "customType": "openhands:context", "content": content}, ts)
        elif action is not None and event.get("source") == "agent":
            meta = event.get("tool_call_metadata")
            meta = meta if isinstance(meta, dict) else {}
            cid = as_str(meta.get("tool_call_id")) or mid
            name = as_str(meta.get("function_name")) or action
            blocks: list[dict[str, Any]] = []
            thought = as_str(args.get("thought"))
            if thought:
                blocks.append({"type": "text", "text": thought})
            arguments = {k: v for k, v in args.items() if k != "thought"}
            blocks.append({"type": "toolCall", "id": cid, "name": name, "arguments": arguments})
            if isinstance(number, int):
                self.calls[number] = (cid, name)
            self.reply(mid, blocks, ts)
        elif observation is not None and isinstance(event.get("cause"), int) and event["cause"] in self.calls:
            cid, name = self.calls[event["cause"]]
            text = as_str(event.get("content")) or as_str(event.get("message")) or ""
            result = {"role": "toolResult", "toolCallId": cid, "toolName": name,
                      "content": [{"type": "text", "text": text}],
                      "isError": observation in FAILED}  # fmt: skip
            self.add({"type": "message", "id": mid, "message": result}, ts)
        elif action is not None or observation is not None:
            self.add({"type": "custom", "id": mid, "customType": "openhands:event", "data": event}, ts)
