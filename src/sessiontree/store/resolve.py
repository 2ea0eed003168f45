"""resolve_session: turn a resume argument (a path or an id prefix) into a session file."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sessiontree.errors import AmbiguousSession, SessionNotFound
from sessiontree.store.discovery import (
    SessionInfo,
    list_all_sessions,
    list_sessions,
    normalize_cwd,
    printable,
    read_session_info,
)
from sessiontree.store.formats import refuse_foreign
from sessiontree.store.load import ensure_readable
from sessiontree.store.manager import SessionManager
from sessiontree.store.parts import split_part
from sessiontree.store.session import explain_not_a_session
from sessiontree.store.storage import FileSessionStorage, SessionStorage

Confirm = Callable[[str], bool]
"""Asks the user a yes/no question; None where nobody can answer (no TTY)."""

MAX_CANDIDATES_SHOWN = 8


@dataclass(frozen=True, slots=True)
class ResolvedSession:
    """Where a resume argument led: the file to open, and the file it was forked from, if any."""

    path: Path
    forked_from: Path | None = None


def looks_like_path(value: str) -> bool:
    """Tell whether a resume value names a file (it has ``/``, ``\\`` or ``.jsonl``)."""
    return "/" in value or "\\" in value or value.endswith(".jsonl")


def check_session_file(path: Path, storage: SessionStorage | None = None) -> SessionInfo:
    """Return the metadata of ``path``; raise a one-line error when it is missing or not a session."""
    storage = storage or FileSessionStorage()
    if split_part(path)[1] is not None:
        refuse_foreign(path)  # one session of another agent's file of several (<file>#<id>)
    ensure_readable(path, storage)  # one-line errors: missing, directory, unreadable
    info = read_session_info(path, storage)
    if info is None:
        refuse_foreign(path)  # another agent's file: say so (the write path never takes one)
        raise explain_not_a_session(path, storage)
    return info


def match_prefix(value: str, infos: list[SessionInfo]) -> SessionInfo | None:
    """Return the one session whose id starts with ``value``; None when none does; raise when many do."""
    needle = value.lower()
    matches = [info for info in infos if info.id.lower().startswith(needle)]
    exact = [info for info in matches if info.id.lower() == needle]
    if exact:
        matches = exact
    distinct = {info.path: info for info in matches}
    if not distinct:
        return None
    if len(distinct) == 1:
        return next(iter(distinct.values()))
    shown = list(distinct.values())[:MAX_CANDIDATES_SHOWN]
    more = len(distinct) - len(shown)
    names = ", ".join(
        f"{printable(i.id, 40)} ({printable(i.cwd or i.path.parent.name, 60, keep_end=True)})" for i in shown
    )
    names += f", +{more} more" if more else ""
    raise AmbiguousSession(
        f"Session id prefix '{value}' matches {len(distinct)} sessions: {names}; type more of the id"
    )


def _find(
    value: str, agent_dir: Path, cwd: str | Path, session_dir: Path | None, storage: SessionStorage
) -> tuple[SessionInfo, bool]:
    """Find the session a value names, and whether it was found without the global search."""
    if looks_like_path(value) or os.path.isfile(value):
        return check_session_file(Path(value).expanduser().absolute(), storage), True
    if not value.strip():
        raise SessionNotFound("Empty session id; pass an id prefix or a path to a .jsonl file")
    found = match_prefix(value, list_sessions(cwd, agent_dir, session_dir, storage))
    if found is not None:
        return found, True
    if session_dir is None:
        found = match_prefix(value, list_all_sessions(agent_dir, storage))
    if found is None:
        where = f"in {session_dir}" if session_dir is not None else f"under {agent_dir / 'sessions'}"
        raise SessionNotFound(f"No session id starts with '{value}' {where}; run 'sessiontree list --all'")
    return found, False


def find_session(
    value: str,
    agent_dir: Path,
    cwd: str | Path,
    *,
    session_dir: Path | None = None,
    storage: SessionStorage | None = None,
) -> SessionInfo:
    """Find the session a value names: a path as is; an id prefix here, then in every project.

    The global search is skipped when ``session_dir`` is given (as the reference does).
    """
    return _find(value, agent_dir, cwd, session_dir, storage or FileSessionStorage())[0]


def resolve_session(
    value: str,
    agent_dir: Path,
    cwd: str | Path,
    *,
    session_dir: Path | None = None,
    confirm: Confirm | None = None,
    storage: SessionStorage | None = None,
) -> ResolvedSession:
    """Resolve a resume value as ``find_session`` does; a match from the global search that
    belongs to another project is forked into this one when ``confirm`` says yes, else an error.
    """
    storage = storage or FileSessionStorage()
    cwd = normalize_cwd(cwd)
    found, in_scope = _find(value, agent_dir, cwd, session_dir, storage)
    if in_scope or not found.cwd or normalize_cwd(found.cwd) == cwd:
        return ResolvedSession(found.path)
    return _fork_into(found, cwd, agent_dir, session_dir, confirm, storage)


def _fork_into(
    found: SessionInfo,
    cwd: str,
    agent_dir: Path,
    session_dir: Path | None,
    confirm: Confirm | None,
    storage: SessionStorage,
) -> ResolvedSession:
    if confirm is None:
        raise SessionNotFound(
            f"Session {found.id} belongs to another project ({found.cwd}); "
            f"pass its path ({printable(str(found.path))}) or run from that project"
        )
    question = f"Session found in different project: {found.cwd}. Fork into current directory?"
    if not confirm(question):
        raise SessionNotFound(
            f"Not forked: session {found.id} stays in {found.cwd}; pass its path to open it there"
        )
    manager = SessionManager.fork_from(found.path, cwd, session_dir, agent_dir=agent_dir, storage=storage)
    try:
        assert manager.session_file is not None
        return ResolvedSession(manager.session_file, forked_from=found.path)
    finally:
        manager.close()
