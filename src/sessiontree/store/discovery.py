"""Finding sessions: folders per cwd, light metadata from a file prefix, terminal breadcrumbs."""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sessiontree.store.entries import TITLE_SLOT_BYTES, is_title_slot, is_valid_header, session_title
from sessiontree.store.jsonl import decode_line
from sessiontree.store.output_sink import sanitize_text
from sessiontree.store.paths import AgentPaths
from sessiontree.store.storage import FileSessionStorage, MemorySessionStorage, SessionStorage, entry_is
from sessiontree.store.surrogates import shown_name
from sessiontree.store.times import started_time, utc_datetime
from sessiontree.store.titles import cut_title

PREFIX_BYTES = 4096
"""How much of each file metadata extraction reads."""

CHEAP_COUNT_BYTES = 64 * 1024
"""Files up to this size are read whole, so their message count is exact."""

PREVIEW_CHARS = 200

TERMINAL_ENV_VARS = ("TERM_SESSION_ID", "WT_SESSION", "TMUX_PANE")

_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


LIVE_SECONDS = 60.0
"""A session changed within this many seconds shows as live."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a listing shows of one session file of any agent, read from its first bytes.

    The one listing record of a file: ``list``, ``resume`` and the catalog (``archive.catalog``,
    serve's and build's index) read it (another agent's file through
    ``readers.discovery.read_agent_info``, its ``cwd`` empty when unknown). In a catalog it also
    carries its ``key`` under the listed folder, its parent's key and, for a file that cannot be
    listed as a session, the ``error`` saying why (then only path, key, size and modified hold).
    """

    path: Path
    id: str
    cwd: str
    title: str | None
    first_message: str | None
    created: str | None
    modified: float
    size: int
    message_count: int | None
    """Exact count of message entries, or None when that would mean reading a large file whole
    (in a catalog: pending, until its background pass reads the file)."""
    parent_session: str | None = None
    agent: str = "pi"
    """The agent that wrote the file (claude, codex: read through ``sessiontree.readers``)."""
    key: str = ""
    """In a catalog: the file's path relative to the listed folder, ``/`` separated (its id in URLs)."""
    parent_key: str | None = None
    """In a catalog: the key of the session this one is a subagent of."""
    error: str | None = None
    """In a catalog: why the file cannot be listed as a session."""
    prompt_count: int | None = None
    """In a catalog: the typed prompts (``store.kinds.is_typed_prompt``), once the whole file was read."""
    last_activity: str | None = None
    """The time of the file's last entry that has one (ISO, as written), when the whole file was read."""
    machine: str | None = None
    """The machine a kept session came from (``keep``'s shown copies); None for this machine's live files."""
    kept: str | None = None
    """For a kept session whose own file is gone: the day (ISO) ``keep`` found it gone."""

    @property
    def display_title(self) -> str:
        """The title, else the first prompt, else an empty string."""
        return self.title or self.first_message or ""

    @property
    def pending(self) -> bool:
        """True when the count (and a title set late in the file) waits for the whole read."""
        return self.error is None and self.message_count is None

    def is_live(self, now: float | None = None) -> bool:
        """True when the file changed in the last minute."""
        return (time.time() if now is None else now) - self.modified < LIVE_SECONDS

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (paths as strings)."""
        return (
            {
                "id": self.id,
                "path": str(self.path),
                "cwd": self.cwd,
                "title": self.title,
                "firstMessage": self.first_message,
                "created": self.created,
                "modified": utc_datetime(self.modified).isoformat(timespec="milliseconds"),
                "size": self.size,
                "messageCount": self.message_count,
                "parentSession": self.parent_session,
            }
            | ({"agent": self.agent} if self.agent != "pi" else {})
            | ({"machine": self.machine} if self.machine else {})
            | ({"kept": self.kept} if self.kept else {})
        )


def printable(text: str, width: int | None = None, *, keep_end: bool = False) -> str:
    """Make session text safe for one terminal line (no escapes, controls, newlines); cut to ``width``."""
    flat = sanitize_text(shown_name(text)).replace("\n", " ").replace("\t", " ")
    if width is None or len(flat) <= width:
        return flat
    return "…" + flat[-(width - 1) :] if keep_end else flat[: width - 1] + "…"


def normalize_cwd(cwd: str | Path) -> str:
    """Return the absolute cwd string written in headers and used for folder names."""
    return os.path.abspath(os.path.expanduser(str(cwd)))


def session_dir_for(cwd: str | Path, agent_dir: Path) -> Path:
    """Return the folder of one cwd's sessions: ``<agent>/sessions/--<cwd encoded>--``."""
    return AgentPaths(agent_dir).session_dir_for(normalize_cwd(cwd))


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
        return " ".join(p for p in parts if isinstance(p, str))
    return ""


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The one-line preview of a text in a listing: whitespace runs as one space, cut to ``limit``
    at a word boundary."""
    return cut_title(text, limit)


def _preview(text: str) -> str | None:
    return one_line(text) or None


def scandir_sorted(directory: Path) -> list[os.DirEntry[str]]:
    """The entries of a folder sorted by name (none when it cannot be read)."""
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _parse_lines(text: str) -> list[Any]:
    values: list[Any] = []
    for line in text.split("\n"):
        if not line.strip():
            continue
        try:
            values.append(decode_line(line))
        except ValueError:
            values.append(None)
    return values


def _read_head(path: Path, storage: SessionStorage, size: int) -> tuple[str, bool]:
    """Return the text to scan and whether it is the whole file."""
    if size <= CHEAP_COUNT_BYTES:
        return storage.read_bytes_sync(path).decode("utf-8", errors="replace"), True
    text = storage.read_text_prefix_sync(path, PREFIX_BYTES)
    cut = text.rfind("\n")
    if cut < 0 or (cut < TITLE_SLOT_BYTES and text.startswith('{"type":"title"')):
        # The header alone is longer than the prefix: rare, so read the file to find it (it
        # may follow oh-my-pi's title slot on line 1).
        whole = storage.read_bytes_sync(path).decode("utf-8", errors="replace")
        end = whole.find("\n")
        if whole.startswith('{"type":"title"') and end >= 0:
            end = whole.find("\n", end + 1)
        return whole[: end + 1 if end >= 0 else len(whole)], False
    return text[:cut], False  # the last line of a prefix is usually cut short


def read_session_info(path: Path, storage: SessionStorage | None = None) -> SessionInfo | None:
    """Read one session file's metadata from its first 4,096 bytes; None when it is not a session."""
    storage = storage or FileSessionStorage()
    try:
        stat = storage.stat_sync(path)
        if not stat.is_file:
            return None
        text, whole = _read_head(path, storage, stat.size)
    except OSError:
        return None
    return session_info_of(path, _parse_lines(text.lstrip("\ufeff")), stat.mtime, stat.size, whole=whole)


