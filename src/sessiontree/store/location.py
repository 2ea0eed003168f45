"""SessionLocation: where a session lives and who writes it, given once to every constructor."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from sessiontree.store.discovery import normalize_cwd, session_dir_for, terminal_id
from sessiontree.store.paths import default_agent_dir
from sessiontree.store.storage import FileSessionStorage, SessionStorage


class LocationArgs(TypedDict, total=False):
    """The keyword arguments every ``SessionManager`` constructor takes (all optional)."""

    agent_dir: Path | None
    storage: SessionStorage | None
    term: str | None


@dataclass(frozen=True)
class SessionLocation:
    """A project cwd, its session folder, the agent dir, the storage and this terminal's id."""

    cwd: str
    session_dir: Path
    agent_dir: Path
    storage: SessionStorage
    term: str | None

    @classmethod
    def of(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        persist: bool = True,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
    ) -> SessionLocation:
        """Fill in the defaults: ``<agent dir>/sessions/--<cwd>--``, the real filesystem, this terminal."""
        cwd = normalize_cwd(cwd)
        agent = agent_dir if agent_dir is not None else default_agent_dir()
        return cls(
            cwd=cwd,
            session_dir=session_dir if session_dir is not None else session_dir_for(cwd, agent),
            agent_dir=agent,
            storage=storage if storage is not None else FileSessionStorage(),
            term=term if term is not None else (terminal_id() if persist else None),
        )
