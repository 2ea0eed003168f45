"""Another agent's file as listing records: its record with its counts and usage rows, and, for
a file that holds several sessions (``store.parts``), each session's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from sessiontree.store.discovery import SessionInfo, one_line
from sessiontree.store.parts import part_key


def foreign_info(path: Path, *, exact: bool = True) -> tuple[SessionInfo | None, list[list[Any]] | None]:
    """The listing record of another agent's file (Claude Code, Codex CLI) and its usage rows; with
    its exact count when ``exact`` (else a large file's count and usage stay None: pending)."""
    from sessiontree.archive.session_usage import usage_rows_of
    from sessiontree.readers import load_any
    from sessiontree.readers.agent_info import agent_info_and_entries, last_entry_time
    from sessiontree.store.entries import message_of
    from sessiontree.store.kinds import is_typed_prompt

    info, entries = agent_info_and_entries(path)
    if info is None or info.agent == "pi":
        return None, None
    if (
        info.message_count is None and exact
    ):  # a large file: its count needs the whole read (cached by size, mtime)
        entries = load_any(path, info.agent).entries
        count = sum(1 for e in entries if message_of(e) is not None)
        info = replace(info, message_count=count, last_activity=last_entry_time(entries))
    if entries is not None:
        info = replace(info, prompt_count=sum(1 for e in entries if is_typed_prompt(e)))
    return info, None if entries is None else usage_rows_of(entries)


def session_parts(path: Path, key: str, agent: str) -> list[tuple[SessionInfo, list[list[Any]]]]:
    """Each session of a file that holds several as its own record (keyed ``<key>#<id>``:
    ``store.parts``) with its usage rows; none for a file of one session."""
    from sessiontree.archive.session_usage import usage_rows_of
    from sessiontree.readers.agent_info import part_infos
    from sessiontree.store.kinds import is_typed_prompt

    found = []
    for info, entries in part_infos(path, agent):
        prompts = sum(1 for e in entries if is_typed_prompt(e))
        title = one_line(info.title or "") or None
        entry = replace(info, key=part_key(key, info.id), title=title, prompt_count=prompts)
        found.append((entry, usage_rows_of(entries)))
    return found
