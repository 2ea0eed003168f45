"""Other agents' session formats (Claude Code, Codex CLI) read into the same Session model.

``load_any(path)`` detects the format from the file's content (never its name) and returns a
``Session`` the renderer, viewer, dump, search and stats use unchanged. Foreign files are only
ever read: the write path refuses them through ``store.formats``, where every format's sniffing lives.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.errors import InvalidSession, SessionNotFound
from sessiontree.readers.base import READERS, Reader, read_prefix_values
from sessiontree.store.formats import (
    AGENT_LABELS,
    agent_of_tables,
    database_tables,
    is_aider_text,
    is_sqlite_file,
    sniff_agent,
    task_agent,
)

if TYPE_CHECKING:
    from sessiontree.store.session import Session

AGENTS: tuple[str, ...] = tuple(sorted(AGENT_LABELS))
"""The ``--agent`` choices."""

DETECTION_ORDER: tuple[str, ...] = tuple(AGENT_LABELS)


def _readers() -> dict[str, Reader]:
    """The registry, its readers imported on first use (a warm ``search`` needs none of them)."""
    from sessiontree.readers import (  # noqa: F401  (each registers its reader)
        aider,
        amp,
        claude,
        cline,
        codex,
        continue_dev,
        copilot,
        crush,
        cursor,
        factory,
        gemini,
        goose,
        kimi,
        opencode,
        openhands,
        pi,
        qwen,
        zed,
    )

    return READERS


def agent_label(agent: str) -> str:
    """The name people know an agent by (``Claude Code``)."""
    return AGENT_LABELS.get(agent, agent)


def detect_values(values: list[Any]) -> str | None:
    """The agent whose format the first parsed lines of a file are, or None."""
    # The readers' own sniff is store.formats' table: detecting imports no reader.
    return sniff_agent(values)


def _readable(path: Path) -> None:
    try:
        is_dir = stat.S_ISDIR(path.stat().st_mode)
    except FileNotFoundError:
        raise SessionNotFound(f"File not found: {path}") from None
    except OSError as exc:  # a folder on its path not ours to enter, a symlink loop
        from sessiontree.store.session import cannot_read

        raise cannot_read(path, exc) from None
    if is_dir:
        raise InvalidSession(f"{path} is a directory, not a session file")


def detect_agent(path: str | Path) -> str | None:
    """The agent that wrote a file (or one session of it: ``store.parts``), from its first lines
    (None when no reader knows it)."""
    from sessiontree.store.parts import split_part

    path = split_part(Path(path))[0]
    _readable(path)
    if is_sqlite_file(path):
        return sniff_database(path)
    if is_aider_file(path):
        return "aider"
    try:
        agent = detect_values(read_prefix_values(path))
    except OSError as exc:
        from sessiontree.store.session import cannot_read

        raise cannot_read(path, exc) from None
    return task_agent(path) if agent == "cline" else agent


def is_aider_file(path: Path) -> bool:
    """Tell whether a file is Aider's Markdown chat history, from its first bytes."""
    from sessiontree.store.bounded import read_head

    try:
        return is_aider_text(read_head(path, 4096))
    except OSError:
        return False


def sniff_database(path: Path) -> str | None:
    """The agent whose database a SQLite file is (its tables read in place, else from a copy when
    a checkpoint tore the read)."""
    from sessiontree.readers.database_copy import copy_tables

    return agent_of_tables(database_tables(path) or copy_tables(path))


def reader_for(agent: str) -> Reader:
    """The reader of an ``--agent`` name."""
    try:
        return _readers()[agent]
    except KeyError:
        raise InvalidSession(f"Unknown agent {agent!r}; use one of: {', '.join(AGENTS)}") from None