def session_info_of(
    path: Path, values: list[Any], mtime: float, size: int, *, whole: bool
) -> SessionInfo | None:
    """The record of a file whose non-blank lines parse to ``values`` (None: not JSON), in order:
    all of its first 51, then any later ones that hold a message, a title or a name (the catalog's
    one pass parses only those); None when it is not a session."""
    slot = values[0] if len(values) > 1 and is_title_slot(values[0]) else None
    if slot is not None:
        values = values[1:]
    if not values or not is_valid_header(values[0]):
        return None
    header: dict[str, Any] = values[0]
    first: str | None = None
    count = 0
    for value in values[1:]:
        if not isinstance(value, dict) or value.get("type") != "message":
            continue
        count += 1
        message = value.get("message")
        if first is None and isinstance(message, dict) and message.get("role") == "user":
            first = _preview(_text_of(message.get("content")))
    # Names given later (title_change, session_info) count when they fall in the prefix read.
    title = session_title(header, slot, [v for v in values[1:] if isinstance(v, dict)])
    cwd = header.get("cwd")
    created = started_time(header.get("timestamp"), [v for v in values[1:50] if isinstance(v, dict)])
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        title=_preview(title) if isinstance(title, str) else None,
        first_message=first,
        created=created,
        modified=mtime,
        size=size,
        message_count=count if whole else None,
        parent_session=parent if isinstance(parent, str) else None,
    )


def _infos(directory: Path, storage: SessionStorage) -> list[SessionInfo]:
    infos = [read_session_info(p, storage) for p in storage.list_files_sync(directory, ".jsonl")]
    return [info for info in infos if info is not None]


def _newest_first(infos: list[SessionInfo]) -> list[SessionInfo]:
    return sorted(infos, key=lambda i: (i.modified, i.path.name), reverse=True)


