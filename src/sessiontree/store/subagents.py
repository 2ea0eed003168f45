"""A session's subagent sessions, found and read on first use by the reader that owns the format.

oh-my-pi keeps them as sessions of their own in ``<session folder>/<AgentId>.jsonl`` beside the
parent's artifacts (listed under the parent's key; a page embeds each under the task result that
ran it). Claude Code keeps ``agent-<id>.jsonl`` transcripts that its reader reads into the parent's
tree (each gets a page of its own in serve and build). Either way nothing outside the session's
own folder is read: a transcript that is a link leading out of it is not a subagent
(``contained``, the one rule). The ``Subagents`` holder is part of ``store.session`` and the pi
listing that reads each with ``load_session`` part of ``store.load``, so this module imports neither.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from sessiontree.store.session import MAX_DEPTH
from sessiontree.store.storage import entry_is, resolves_inside

SUBAGENT_KEY = "subagent"
"""The field a reader sets, to the agent id, on each entry of a subagent's transcript it read into
the parent's tree (Claude Code's ``agent-*.jsonl``): the page counts them apart from the session's own."""


def subagent_of(entry: Mapping[str, Any]) -> str | None:
    """The agent id of the subagent an entry belongs to (None: the session's own conversation)."""
    agent = entry.get(SUBAGENT_KEY)
    return agent if isinstance(agent, str) else None


def contained(path: Path, folder: Path) -> bool:
    """True when ``path`` is a regular file that, links followed, lies inside ``folder``
    (``storage.resolves_inside``, the store's one containment rule)."""
    try:
        real_folder = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return entry_is(path, "file") and resolves_inside(path, real_folder)


def subagent_files(session_path: Path | None) -> dict[str, Path]:
    """The oh-my-pi subagent sessions of a session file, by agent id (the file stem), in name order.

    Advisor transcripts (``__advisor*.jsonl``) live there too; they are not subagents. Only
    files inside the session's folder count (``contained``).
    """
    if session_path is None or session_path.suffix != ".jsonl":
        return {}
    folder = session_path.with_suffix("")
    try:
        files = sorted(
            p for p in folder.glob("*.jsonl") if entry_is(p, "file") and not p.name.startswith("__")
        )
    except OSError:
        return {}
    return {p.stem: p for p in files if contained(p, session_path.parent)}


def related_files(session_path: Path, depth: int = 0) -> Iterable[Path]:
    """Every file beside a session file that its page may read: both agents' subagent transcripts.

    What a whole-page cache key covers (Claude Code's ``agent-*.jsonl`` and oh-my-pi's subagent
    sessions, theirs too), contained as the readers contain them.
    """
    folder = session_path.parent
    yield from opencode_storage_files(session_path)
    claude = [
        *folder.glob("agent-*.jsonl"),
        *(folder / session_path.stem / "subagents").glob("agent-*.jsonl"),
    ]
    yield from sorted(p for p in claude if contained(p, folder))
    if depth >= MAX_DEPTH:
        return
    for path in subagent_files(session_path).values():
        yield path
        yield from related_files(path, depth + 1)


def is_storage_session(path: Path) -> bool:
    """Tell whether a path is named as an OpenCode storage session is (``session/<project>/ses_….json``)."""
    return path.name.startswith("ses_") and path.suffix == ".json" and path.parent.parent.name == "session"


def opencode_storage_files(session_path: Path) -> Iterable[Path]:
    """The folders and files an OpenCode storage session's page reads (``<root>/session/<p>/ses_….json``:
    ``<root>/message/<id>/`` and each message's ``<root>/part/<message>/``), none for any other file.

    Each folder counts too: a part file added or removed changes its folder's time.
    """
    if not is_storage_session(session_path):
        return
    root = session_path.parent.parent.parent
    messages = root / "message" / session_path.stem
    yield messages
    for message in _json_files(messages):
        yield message
        parts = root / "part" / message.stem
        yield parts
        yield from _json_files(parts)


def storage_stamp(session_path: Path) -> list[tuple[str, int, int]] | None:
    """Name, size and change time of every file and folder ``opencode_storage_files`` names (a
    page of such a session is stale when this changes, though the session file did not); None
    for any other file."""
    if not is_storage_session(session_path):
        return None
    found = []
    for path in opencode_storage_files(session_path):
        try:
            st = path.stat()
        except OSError:
            continue
        found.append((str(path), st.st_size, st.st_mtime_ns))
    return found


def _json_files(folder: Path) -> list[Path]:
    try:
        return sorted(folder / name for name in os.listdir(folder) if name.endswith(".json"))
    except OSError:
        return []


def task_agent_ids(details: Any) -> list[str]:
    """The agent ids a task tool result names (``details.results[*]``: taskId, or its transcript)."""
    results = details.get("results") if isinstance(details, Mapping) else None
    ids: list[str] = []
    for result in results if isinstance(results, list) else []:
        if not isinstance(result, Mapping):
            continue
        for key in ("taskId", "agentId", "id"):
            value = result.get(key)
            if isinstance(value, str) and value:
                ids.append(value)
                break
        else:
            paths = result.get("artifactPaths")
            jsonl = paths.get("jsonlPath") if isinstance(paths, Mapping) else None
            if isinstance(jsonl, str) and jsonl.endswith(".jsonl"):
                ids.append(Path(jsonl).stem)
    return ids


def subagent_key(key: str, agent_id: str) -> str:
    """A subagent session's listing key from its parent's (``a/s.jsonl`` -> ``a/s/<id>.jsonl``)."""
    return f"{key.removesuffix('.jsonl')}/{agent_id}.jsonl"
