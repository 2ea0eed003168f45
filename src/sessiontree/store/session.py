"""The loaded session: header, entries, leaf, and what loading found along the way."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.errors import InvalidSession, SessionNotFound, SessiontreeError
from sessiontree.store.context import UNSET, SessionContext, _Unset, build_session_context
from sessiontree.store.entries import CURRENT_VERSION, Entry, session_title
from sessiontree.store.formats import AGENT_LABELS
from sessiontree.store.jsonl import BadLine, paused_gc
from sessiontree.store.repair import Repair
from sessiontree.store.storage import FileSessionStorage, SessionStorage, read_reason
from sessiontree.store.times import started_time
from sessiontree.store.tree import SessionTree

MAX_DEPTH = 4
"""How deep subagents of subagents are read (and nested on a page)."""


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


@dataclass(eq=False)
class Session:
    """A session in memory (entries are the raw JSON dicts, migrated to the current version)."""

    header: dict[str, Any]
    entries: list[Entry] = field(default_factory=list)
    path: Path | None = None
    leaf_id: str | None = None
    version_found: int = CURRENT_VERSION
    migrations: list[str] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)
    missing_blobs: list[str] = field(default_factory=list)
    unreadable_blobs: dict[str, str] = field(default_factory=dict)  # blob file -> why, of missing_blobs
    # What loading repaired in memory (see store.repair) and, per reattached entry, its joint note.
    repairs: list[Repair] = field(default_factory=list)
    joints: dict[str, str] = field(default_factory=dict)
    title_slot: dict[str, Any] | None = None
    # Its subagents' sessions, found and read on first use by the reader of its format.
    subagents: Subagents = field(default_factory=Subagents, repr=False)
    # Derived from the entries, never given: dataclasses.replace() then builds a fresh tree.
    _tree: SessionTree | None = field(default=None, init=False, repr=False)

    @property
    def is_empty(self) -> bool:
        """True when the file was missing, empty or had no valid header."""
        return not self.header

    def _header_text(self, name: str) -> str | None:
        value = self.header.get(name)
        return value if isinstance(value, str) else None

    @property
    def id(self) -> str | None:
        return self._header_text("id")

    @property
    def cwd(self) -> str | None:
        return self._header_text("cwd")

    @property
    def title(self) -> str | None:
        """The latest title or name the session was given (entries, title slot, header)."""
        return session_title(self.header, self.title_slot, self.entries)

    @property
    def timestamp(self) -> str | None:
        return self._header_text("timestamp")

    @property
    def started(self) -> str | None:
        """When the session began: the header's time, or the first entry's when that is earlier
        (a header rewritten later keeps its new time)."""
        return started_time(self.timestamp, self.entries[:50])

    @property
    def tree(self) -> SessionTree:
        """The entry tree, built on first use."""
        if self._tree is None:
            with paused_gc():
                self._tree = SessionTree(self.entries)
        return self._tree

    def context(self, leaf_id: str | _Unset | None = UNSET) -> SessionContext:
        """The model context of ``leaf_id`` (default: the session's leaf)."""
        leaf = self.leaf_id if leaf_id is UNSET else leaf_id
        return build_session_context(self.entries, leaf, self.tree.by_id, joints=self.joints)

    def session_init(self, leaf_id: str | _Unset | None = UNSET) -> Entry | None:
        """The last ``session_init`` entry on the path to ``leaf_id`` (what that branch was given)."""
        for entry in reversed(self.path_entries(leaf_id)):
            if entry.get("type") == "session_init":
                return entry
        return None

    def path_entries(self, leaf_id: str | _Unset | None = UNSET) -> list[Entry]:
        """Entries from the root to ``leaf_id`` (default: the session's leaf)."""
        return self.tree.path_to(self.leaf_id if leaf_id is UNSET else leaf_id)


def not_a_session_file(path: Path | None, why: str) -> InvalidSession:
    """The one error for a file that is not a session, saying why (``it is empty``, ...)."""
    return InvalidSession(f"Not a session file: {path} ({why})")


def cannot_read(path: Path | str | None, exc: OSError) -> InvalidSession:
    """The one error for a session file that cannot be read: ``Cannot read PATH: <reason>``."""
    return InvalidSession(f"Cannot read {path}: {read_reason(exc)}")


def explain_not_a_session(path: Path | None, storage: SessionStorage | None = None) -> SessiontreeError:
    """The error for a path that gave no session: missing, a directory, empty, or no header."""
    if path is None:
        return not_a_session_file(path, "it has no file")
    try:
        stat = (storage or FileSessionStorage()).stat_sync(path)
    except FileNotFoundError:
        return SessionNotFound(f"File not found: {path}")
    except OSError as exc:
        return cannot_read(path, exc)
    if not stat.is_file:
        return not_a_session_file(path, "it is a directory")
    if stat.size == 0:
        return not_a_session_file(path, "it is empty")
    tried = ", ".join(AGENT_LABELS.values())
    return not_a_session_file(
        path, f"its first line is not a session header, and it is no format sessiontree reads: tried {tried}"
    )


def require_header(session: Session, storage: SessionStorage | None = None) -> Session:
    """Return ``session``, or raise the one "not a session file" error when it has no valid header."""
    if session.is_empty:
        raise explain_not_a_session(session.path, storage)
    return session