def get_recent_sessions(
    session_dir: Path, limit: int = 10, storage: SessionStorage | None = None
) -> list[SessionInfo]:
    """Return the ``limit`` most recently modified sessions of a folder."""
    return _newest_first(_infos(session_dir, storage or FileSessionStorage()))[:limit]


def find_most_recent_session(session_dir: Path, storage: SessionStorage | None = None) -> Path | None:
    """Return the path of the most recently modified session of a folder, if any."""
    recent = get_recent_sessions(session_dir, 1, storage)
    return recent[0].path if recent else None


def list_sessions(
    cwd: str | Path,
    agent_dir: Path,
    session_dir: Path | None = None,
    storage: SessionStorage | None = None,
) -> list[SessionInfo]:
    """List the sessions of one project (or of an explicit session folder), newest first."""
    directory = session_dir if session_dir is not None else session_dir_for(cwd, agent_dir)
    return _newest_first(_infos(directory, storage or FileSessionStorage()))


def list_all_sessions(agent_dir: Path, storage: SessionStorage | None = None) -> list[SessionInfo]:
    """List the sessions of every project under ``<agent>/sessions``, newest first."""
    storage = storage or FileSessionStorage()
    root = AgentPaths(agent_dir).sessions_dir
    folders: list[Path]
    if isinstance(storage, MemorySessionStorage):
        folders = sorted(d for d in storage.dirs if d.parent == root)
    else:
        try:
            with os.scandir(root) as it:
                folders = sorted(Path(e.path) for e in it if entry_is(e, "dir"))
        except OSError:
            folders = []
    infos: list[SessionInfo] = []
    for folder in folders:
        infos.extend(_infos(folder, storage))
    return _newest_first(infos)


# Terminal breadcrumbs ---------------------------------------------------------------------------


def terminal_id(env: Mapping[str, str] | None = None) -> str | None:
    """Return a stable, file-safe id of the terminal this process runs in, or None outside one."""
    env = os.environ if env is None else env
    raw: str | None = next((env[k] for k in TERMINAL_ENV_VARS if env.get(k)), None)
    if raw is None:
        try:
            raw = os.ttyname(sys.stdin.fileno()) if sys.stdin is not None and sys.stdin.isatty() else None
        except (OSError, ValueError):
            raw = None
    if not raw:
        return None
    return _UNSAFE_NAME.sub("_", raw.strip("/"))[:200] or None


@dataclass(frozen=True, slots=True)
class Breadcrumb:
    """The last session a terminal used: its cwd and session file."""

    cwd: str
    session_file: Path


def breadcrumb_path(agent_dir: Path, term: str) -> Path:
    """Return ``<agent>/terminal-sessions/<terminal-id>``."""
    return AgentPaths(agent_dir).terminal_sessions_dir / _UNSAFE_NAME.sub("_", term)


def write_terminal_breadcrumb(
    agent_dir: Path, term: str, cwd: str, session_file: Path, storage: SessionStorage | None = None
) -> None:
    """Record (two lines: cwd, session path) that this terminal now uses ``session_file``."""
    from sessiontree.store.persist import rewrite_atomically  # the write path: no cost of a listing

    target = breadcrumb_path(agent_dir, term)
    rewrite_atomically(storage or FileSessionStorage(), target, [cwd, str(session_file)])


def read_terminal_breadcrumb(
    agent_dir: Path, term: str, storage: SessionStorage | None = None
) -> Breadcrumb | None:
    """Read a terminal's breadcrumb; None when there is none or it is malformed."""
    storage = storage or FileSessionStorage()
    try:
        lines = storage.read_bytes_sync(breadcrumb_path(agent_dir, term)).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if len(lines) < 2 or not lines[0] or not lines[1]:
        return None
    return Breadcrumb(lines[0], Path(lines[1]))


def find_continue_target(
    cwd: str | Path,
    agent_dir: Path,
    session_dir: Path | None = None,
    *,
    term: str | None = None,
    storage: SessionStorage | None = None,
) -> Path | None:
    """Find the session ``continue`` opens: this terminal's breadcrumb when it fits, else the newest."""
    storage = storage or FileSessionStorage()
    cwd = normalize_cwd(cwd)
    if term:
        crumb = read_terminal_breadcrumb(agent_dir, term, storage)
        if crumb is not None and crumb.cwd == cwd and storage.exists_sync(crumb.session_file):
            return crumb.session_file
    directory = session_dir if session_dir is not None else session_dir_for(cwd, agent_dir)
    return find_most_recent_session(directory, storage)
