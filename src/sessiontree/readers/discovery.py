"""Finding other agents' sessions: their default folders, the files under a root, a session by id.

Claude Code keeps ``~/.claude/projects/<encoded cwd>/<id>.jsonl`` (subagents in ``<id>/subagents/``
or, in 2.0, ``agent-<id>.jsonl`` beside); Codex CLI ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``; OpenCode
``~/.local/share/opencode/storage/session/<project>/ses_*.json`` (its messages and parts beside).
Listing reads only a prefix of each file; nothing here ever writes.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from sessiontree.readers.agent_info import read_agent_info
from sessiontree.readers.base import read_prefix_values
from sessiontree.readers.db_mirror import is_mirror_file, mirror_source, sync_mirror
from sessiontree.readers.opencode_layout import is_session_path as is_opencode_session
from sessiontree.readers.opencode_layout import is_storage_folder as is_opencode_storage_folder
from sessiontree.store.discovery import SessionInfo, printable, scandir_sorted
from sessiontree.store.paths import default_data_dir
from sessiontree.store.storage import entry_is, read_reason, resolves_inside

DEFAULT_ROOTS: tuple[tuple[str, str], ...] = (
    ("claude", ".claude/projects"),
    ("codex", ".codex/sessions"),
    ("gemini", ".gemini/tmp"),
    ("qwen", ".qwen/projects"),
    ("qwen", ".qwen/tmp"),
    ("copilot", ".copilot/session-state"),
    ("cline", ".cline/data/tasks"),
    ("continue", ".continue/sessions"),
    ("kimi", ".kimi/sessions"),
    ("factory", ".factory/sessions"),
    ("openhands", ".openhands/conversations"),
    ("openhands", ".openhands/sessions"),  # its 0.x server's file store
    ("openhands", ".openhands-state/sessions"),  # that store before 0.3x
)
"""(agent, folder under the home directory) of the agents whose sessions are picked up by default
(OpenCode's are under ``$XDG_DATA_HOME``: see ``opencode_roots``)."""

DATA_ROOTS: tuple[tuple[str, str], ...] = (("goose", "goose/sessions"), ("amp", "amp/threads"))
"""(agent, folder under ``$XDG_DATA_HOME``) of the agents that keep their sessions there as files."""

EDITOR_HOSTS = ("Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf")
"""The VS Code builds whose global storage may hold Cline's, Roo Code's or Kilo Code's tasks."""

KIRO_SESSIONS = Path("Kiro", "User", "globalStorage", "kiro.kiroagent", "workspace-sessions")
"""Where Kiro keeps its chat sessions, under the editors' config dir."""

TASK_HISTORY = "api_conversation_history.json"
"""The file of a Cline (Roo Code, Kilo Code) task folder read as its session."""

OPENHANDS_STATES = ("base_state.json", "metadata.json")
"""An OpenHands conversation's session file beside its ``events/`` folder: the SDK's, the 0.x server's."""

KIMI_WIRE = "wire.jsonl"
"""Kimi CLI's event log beside each ``context.jsonl``: read with it, never a session of its own."""

AIDER_HISTORY = ".aider.chat.history.md"
"""The name of Aider's chat history, kept in each repository it ran in (no folder of its own)."""

MAX_DEPTH = 4
"""Codex nests sessions three folders deep (YYYY/MM/DD); one more for good measure."""


def default_roots(
    home: Path | None = None, warn: Callable[[str], None] | None = None
) -> list[tuple[str, Path]]:
    """The default folders of the other agents that exist here, as (agent, folder).

    A folder that cannot be searched (not ours to enter) is left out and said to ``warn`` in one
    line; it never keeps another agent's folders from being found."""
    base = Path(home) if home is not None else Path.home()
    found = [(agent, base / rel) for agent, rel in DEFAULT_ROOTS if _is_dir(base / rel, warn)]
    data = None if home is None else base / ".local" / "share"
    data_roots = [(agent, (data or default_data_dir()) / rel) for agent, rel in DATA_ROOTS]
    for find in (opencode_roots, crush_roots, goose_roots, zed_roots):
        try:
            found += find(data, warn)
        except OSError as exc:  # a step of its own that failed: said, and the next agent's found
            _say(
                warn,
                f"Cannot search for {find.__name__.split('_')[0].capitalize()} sessions: {read_reason(exc)}",
            )
    has_db = any(agent == "goose" for agent, _ in found)  # Goose 1.x imported its JSONL files into it
    found += [(a, p) for a, p in data_roots if _is_dir(p, warn) and not (a == "goose" and has_db)]
    found += [(a, p) for a, p in task_roots(base if home is not None else None) if _is_dir(p, warn)]
    kiro = editor_config_dir(base if home is not None else None) / KIRO_SESSIONS
    found += [("kiro", kiro)] if _is_dir(kiro, warn) else []
    return found + cursor_roots(base, warn, editor_config_dir(base if home is not None else None))


def cursor_roots(
    home: Path, warn: Callable[[str], None] | None = None, config: Path | None = None
) -> list[tuple[str, Path]]:
    """Cursor's sessions: each CLI chat's ``~/.cursor/chats/<hash>/<id>/store.db`` and the editor's
    ``<config>/Cursor/User/globalStorage/state.vscdb`` (``editor_config_dir``), each database's
    mirror folder in our cache."""
    from sessiontree.readers.db_mirror import prepare_mirror

    found: list[tuple[str, Path]] = []
    editor = (config or editor_config_dir(home)) / "Cursor" / "User" / "globalStorage" / "state.vscdb"
    if editor.parent.is_dir() and _is_file(editor, warn):
        try:
            found.append(("cursor", prepare_mirror(editor, "cursor")))
        except OSError:
            return found  # no cache dir to mirror it into
    chats = home / ".cursor" / "chats"
    if not _is_dir(chats, warn):
        return found
    for folder in scandir_sorted(chats):
        for chat in scandir_sorted(Path(folder.path)) if entry_is(folder, "dir") else []:
            db = Path(chat.path) / "store.db"
            if entry_is(chat, "dir") and _is_file(db, warn):
                try:
                    found.append(("cursor", prepare_mirror(db, "cursor")))
                except OSError:
                    return found  # no cache dir to mirror them into
    return found


def editor_config_dir(home: Path | None = None) -> Path:
    """Where VS Code and its forks keep their user data: ``~/.config`` (``$XDG_CONFIG_HOME``) on
    Linux, ``~/Library/Application Support`` on macOS, ``%APPDATA%`` on Windows."""
    base = home if home is not None else Path.home()
    if sys.platform == "darwin":
        return base / "Library" / "Application Support"
    if os.name == "nt":
        return (
            Path(os.environ["APPDATA"])
            if home is None and os.environ.get("APPDATA")
            else base / "AppData" / "Roaming"
        )
    xdg = os.environ.get("XDG_CONFIG_HOME") if home is None else None
    return Path(xdg) if xdg else base / ".config"


def task_roots(home: Path | None = None) -> list[tuple[str, Path]]:
    """The ``tasks`` folders of Cline, Roo Code and Kilo Code in every VS Code build's global storage."""
    from sessiontree.store.formats import TASK_EXTENSIONS

    config = editor_config_dir(home)
    return [
        (agent, config / host / "User" / "globalStorage" / extension / "tasks")
        for host in EDITOR_HOSTS
        for extension, agent in TASK_EXTENSIONS.items()
    ]


def _say(warn: Callable[[str], None] | None, line: str) -> None:
    if warn is None:
        import logging  # only when a folder is skipped: a warm search loads no logging

        warn = logging.getLogger(__name__).warning
    warn(printable(line))


def _is_dir(path: Path, warn: Callable[[str], None] | None) -> bool:
    """Tell whether a default folder is there to walk; one not ours to search is said, and skipped."""
    try:
        return stat.S_ISDIR(path.stat().st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        _say(warn, f"Skipping {path}: {read_reason(exc)}")
        return False


def crush_roots(
    data_dir: Path | None = None, warn: Callable[[str], None] | None = None
) -> list[tuple[str, Path]]:
    """Crush's sessions: one mirror folder in our cache for each project database it notes."""
    from sessiontree.readers.crush import project_databases
    from sessiontree.readers.db_mirror import prepare_mirror

    found: list[tuple[str, Path]] = []
    for db in project_databases(data_dir, lambda path: _is_file(path, warn)):
        try:
            found.append(("crush", prepare_mirror(db, "crush")))
        except OSError:
            continue  # no cache dir to mirror it into
    return found


def goose_roots(
    data_dir: Path | None = None, warn: Callable[[str], None] | None = None
) -> list[tuple[str, Path]]:
    """Goose 1.x's sessions: its database's mirror folder in our cache (``readers.db_mirror``)."""
    from sessiontree.readers.db_mirror import prepare_mirror
    from sessiontree.readers.goose_db import database_path

    db = database_path(data_dir)
    if not _is_file(db, warn):
        return []
    try:
        return [("goose", prepare_mirror(db, "goose"))]
    except OSError:
        return []  # no cache dir to mirror it into


def zed_roots(
    data_dir: Path | None = None, warn: Callable[[str], None] | None = None
) -> list[tuple[str, Path]]:
    """Zed's agent threads: its ``threads/threads.db``'s mirror folder in our cache."""
    from sessiontree.readers.db_mirror import prepare_mirror
    from sessiontree.readers.zed import data_dir as zed_data_dir

    db = (data_dir / "zed" if data_dir is not None else zed_data_dir()) / "threads" / "threads.db"
    if not _is_file(db, warn):
        return []
    try:
        return [("zed", prepare_mirror(db, "zed"))]
    except OSError:
        return []  # no cache dir to mirror it into


def _is_file(path: Path, warn: Callable[[str], None] | None) -> bool:
    """Tell whether a database is a regular file to mirror (what else is there, or unsearchable: said)."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        _say(warn, f"Skipping {path}: {read_reason(exc)}")
        return False
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        _say(warn, f"Skipping {path}: it is not a regular file")
    return stat.S_ISREG(mode)


def opencode_roots(
    data_dir: Path | None = None, warn: Callable[[str], None] | None = None
) -> list[tuple[str, Path]]:
    """OpenCode's sessions: its database's mirror folder in our cache (``readers.db_mirror``),
    else, before OpenCode 1.x moved them into the database, its storage folder."""
    from sessiontree.readers.db_mirror import prepare_mirror
    from sessiontree.readers.opencode_db import database_path

    db = database_path(data_dir)
    if _is_file(db, warn):
        try:
            return [("opencode", prepare_mirror(db, "opencode"))]
        except OSError:
            pass  # no cache dir to mirror it into: the storage folder, if any
    storage = db.parent / "storage"
    return [("opencode", storage)] if _is_dir(storage / "session", warn) else []


def is_bundled_subagent(path: Path) -> bool:
    """Tell whether a file is a subagent transcript its session's reader already includes."""
    if path.parent.name == "subagents" and path.name.startswith("agent-"):
        return (path.parent.parent.with_suffix(".jsonl")).is_file()
    if not path.name.startswith("agent-"):
        return False
    try:
        first = read_prefix_values(path, 1)
    except OSError:
        return False
    session = first[0].get("sessionId") if first and isinstance(first[0], dict) else None
    return isinstance(session, str) and (path.parent / f"{session}.jsonl").is_file()


def is_chat_json(path: Path) -> bool:
    """Tell whether a path is named like Gemini CLI's (or Qwen Code's) one-object chat file
    (``chats/session-*.json``, written before their JSONL form)."""
    return path.name.startswith("session-") and path.parent.name == "chats"


def is_kiro_session(path: Path) -> bool:
    """Tell whether a path is named like a Kiro session (``workspace-sessions/<folder>/<id>.json``)."""
    return path.parent.parent.name == "workspace-sessions" and path.name != "sessions.json"


def is_continue_session(path: Path) -> bool:
    """Tell whether a path is named like a Continue session (``.continue/sessions/<id>.json``)."""
    return (
        path.parent.name == "sessions"
        and path.parent.parent.name == ".continue"
        and path.name != "sessions.json"
    )


def is_amp_thread(path: Path) -> bool:
    """Tell whether a path is named like an Amp thread (``threads/T-<uuid>.json``)."""
    return path.name.startswith("T-") and path.parent.name == "threads"


def iter_agent_files(root: str | Path, *, unreadable: bool = False) -> Iterator[Path]:
    """Every session file under a Claude Code or Codex root (subagent transcripts go with their
    session; symlinks leaving the root are skipped), sorted by path; with ``unreadable``, also
    what is named like one but is no file (a named pipe, a link to nothing), for a listing."""
    root = Path(root)
    real_root = root.resolve()
    if mirror_source(root) is not None:
        sync_mirror(root)  # a database's sessions brought up to date first (a failure said, never raised)

    def walk(directory: Path, depth: int) -> Iterator[Path]:
        for entry in scandir_sorted(directory):
            path = Path(entry.path)
            if not resolves_inside(path, real_root):
                continue
            # A folder named so is a project's (Claude Code names them after the cwd): walked.
            named = (
                entry.name.endswith(".jsonl")
                or entry.name == AIDER_HISTORY
                or (
                    entry.name.endswith(".json")
                    and (
                        is_opencode_session(path)
                        or is_chat_json(path)
                        or is_amp_thread(path)
                        or entry.name == TASK_HISTORY
                        or is_continue_session(path)
                        or is_kiro_session(path)
                        or (entry.name in OPENHANDS_STATES and (path.parent / "events").is_dir())
                        or (depth == 0 and is_mirror_file(path))
                    )
                )
            )
            if unreadable and named and not entry_is(entry, "file") and not entry_is(entry, "dir"):
                yield path  # a named pipe, a socket, a link to nothing: the listing says which
            if entry.name.endswith(".jsonl") and entry.name != KIMI_WIRE and entry_is(entry, "file"):
                if not is_bundled_subagent(path):
                    yield path
            elif named and not entry.name.endswith(".jsonl") and entry_is(entry, "file"):
                yield path
            elif (
                depth < MAX_DEPTH
                and entry_is(entry, "dir")
                and entry.name != "subagents"
                and not is_opencode_storage_folder(path)
            ):
                yield from walk(path, depth + 1)

    yield from walk(root, 0)


def root_agent(root: str | Path) -> str | None:
    """The agent whose sessions a folder holds, judged by the content of its first session files."""
    from sessiontree.errors import SessiontreeError
    from sessiontree.readers import detect_agent

    for index, path in enumerate(iter_agent_files(root)):
        try:
            agent = detect_agent(path)
        except (OSError, SessiontreeError):
            agent = None
        if agent is not None:
            return agent
        if index >= 4:
            break
    return None


def list_agent_sessions(root: str | Path, agent: str | None = None) -> list[SessionInfo]:
    """Every session under a root (any agent, or read as ``agent``), newest first."""
    infos = [info for path in iter_agent_files(root) if (info := read_agent_info(path, agent)) is not None]
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


_UUID_END = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def file_session_id(path: Path) -> str:
    """A Claude Code or Codex CLI session's id from its file name (Codex: the uuid ending it;
    Copilot CLI: the folder of its ``events.jsonl``)."""
    if path.name in ("events.jsonl", TASK_HISTORY, "context.jsonl", *OPENHANDS_STATES):
        return path.parent.name
    found = _UUID_END.search(path.stem)
    return found[0] if found is not None and path.stem.startswith("rollout-") else path.stem


def find_agent_session(prefix: str, roots: list[tuple[str, Path]] | None = None) -> list[Path]:
    """The other agents' session files whose id starts with ``prefix`` (from file names only),
    in the default folders (or ``roots``); the exact id alone when one matches it whole."""
    needle = prefix.lower()
    found: list[Path] = []
    exact: list[Path] = []
    roots = default_roots() if roots is None else roots
    for _, root in roots:
        for path in iter_agent_files(root):
            session_id = file_session_id(path).lower()
            if session_id.startswith(needle):
                found.append(path)
                if session_id == needle:
                    exact.append(path)
    return exact or found or _find_part(needle, roots)


def _find_part(needle: str, roots: list[tuple[str, Path]]) -> list[Path]:
    """The sessions whose id starts with ``needle`` among the later sessions of files that hold
    several (``store.parts``: their ids are inside the file, not in its name)."""
    from sessiontree.errors import SessiontreeError
    from sessiontree.readers import reader_for
    from sessiontree.store.parts import PART_AGENTS, part_path

    found: list[Path] = []
    exact: list[Path] = []
    for agent, root in roots:
        session_ids = getattr(reader_for(agent), "session_ids", None) if agent in PART_AGENTS else None
        if session_ids is None:
            continue
        for path in iter_agent_files(root):
            try:
                ids: list[str] = session_ids(path)
            except (OSError, SessiontreeError):
                continue  # listed as unreadable elsewhere; no session to find in it
            for sid in ids if len(ids) > 1 else ():
                if sid.lower().startswith(needle):
                    found.append(part_path(path, sid))
                    if sid.lower() == needle:
                        exact.append(part_path(path, sid))
    return exact or found
