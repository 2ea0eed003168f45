"""Where Claude Code keeps a session's subagent transcripts: ``<id>/subagents/agent-*.jsonl`` (2.1),
a workflow's agents under ``<id>/subagents/workflows/wf_<run>/agent-*.jsonl`` (2.1.17x), or
``agent-*.jsonl`` beside the session (2.0), each found only inside the session's own folder.

Apart from the reader: serve's routes, the site and the follower find a subagent's file without
loading the reader.
"""

from __future__ import annotations

import re
from pathlib import Path

from sessiontree.readers.base import read_prefix_values
from sessiontree.store.subagents import contained

AGENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
"""A subagent's id as Claude Code writes it (``agent-<id>.jsonl``): a plain name."""


def _names_session(path: Path, session_id: str) -> bool:
    """Tell whether a 2.0 ``agent-*.jsonl`` file belongs to this session (its first line says so)."""
    try:
        first = read_prefix_values(path, 1)
    except OSError:
        return False
    return bool(first) and isinstance(first[0], dict) and first[0].get("sessionId") == session_id


def subagent_files(path: Path, session_id: str) -> list[Path]:
    """The subagent transcripts kept beside a session: ``<id>/subagents/agent-*.jsonl`` (2.1) or
    ``agent-*.jsonl`` in the same folder whose lines name this session (2.0)."""
    if path.name.startswith("agent-"):
        return []
    folder = path.parent
    nested = folder / path.stem / "subagents"
    found = [
        p
        for p in (*sorted(nested.glob("agent-*.jsonl")), *sorted(nested.glob("workflows/*/agent-*.jsonl")))
        if contained(p, folder)
    ]
    found.extend(
        p
        for p in sorted(folder.glob("agent-*.jsonl"))
        if contained(p, folder) and _names_session(p, session_id)
    )
    return found


def subagent_file(path: Path, agent_id: str, session_id: str | None = None) -> Path | None:
    """One subagent's transcript, by agent id, among the files ``subagent_files`` finds; else None.

    Contained: the agent id is a plain name (no separator, no dot) and the file, links followed,
    lies inside the session's own folder. ``session_id`` defaults to the file's stem (Claude Code
    names a session's file by its id).
    """
    if not AGENT_ID.fullmatch(agent_id) or path.name.startswith("agent-"):
        return None
    name = f"agent-{agent_id}.jsonl"
    subagents = path.parent / path.stem / "subagents"
    nested = [subagents / name, *sorted(subagents.glob(f"workflows/*/{name}"))]
    beside = path.parent / name
    for candidate in (*nested, beside):
        if not contained(candidate, path.parent):
            continue
        if candidate is not beside or _names_session(candidate, session_id or path.stem):
            return candidate
    return None