def load_any(
    path: str | Path,
    agent: str | None = None,
    *,
    agent_dir: Path | None = None,
    blobs_dir: Path | None = None,
) -> Session:
    """Load a session file of any known agent, read-only (``agent`` forces a reader).

    A file no reader knows gives the empty session of the pi loader (``session.is_empty``), so
    callers keep one "not a session file" message. Missing files, directories and unreadable
    files raise the store's one-line errors.
    """
    from sessiontree.store.parts import split_part

    path, part = split_part(Path(path))  # one session of a file that holds several (``store.parts``)
    name = agent or detect_agent(path) or "pi"
    reader = reader_for(name)
    try:
        if part is not None:
            session = _read_part(reader, path, part)
        else:
            session = reader.read(path, agent_dir=agent_dir, blobs_dir=blobs_dir)
    except PermissionError:
        raise InvalidSession(f"Cannot read {path}: permission denied") from None
    except IsADirectoryError:
        raise InvalidSession(f"{path} is a directory, not a session file") from None
    except OSError as exc:  # a named pipe, a device, a file too large: refused, never opened or read
        from sessiontree.store.session import cannot_read

        raise cannot_read(path, exc) from None
    if name != "pi" and not session.entries and not session.bad_lines and agent is not None:
        session.header = {}  # forced onto a file that has nothing of that format
    return session


def _read_part(reader: Reader, path: Path, part: str) -> Session:
    """One session of a file that holds several, by the reader of such files."""
    read_part = getattr(reader, "read_part", None)
    if read_part is None:
        raise SessionNotFound(f"{path} holds one session: {path}#{part} names none")
    session: Session = read_part(path, part)
    return session


def load_for_export(
    input_path: str | Path,
    *,
    blobs_dir: Path | None = None,
    agent: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Session:
    """Load a session file of any agent for a page (read-only), refusing missing files and non-sessions.

    ``agent`` forces the reader (claude, codex, gemini, opencode, pi); by default the file's content decides.
    ``warn`` gets one line when loading repaired or skipped anything (a damaged file), and one
    when images refer to blobs that are not there (a file copied out of its agent folder).
    """
    # The loading side, imported here: detecting a file's agent (a warm search) needs none of it.
    from sessiontree.store.blobs import describe_missing_blobs
    from sessiontree.store.discovery import printable
    from sessiontree.store.repair import describe_damage
    from sessiontree.store.session import require_header

    path = Path(input_path)
    session = require_header(load_any(path, agent, blobs_dir=blobs_dir))
    if warn is not None:
        damage = describe_damage(session.repairs, session.bad_lines)
        if damage is not None:
            warn(printable(f"Warning: {path.name}: {damage}"))
        if session.missing_blobs:
            said = describe_missing_blobs(session.missing_blobs, session.unreadable_blobs)
            warn(printable(f"Warning: {path.name}: {said}"))
        note = several_note(path, session)
        if note is not None:
            warn(printable(note))
    return session


def several_note(path: Path, session: Session) -> str | None:
    """For a file read whole that holds several sessions (Gemini CLI's a2a server's): how to take
    one of them alone (``store.parts``); else None."""
    session_ids = getattr(_readers().get(agent_of(session)), "session_ids", None)
    if session_ids is None or not path.is_file():
        return None
    try:
        found: list[str] = session_ids(path)
    except OSError:
        return None
    if len(found) < 2:
        return None
    shown = ", ".join(found[:5]) + (", …" if len(found) > 5 else "")
    return f"Note: {path.name} holds {len(found)} sessions ({shown}); one alone: {path}#<id>"


def agent_of(session: Session) -> str:
    """The agent that wrote a loaded session (``pi`` for our own format)."""
    agent = session.header.get("agent")
    return agent if isinstance(agent, str) and agent in _readers() and agent != "pi" else "pi"


def foreign_agent(path: str | Path) -> str | None:
    """The other agent that wrote ``path`` (None for our own format, unknown or missing files)."""
    try:
        agent = detect_agent(path)
    except (SessionNotFound, InvalidSession):
        return None
    return agent if agent not in (None, "pi") else None


__all__ = [
    "AGENTS",
    "READERS",
    "agent_label",
    "agent_of",
    "detect_agent",
    "detect_values",
    "foreign_agent",
    "load_any",
    "load_for_export",
    "reader_for",
    "several_note",
]
