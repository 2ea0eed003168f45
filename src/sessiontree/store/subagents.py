"""A session's subagent sessions, found and read on first use by the reader that owns the format.

oh-my-pi keeps them as sessions of their own in ``<session folder>/<AgentId>.jsonl`` beside the
parent's artifacts (listed under the parent's key; a page embeds each under the task result that
ran it). Claude Code keeps ``agent-<id>.jsonl`` transcripts that its reader reads into the parent's
tree (each gets a page of its own in serve and build). Either way nothing outside the session's
own folder is read: a transcript that is a link leading out of it is not a subagent
(``contained``, the one rule).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.errors import SessiontreeError
from sessiontree.store.storage import entry_is, resolves_inside

if TYPE_CHECKING:
    from sessiontree.store.session import Session

MAX_DEPTH = 4
"""How deep subagents of subagents are read (and nested on a page)."""


def contained(path: Path, folder: Path) -> bool:
    """True when ``path`` is a regular file that, links followed, lies inside ``folder``
    (``storage.resolves_inside``, the store's one containment rule)."""
    try:
        real_folder = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return entry_is(path, "file") and resolves_inside(path, real_folder)


class Subagents:
    """A session's subagent sessions by agent id: listed, then each read, on first use.

    ``embedded``: each is shown under the task result that ran it (oh-my-pi); else they are in
    the parent's tree already and only linked to their own page (Claude Code). A transcript that
    cannot be read is ``None`` (the page says so).
    """

    def __init__(
        self,
        find: Callable[[], Mapping[str, Callable[[], Session]]] | None = None,
        *,
        embedded: bool = True,
    ) -> None:
        self.embedded = embedded
        self._find = find
        self._loaders: Mapping[str, Callable[[], Session]] | None = None if find is not None else {}
        self._loaded: dict[str, Session | None] = {}

    @classmethod
    def of(cls, sessions: Mapping[str, Session | None], *, embedded: bool = True) -> Subagents:
        """Subagents already in memory (a redacted copy, a test)."""
        made = cls(embedded=embedded)
        made._loaders = {agent_id: _unreadable for agent_id in sessions}
        made._loaded = dict(sessions)
        return made

    def ids(self) -> list[str]:
        """The agent ids, in name order of their files."""
        if self._loaders is None:
            assert self._find is not None
            self._loaders = self._find()
        return list(self._loaders)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self.ids()

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids())

    def __len__(self) -> int:
        return len(self.ids())

    def get(self, agent_id: str) -> Session | None:
        """The subagent's session, read once; None when it is not one of these or cannot be read."""
        if agent_id not in self._loaded:
            load = dict(self._loaders or {}).get(agent_id) if agent_id in self.ids() else None
            try:
                self._loaded[agent_id] = load() if load is not None else None
            except (SessiontreeError, OSError, ValueError, RecursionError):
                self._loaded[agent_id] = None
        return self._loaded[agent_id]

    def load_all(self, depth: int = 0) -> None:
        """Read every subagent now, theirs too (as deep as a page nests them)."""
        if depth >= MAX_DEPTH:
            return
        for agent_id in self.ids():
            sub = self.get(agent_id)
            if sub is not None:
                sub.subagents.load_all(depth + 1)


def _unreadable() -> Session:
    raise SessiontreeError("not loaded")


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


def pi_subagents(session_path: Path | None) -> Subagents:
    """The oh-my-pi subagents of a session file, listed and read (``load_session``) on first use."""

    def find() -> dict[str, Callable[[], Session]]:
        from sessiontree.store.load import load_session

        files = subagent_files(session_path)
        return {agent_id: functools.partial(load_session, path) for agent_id, path in files.items()}

    return Subagents(find)


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
