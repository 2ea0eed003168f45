"""The loaded session: header, entries, leaf, and what loading found along the way."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.store.context import UNSET, SessionContext, _Unset, build_session_context
from sessiontree.store.entries import CURRENT_VERSION, Entry
from sessiontree.store.jsonl import BadLine, paused_gc
from sessiontree.store.tree import SessionTree


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
    _tree: SessionTree | None = field(default=None, repr=False)

    @property
    def is_empty(self) -> bool:
        """True when the file was missing, empty or had no valid header."""
        return not self.header

    @property
    def id(self) -> str | None:
        value = self.header.get("id")
        return value if isinstance(value, str) else None

    @property
    def cwd(self) -> str | None:
        value = self.header.get("cwd")
        return value if isinstance(value, str) else None

    @property
    def title(self) -> str | None:
        value = self.header.get("title")
        return value if isinstance(value, str) and value else None

    @property
    def timestamp(self) -> str | None:
        value = self.header.get("timestamp")
        return value if isinstance(value, str) else None

    @property
    def tree(self) -> SessionTree:
        """The entry tree, built on first use and cached until ``invalidate()``."""
        if self._tree is None:
            with paused_gc():
                self._tree = SessionTree(self.entries)
        return self._tree

    def invalidate(self) -> None:
        """Forget derived state after the entries changed."""
        self._tree = None

    def context(self, leaf_id: str | _Unset | None = UNSET) -> SessionContext:
        """The model context of ``leaf_id`` (default: the session's leaf)."""
        leaf = self.leaf_id if leaf_id is UNSET else leaf_id
        return build_session_context(self.entries, leaf, self.tree.by_id)

    def session_init(self, leaf_id: str | _Unset | None = UNSET) -> Entry | None:
        """The last ``session_init`` entry on the path to ``leaf_id`` (what that branch was given)."""
        for entry in reversed(self.path_entries(leaf_id)):
            if entry.get("type") == "session_init":
                return entry
        return None

    def path_entries(self, leaf_id: str | _Unset | None = UNSET) -> list[Entry]:
        """Entries from the root to ``leaf_id`` (default: the session's leaf)."""
        return self.tree.path_to(self.leaf_id if leaf_id is UNSET else leaf_id)
