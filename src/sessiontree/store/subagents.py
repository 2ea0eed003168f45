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
