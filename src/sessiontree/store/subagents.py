"""oh-my-pi subagent sessions: ``<session folder>/<AgentId>.jsonl`` beside the parent's artifacts."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sessiontree.store.storage import entry_is


def subagent_files(session_path: Path | None) -> dict[str, Path]:
    """The subagent sessions of a session file, by agent id (the file stem), in name order.

    Advisor transcripts (``__advisor*.jsonl``) live there too; they are not subagents.
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
    return {p.stem: p for p in files}


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
