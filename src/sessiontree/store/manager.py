"""SessionManager: the write path (append, branch, rewrite, fork, move) of one session.

The file itself is a SessionFile (write state, appender, rewrites); relocation lives in
store/relocate.py; where the session lives is one SessionLocation.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Unpack

from sessiontree.errors import EntryNotFound, PersistError, SessiontreeError
from sessiontree.store.appends import EntryAppends
from sessiontree.store.atomic import remove_stale_temps
from sessiontree.store.blobs import BlobStore
from sessiontree.store.context import SessionContext, build_session_context
from sessiontree.store.discovery import (
    breadcrumb_path,
    find_continue_target,
    normalize_cwd,
    session_dir_for,
    write_terminal_breadcrumb,
)
from sessiontree.store.entries import CURRENT_VERSION, Entry, message_of, title_slot_line
from sessiontree.store.jsonl import decode_raw, paused_gc
from sessiontree.store.load import rehydrate_blobs
from sessiontree.store.location import LocationArgs, SessionLocation
from sessiontree.store.paths import AgentPaths
from sessiontree.store.persist import to_line
from sessiontree.store.relocate import copy_artifacts, movable_artifacts, move_session_files
from sessiontree.store.session import Session, explain_not_a_session
from sessiontree.store.session_file import SessionFile, WriteState
from sessiontree.store.storage import MemorySessionStorage, SessionStorage
from sessiontree.store.tree import SessionTree

log = logging.getLogger(__name__)


def now_iso() -> str:
    """Return the current UTC time as ``2026-02-16T10:20:30.000Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_file_name(timestamp: str, session_id: str) -> str:
    """Return the file name ``<ISO time with : and . as ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def new_session_id() -> str:
    """Return a random 16-hex-char session id."""
    return secrets.token_hex(8)


class SessionManager(EntryAppends):
    """One session in memory, kept in step with its JSONL file.

    Appends change memory at once; nothing is written before the first assistant message, then
    the whole session is written, then each entry is appended. The first persistence error is
    kept and raised again by every later operation.
    """

    def __init__(self, where: SessionLocation, *, persist: bool = True) -> None:
        self.where = where
        self.persist = persist
        self.header: dict[str, Any] = {}
        # oh-my-pi's fixed-width title line before the header, kept on every rewrite.
        self.title_slot: dict[str, Any] | None = None
        self._entries: list[Entry] = []
        self._tree = SessionTree()
        self._answered = False  # an assistant message is among the entries
        self._leaf_id: str | None = None
        self._lock = threading.RLock()
        blobs = BlobStore(AgentPaths(where.agent_dir).blobs_dir) if persist else None
        self._file = SessionFile(where.storage, None, blobs)

    @property
    def cwd(self) -> str:
        return self.where.cwd

    @property
    def session_dir(self) -> Path:
        return self.where.session_dir

    @property
    def agent_dir(self) -> Path:
        return self.where.agent_dir

    @property
    def storage(self) -> SessionStorage:
        return self.where.storage

    @property
    def term(self) -> str | None:
        return self.where.term

    # Construction ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        parent_session: str | None = None,
        **where: Unpack[LocationArgs],
    ) -> SessionManager:
        """Start a persistent session for ``cwd`` (its file appears with the first assistant message)."""
        manager = cls(SessionLocation.of(cwd, session_dir, **where))
        manager._file.start(manager._new_session(parent_session))
        manager._leave_breadcrumb()
        return manager

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: Path | None = None,
        *,
        cwd: str | Path | None = None,
        rewrite_migrated: bool = True,
        **where: Unpack[LocationArgs],
    ) -> SessionManager:
        """Open a session file persistently (existing or new); see ``set_session_file``.

        ``cwd`` (default: the process cwd) is used only when the file has no cwd of its own.
        """
        path = Path(path).absolute()
        manager = cls(SessionLocation.of(cwd or os.getcwd(), session_dir or path.parent, **where))
        manager.set_session_file(path, rewrite_migrated=rewrite_migrated)
        return manager

    @classmethod
    def in_memory(cls, cwd: str | Path = ".") -> SessionManager:
        """Start a session that is never written anywhere."""
        where = SessionLocation.of(cwd, persist=False, storage=MemorySessionStorage())
        manager = cls(where, persist=False)
        manager._new_session(None)  # no file: the SessionFile keeps path None
        return manager

    @classmethod
    def continue_recent(
        cls, cwd: str | Path, session_dir: Path | None = None, **where: Unpack[LocationArgs]
    ) -> SessionManager:
        """Open this terminal's last session for ``cwd``, else the newest one, else start one."""
        place = SessionLocation.of(cwd, session_dir, **where)
        target = find_continue_target(
            cwd, place.agent_dir, session_dir, term=place.term, storage=place.storage
        )
        args = LocationArgs(agent_dir=place.agent_dir, storage=place.storage, term=place.term)
        if target is None:
            return cls.create(cwd, session_dir, **args)
        return cls.open(target, session_dir, cwd=cwd, **args)

    @classmethod
    def fork_from(
        cls,
        source: str | Path,
        target_cwd: str | Path,
        session_dir: Path | None = None,
        **where: Unpack[LocationArgs],
    ) -> SessionManager:
        """Copy ``source``'s entries into a new session of ``target_cwd`` (written at once)."""
        source = Path(source).absolute()
        manager = cls.create(target_cwd, session_dir, **where)
        loaded = SessionFile(manager.storage, None, None).read(source)  # refuses foreign files too
        if loaded is None or loaded.is_empty:
            raise explain_not_a_session(source, manager.storage)
        rehydrate_blobs(loaded, source, agent_dir=manager.agent_dir)
        manager.header["parentSession"] = str(source)
        manager._set_entries(loaded.entries, loaded.leaf_id)
        manager._rewrite()
        if manager.session_file is not None:
            copy_artifacts(manager.storage, source, manager.session_file)
        return manager

    def set_session_file(self, path: str | Path, *, rewrite_migrated: bool = True) -> None:
        """Switch to a session file: load it, migrate it (rewritten at once), or start it afresh.

        A missing file becomes a new session at that path (written with the first assistant
        message); an empty file, or one without a valid header, is replaced by a fresh header now.
        Temp files of writers that died in its folder are removed first.
        """
        with self._lock:
            self._file.check()
            path = Path(path).absolute()
            remove_stale_temps(path.parent, storage=self.storage)
            loaded = self._file.read(path)
            if loaded is None or loaded.is_empty:
                self._new_session(None)  # at this path: read() made it the file
                if loaded is not None:
                    self._rewrite()
            else:
                rehydrate_blobs(loaded, path, agent_dir=self.agent_dir)
                self.header = loaded.header
                self.title_slot = loaded.title_slot
                cwd = loaded.header.get("cwd")
                if isinstance(cwd, str) and cwd:
                    self.where = dataclasses.replace(self.where, cwd=cwd)
                self._set_entries(loaded.entries, loaded.leaf_id)
                if loaded.migrations and rewrite_migrated:
                    self._rewrite()
            self._leave_breadcrumb()

    def _new_session(self, parent_session: str | None) -> Path | None:
        """Start a fresh header and no entries; return the file such a new session gets."""
        timestamp = now_iso()
        self.header = {"type": "session", "version": CURRENT_VERSION, "id": new_session_id()}
        self.header.update(timestamp=timestamp, cwd=self.cwd)
        self.title_slot = None
        if parent_session is not None:
            self.header["parentSession"] = parent_session
        self._set_entries([], None)
        return self.session_dir / session_file_name(timestamp, self.header["id"]) if self.persist else None

    def _set_entries(self, entries: list[Entry], leaf_id: str | None) -> None:
        self._entries, self._tree = [], SessionTree()
        self._answered = False
        with paused_gc():
            for entry in entries:
                self._index(entry)
        self._leaf_id = leaf_id

    def _index(self, entry: Entry) -> None:
        self._entries.append(entry)
        self._tree.add(entry)
        message = message_of(entry)
        if message is not None and message.get("role") == "assistant":
            self._answered = True

    def _leave_breadcrumb(self) -> None:
        if not self.persist or not self.term or self.session_file is None:
            return
        try:
            remove_stale_temps(breadcrumb_path(self.agent_dir, self.term).parent, storage=self.storage)
            write_terminal_breadcrumb(self.agent_dir, self.term, self.cwd, self.session_file, self.storage)
        except OSError as exc:
            log.warning("could not write the terminal breadcrumb: %s", exc)

    # Reading -----------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return str(self.header.get("id", ""))

    @property
    def session_file(self) -> Path | None:
        return self._file.path

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def persist_error(self) -> PersistError | None:
        """The first persistence error, if any."""
        return self._file.error

    @property
    def write_state(self) -> WriteState:
        """Where the file stands against memory (behind, in step, torn, failed)."""
        return self._file.state

    def get_entries(self) -> list[Entry]:
        """Return every entry in insertion order."""
        return list(self._entries)

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._tree.by_id.get(entry_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._tree.label_of(entry_id)

    @property
    def tree(self) -> SessionTree:
        """The entry tree, kept up to date by every append (read it, do not add to it)."""
        return self._tree

    def to_session(self) -> Session:
        """Return a read-side ``Session`` view of the current state."""
        return Session(
            header=self.header,
            entries=list(self._entries),
            path=self.session_file,
            leaf_id=self._leaf_id,
            title_slot=self.title_slot,
        )

    def get_branch(self, leaf_id: str | None = None) -> list[Entry]:
        """Return the entries from the root to ``leaf_id`` (default: the current leaf)."""
        return self._tree.path_to(leaf_id if leaf_id is not None else self._leaf_id)

    def build_context(self) -> SessionContext:
        """Build the model context of the current leaf."""
        return build_session_context(self._entries, self._leaf_id, self._tree.by_id)

    # Appending ---------------------------------------------------------------------------------

    def _new_entry_id(self) -> str:
        while True:
            candidate = secrets.token_hex(4)
            if candidate not in self._tree.by_id:
                return candidate

    def _append(self, kind: str, fields: dict[str, Any]) -> str:
        with self._lock:
            self._file.check()
            entry: Entry = {"type": kind, "id": self._new_entry_id(), "parentId": self._leaf_id}
            entry["timestamp"] = now_iso()
            entry.update((k, v) for k, v in fields.items() if v is not None)
            self._index(entry)
            self._leaf_id = entry["id"]
            self._file.append(entry, answered=self._answered, lines=self._lines, take_in=self._take_in)
            return str(entry["id"])

    # Moving the leaf ---------------------------------------------------------------------------

    def _require_entry(self, entry_id: str) -> None:
        if entry_id not in self._tree.by_id:
            raise EntryNotFound(
                f"No entry {entry_id!r} in session {self.session_id}; pick an id from its tree"
            )

    def branch(self, entry_id: str) -> None:
        """Move the leaf to ``entry_id`` (entries are not touched)."""
        with self._lock:
            self._require_entry(entry_id)
            self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Clear the leaf: the next append starts a new root."""
        with self._lock:
            self._leaf_id = None

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_extension: bool | None = None,
    ) -> str:
        """Move the leaf to ``branch_from_id`` (None: before the root) and append a branch summary."""
        with self._lock:
            if branch_from_id is not None:
                self._require_entry(branch_from_id)
            self._file.check()
            self._leaf_id = branch_from_id
            fields = {"fromId": branch_from_id if branch_from_id is not None else "root", "summary": summary}
            return self._append(
                "branch_summary", {**fields, "details": details, "fromExtension": from_extension}
            )

    # Rewrites ----------------------------------------------------------------------------------

    def _written(self) -> bool:
        return (
            self.persist
            and self.session_file is not None
            and self._file.state
            in (
                WriteState.IN_STEP,
                WriteState.TORN,
            )
        )

    def set_session_name(self, name: str) -> None:
        """Set the header title (the file is rewritten atomically when it is already written)."""
        with self._lock:
            self._file.check()
            self.header["title"] = name
            if self.title_slot is not None:
                self.title_slot = {**self.title_slot, "title": name, "source": "user", "updatedAt": now_iso()}
            if self._written():
                self._rewrite()

    def rewrite_entries(self) -> None:
        """Re-index the entries (edited in place by the caller) and rewrite the file atomically."""
        with self._lock:
            self._file.check()
            leaf = self._leaf_id if self._leaf_id in self._tree.by_id else None
            self._set_entries(list(self._entries), leaf)
            if self._leaf_id is None and self._entries:
                self._leaf_id = self._entries[-1].get("id")
            if self._written():
                self._rewrite()

    def _lines(self) -> list[str]:
        blobs = self._file.blobs
        slot = [title_slot_line(self.title_slot)] if self.title_slot is not None else []
        return slot + [to_line(self.header, blobs)] + [to_line(e, blobs) for e in self._entries]

    def _rewrite(self, *, sticky: bool = True) -> None:
        self._file.rewrite(self._lines(), self._take_in, sticky=sticky)

    def _take_in(self, lines: list[bytes]) -> list[str]:
        """Keep the lines another writer appended that memory lacks; index their entries."""
        kept: list[str] = []
        for raw in lines:
            try:
                value = decode_raw(raw.decode("utf-8", errors="replace"))
            except ValueError:
                value = None  # not ours to judge: kept as it is, the loader reports it
            if isinstance(value, dict):
                entry_id = value.get("id")
                if isinstance(entry_id, str) and entry_id in self._tree.by_id:
                    continue  # one of ours, already among the lines
                self._index(value)
            kept.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
        return kept

    # Persistence -------------------------------------------------------------------------------

    def flush(self) -> None:
        """Push written entries to disk (fsync). Nothing happens before the first assistant message."""
        with self._lock:
            self._file.check()
            self._file.flush()

    def close(self) -> None:
        """Close the writer (best effort) and raise the first persistence error, if any."""
        with self._lock:
            self._file.close()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Fork and move -----------------------------------------------------------------------------

    def fork(self) -> Path | None:
        """Continue in a new session file (new id, ``parentSession`` = old id); None when in memory."""
        with self._lock:
            self._file.check()
            old_file = self.session_file
            if not self.persist or old_file is None or not self.storage.exists_sync(old_file):
                return None
            old_header = self.header
            timestamp = now_iso()
            self.header = {**old_header, "id": new_session_id(), "timestamp": timestamp}
            self.header["parentSession"] = old_header.get("id")
            self._file.start(old_file.parent / session_file_name(timestamp, self.header["id"]))
            try:
                self._rewrite()
            except PersistError:
                self.header, self._file.path = old_header, old_file
                raise
            new_file = self._file.path
            assert new_file is not None
            copy_artifacts(self.storage, old_file, new_file)
            self._leave_breadcrumb()
            return new_file

    def move_to(self, new_cwd: str | Path, session_dir: Path | None = None) -> Path | None:
        """Move the session to another cwd: its file and artifact folder, then the header cwd.

        Any failing step undoes the earlier ones, so the session stays whole where it was.
        """
        with self._lock:
            self._file.check()
            cwd = normalize_cwd(new_cwd)
            target_dir = session_dir if session_dir is not None else session_dir_for(cwd, self.agent_dir)
            old_file = self.session_file
            if not self.persist or old_file is None:
                self.where = dataclasses.replace(self.where, cwd=cwd)
                self.header["cwd"] = cwd
                return None
            new_file = target_dir / old_file.name
            on_disk = self.storage.exists_sync(old_file)
            artifacts = movable_artifacts(self.storage, old_file, new_file) if on_disk else None
            if new_file != old_file and (
                self.storage.exists_sync(new_file)
                or (artifacts is not None and self.storage.exists_sync(artifacts[1]))
            ):
                raise SessiontreeError(f"Cannot move: {new_file} (or its artifact folder) already exists")
            self._file.close_writer()
            old_cwd = self.header.get("cwd")

            def finish() -> None:
                self.header["cwd"], self._file.path = cwd, new_file
                if on_disk:
                    self._rewrite(sticky=False)

            def undo() -> None:
                self.header["cwd"], self._file.path = old_cwd, old_file

            move_session_files(self.storage, old_file, new_file, artifacts, finish, undo)
            self.where = dataclasses.replace(self.where, cwd=cwd, session_dir=target_dir)
            self._leave_breadcrumb()
            return new_file
