"""The session model: header, the entry types and the message roles, as typed JSON dicts.

Entries stay the plain dicts read from the file, so unknown types, roles and fields are carried
verbatim and a load/write round trip gives the same JSON values.
"""

from __future__ import annotations

import json
from typing import Any, Literal, NotRequired, TypedDict

CURRENT_VERSION = 3

Entry = dict[str, Any]
"""One non-header line of a session file (any entry type, known or not)."""

Message = dict[str, Any]
"""An AgentMessage: a dict with a ``role`` (user, assistant, toolResult, ...)."""

ENTRY_TYPES: tuple[str, ...] = (
    "message",
    "thinking_level_change",
    "model_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "ttsr_injection",
    "session_init",
    "mode_change",
    # pi
    "session_info",
    # oh-my-pi
    "title_change",
    "reset_boundary",
    "archive",
    "model_usage",
    "service_tier_change",
    "credential_pin",
)

MESSAGE_ROLES: tuple[str, ...] = (
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "pythonExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "fileMention",
    "developer",
    "hookMessage",
)

TITLE_SLOT_TYPE = "title"
TITLE_SLOT_BYTES = 256
"""oh-my-pi may open a file with a fixed-width title record (rewritten in place) before the header."""

BLOB_REF_PREFIX = "blob:sha256:"


class SessionHeader(TypedDict):
    type: Literal["session"]
    id: str
    version: NotRequired[int]
    timestamp: NotRequired[str]
    cwd: NotRequired[str]
    title: NotRequired[str]
    parentSession: NotRequired[str]


class EntryBase(TypedDict):
    type: str
    id: str
    parentId: str | None
    timestamp: str


class MessageEntry(EntryBase):
    message: Message


class ThinkingLevelChangeEntry(EntryBase):
    thinkingLevel: str


class ModelChangeEntry(EntryBase):
    model: str
    role: NotRequired[str]


class CompactionEntry(EntryBase):
    summary: str
    firstKeptEntryId: str
    tokensBefore: int
    shortSummary: NotRequired[str]
    details: NotRequired[Any]
    preserveData: NotRequired[dict[str, Any]]
    fromExtension: NotRequired[bool]


class BranchSummaryEntry(EntryBase):
    fromId: str
    summary: str
    details: NotRequired[Any]
    fromExtension: NotRequired[bool]


class CustomEntry(EntryBase):
    customType: str
    data: NotRequired[Any]


class CustomMessageEntry(EntryBase):
    customType: str
    content: str | list[dict[str, Any]]
    display: bool
    details: NotRequired[Any]


class LabelEntry(EntryBase):
    targetId: str
    label: NotRequired[str | None]


class TtsrInjectionEntry(EntryBase):
    injectedRules: list[str]


class SessionInitEntry(EntryBase):
    systemPrompt: str
    task: NotRequired[str]
    tools: NotRequired[list[Any]]
    outputSchema: NotRequired[Any]


class ModeChangeEntry(EntryBase):
    mode: str
    data: NotRequired[dict[str, Any]]


def is_valid_header(obj: object) -> bool:
    """Tell whether a parsed first line is a session header (type "session" and a string id)."""
    return isinstance(obj, dict) and obj.get("type") == "session" and isinstance(obj.get("id"), str)


def is_title_slot(obj: object) -> bool:
    """Tell whether a parsed first line is oh-my-pi's title slot (``{"type": "title", "v": 1, ...}``)."""
    return isinstance(obj, dict) and obj.get("type") == TITLE_SLOT_TYPE


def title_slot_line(slot: dict[str, Any]) -> str:
    """The slot as its fixed-width line (no newline): ``TITLE_SLOT_BYTES`` with the newline.

    The padding lives inside the JSON string ``pad``, so the line stays valid JSON; a title too
    long for the slot is shortened, as oh-my-pi does (the full title is in ``title_change``).
    """
    record = {**slot, "pad": ""}
    title = record.get("title") if isinstance(record.get("title"), str) else ""
    while True:
        record["title"] = title
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        room = TITLE_SLOT_BYTES - 1 - len(line.encode("utf-8"))
        if room >= 0 or not title:
            break
        title = title[: max(0, len(title) - max(1, -room))]
    record["pad"] = " " * max(room, 0)
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def session_title(header: dict[str, Any], slot: dict[str, Any] | None, entries: list[Entry]) -> str | None:
    """The title: the latest ``title_change`` / ``session_info``, else the slot's, else the header's.

    pi names a session with ``session_info {name}``, oh-my-pi with ``title_change {title}``
    (and rewrites the slot, which may hold a shortened title); the latest non-empty one wins.
    """
    for entry in reversed(entries):
        kind = entry.get("type")
        if kind == "title_change":
            value = entry.get("title")
        elif kind == "session_info":
            value = entry.get("name")
        else:
            continue
        if isinstance(value, str) and value.strip():
            return value.strip()
    for holder in (slot, header):
        value = holder.get("title") if holder else None
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def header_version(header: dict[str, Any]) -> int:
    """The header's format version; a missing or malformed one means v1."""
    version = header.get("version")
    return version if isinstance(version, int) and not isinstance(version, bool) else 1


def message_of(entry: Entry) -> Message | None:
    """The message dict of a ``message`` entry, or None."""
    if entry.get("type") != "message":
        return None
    message = entry.get("message")
    return message if isinstance(message, dict) else None


def content_blocks(value: object) -> list[dict[str, Any]]:
    """The dict blocks of a content value (a string content has none)."""
    return dicts_of(value)


def strings_of(value: object) -> list[str]:
    """The strings of a JSON list, in order (anything else in it, or no list, as a number where a
    list belongs: none)."""
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def dicts_of(value: object) -> list[dict[str, Any]]:
    """The objects of a JSON list, in order (anything else in it, or no list: none)."""
    if isinstance(value, list):
        return [item for item in value if isinstance(item, dict)]
    return []
