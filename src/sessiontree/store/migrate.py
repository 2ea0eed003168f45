"""Migrations v1 -> v2 -> v3, applied in memory to the parsed header and entries."""

from __future__ import annotations

import hashlib
from typing import Any

from sessiontree.store.entries import CURRENT_VERSION, Entry, header_version


def stable_entry_id(seed: str, index: int, salt: int = 0) -> str:
    """The id a v1 entry gets on migration: 8 hex digits from the header id and its position."""
    return hashlib.sha256(f"{seed}:{index}:{salt}".encode()).hexdigest()[:8]


def _stable_ids(seed: str, count: int, taken: set[str]) -> list[str]:
    """Make ``count`` unique 8-hex ids derived from ``seed``, so a re-load gives the same ids."""
    ids: list[str] = []
    for index in range(count):
        salt = 0
        while True:
            candidate = stable_entry_id(seed, index, salt)
            if candidate not in taken:
                break
            salt += 1
        taken.add(candidate)
        ids.append(candidate)
    return ids


def migrate_v1_to_v2(header: dict[str, Any], entries: list[Entry]) -> None:
    """Give every entry an id and a linear parent chain; compaction index -> entry id."""
    ids = _stable_ids(str(header.get("id", "")), len(entries), set())
    previous: str | None = None
    for entry, entry_id in zip(entries, ids, strict=True):
        entry["id"] = entry_id
        entry["parentId"] = previous
        previous = entry_id
    # Index 0 of firstKeptEntryIndex is the header line, so entry i of the file is entries[i - 1].
    for entry in entries:
        if entry.get("type") != "compaction" or "firstKeptEntryIndex" not in entry:
            continue
        index = entry.pop("firstKeptEntryIndex")
        if isinstance(index, int) and not isinstance(index, bool) and 1 <= index <= len(entries):
            entry["firstKeptEntryId"] = entries[index - 1]["id"]
    header["version"] = 2


def migrate_v2_to_v3(header: dict[str, Any], entries: list[Entry]) -> None:
    """Rename the legacy message role ``hookMessage`` to ``custom``."""
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "hookMessage":
            message["role"] = "custom"
    header["version"] = 3


def migrate_legacy_model_changes(entries: list[Entry]) -> bool:
    """Turn ``model_change {provider, modelId}`` into ``{model: "provider/modelId"}``.

    The reference forgets this, so its context rebuild loses the model of old sessions.
    """
    changed = False
    for entry in entries:
        if entry.get("type") != "model_change" or "model" in entry:
            continue
        provider, model_id = entry.get("provider"), entry.get("modelId")
        if isinstance(provider, str) and isinstance(model_id, str):
            entry["model"] = f"{provider}/{model_id}"
            del entry["provider"], entry["modelId"]
            changed = True
    return changed


def migrate_to_current(header: dict[str, Any], entries: list[Entry]) -> list[str]:
    """Bring header and entries to the current version in place; return the steps applied."""
    applied: list[str] = []
    version = header_version(header)
    if version < 2:
        migrate_v1_to_v2(header, entries)
        applied.append("v1->v2")
    if version < CURRENT_VERSION:
        migrate_v2_to_v3(header, entries)
        applied.append("v2->v3")
    if migrate_legacy_model_changes(entries):
        applied.append("model_change provider/modelId->model")
    return applied
