"""SessionManager: the write path (append, branch, persist, fork, move) of one session."""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sessiontree.errors import EntryNotFound, PersistError, SessiontreeError
from sessiontree.store.blobs import BlobStore
from sessiontree.store.context import SessionContext, build_session_context
from sessiontree.store.discovery import (
    find_continue_target,
    normalize_cwd,
    session_dir_for,
    terminal_id,
    write_terminal_breadcrumb,
)
from sessiontree.store.entries import CURRENT_VERSION, Entry, Message, message_of
from sessiontree.store.jsonl import decode_text, paused_gc
from sessiontree.store.load import parse_session_text, read_session_bytes, rehydrate_blobs
from sessiontree.store.paths import AgentPaths, artifacts_dir_for, default_agent_dir
from sessiontree.store.persist import (
    NdjsonWriter,
    back_up_original,
    describe_os_error,
    persist_error_for,
    remove_stale_temp_files,
    rewrite_atomically,
    to_line,
)
from sessiontree.store.session import Session, explain_not_a_session
from sessiontree.store.storage import FileSessionStorage, MemorySessionStorage, SessionStorage
from sessiontree.store.tree import SessionTree

log = logging.getLogger(__name__)

T = TypeVar("T")


def now_iso() -> str:
    """Return the current UTC time as ``2026-02-16T10:20:30.000Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_file_name(timestamp: str, session_id: str) -> str:
    """Return the file name ``<ISO time with : and . as ->_<id>.jsonl``."""
    return f"{timestamp.replace(':', '-').replace('.', '-')}_{session_id}.jsonl"


def new_session_id() -> str:
    """Return a random 16-hex-char session id."""
    return secrets.token_hex(8)


def copy_artifacts(source_file: Path, target_file: Path) -> None:
    """Copy a session's artifact folder to another session's (best effort: failures are logged)."""
    source, target = artifacts_dir_for(source_file), artifacts_dir_for(target_file)
    if source.resolve() == target.resolve():
        return
    try:
        shutil.copytree(source, target, dirs_exist_ok=True)
    except FileNotFoundError:
        return  # no artifacts: nothing to copy
    except (OSError, shutil.Error) as exc:
        log.warning("could not copy artifacts %s -> %s: %s", source, target, exc)


class SessionManager:
    """One session in memory, kept in step with its JSONL file.

    Appends change memory at once; nothing is written before the first assistant message, then
    the whole session is written, then each entry is appended. The first persistence error is
    kept and raised again by every later operation.
    """

    def __init__(
        self,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        persist: bool = True,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
    ) -> None:
        self.cwd = normalize_cwd(cwd)
        self.agent_dir = agent_dir if agent_dir is not None else default_agent_dir()
        self.session_dir = (
            session_dir if session_dir is not None else session_dir_for(self.cwd, self.agent_dir)
        )
        self.persist = persist
        self.storage: SessionStorage = storage if storage is not None else FileSessionStorage()
        self.term = term if term is not None else (terminal_id() if persist else None)
        self.header: dict[str, Any] = {}
        self._entries: list[Entry] = []
        self._tree = SessionTree()
        self._leaf_id: str | None = None
        self._session_file: Path | None = None
        self._flushed = False
        self._has_assistant = False
        self._repair_tail = False
        self._unread: bytes | None = None  # original bytes to back up before the first rewrite
        self._writer: NdjsonWriter | None = None
        self._persist_error: PersistError | None = None
        self._lock = threading.RLock()
        self._blobs = BlobStore(AgentPaths(self.agent_dir).blobs_dir) if persist else None

    # Construction ------------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
        parent_session: str | None = None,
    ) -> SessionManager:
        """Start a persistent session for ``cwd`` (its file appears with the first assistant message)."""
        manager = cls(cwd, session_dir, agent_dir=agent_dir, storage=storage, term=term)
        manager._new_session(parent_session)
        manager._leave_breadcrumb()
        return manager

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: Path | None = None,
        *,
        cwd: str | Path | None = None,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
        rewrite_migrated: bool = True,
    ) -> SessionManager:
        """Open a session file persistently (existing or new); see ``set_session_file``.

        ``cwd`` (default: the process cwd) is used only when the file has no cwd of its own.
        """
        path = Path(path).absolute()
        manager = cls(
            cwd or os.getcwd(), session_dir or path.parent, agent_dir=agent_dir, storage=storage, term=term
        )
        manager.set_session_file(path, rewrite_migrated=rewrite_migrated)
        return manager

    @classmethod
    def in_memory(cls, cwd: str | Path = ".") -> SessionManager:
        """Start a session that is never written anywhere."""
        manager = cls(cwd, persist=False, storage=MemorySessionStorage())
        manager._new_session(None)
        return manager

    @classmethod
    def continue_recent(
        cls,
        cwd: str | Path,
        session_dir: Path | None = None,
        *,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
    ) -> SessionManager:
        """Open this terminal's last session for ``cwd``, else the newest one, else start one."""
        agent = agent_dir if agent_dir is not None else default_agent_dir()
        storage = storage if storage is not None else FileSessionStorage()
        term = term if term is not None else terminal_id()
        target = find_continue_target(cwd, agent, session_dir, term=term, storage=storage)
        if target is None:
            return cls.create(cwd, session_dir, agent_dir=agent, storage=storage, term=term)
        return cls.open(target, session_dir, cwd=cwd, agent_dir=agent, storage=storage, term=term)

    @classmethod
    def fork_from(
        cls,
        source: str | Path,
        target_cwd: str | Path,
        session_dir: Path | None = None,
        *,
        agent_dir: Path | None = None,
        storage: SessionStorage | None = None,
        term: str | None = None,
    ) -> SessionManager:
        """Copy ``source``'s entries into a new session of ``target_cwd`` (written at once)."""
        source = Path(source).absolute()
        manager = cls.create(target_cwd, session_dir, agent_dir=agent_dir, storage=storage, term=term)
        loaded, _ = manager._load(source)
        if loaded is None or loaded.is_empty:
            raise explain_not_a_session(source, manager.storage)
        manager.header["parentSession"] = str(source)
        manager._set_entries(loaded.entries, loaded.leaf_id)
        manager._run(manager._rewrite_file)
        if manager._on_real_files() and manager._session_file is not None:
            copy_artifacts(source, manager._session_file)
        return manager

    def set_session_file(self, path: str | Path, *, rewrite_migrated: bool = True) -> None:
        """Switch to a session file: load it, migrate it (rewritten at once), or start it afresh.

        A missing file becomes a new session at that path (written with the first assistant
        message); an empty file, or one without a valid header, is replaced by a fresh header now.
        """
        with self._lock:
            self._check()
            self._close_writer()
            path = Path(path).absolute()
            loaded, torn = self._load(path)
            if loaded is not None:
                remove_stale_temp_files(self.storage, path)
            self._repair_tail = torn
            if loaded is None or loaded.is_empty:
                self._new_session(None)
                self._session_file = path
                if loaded is not None:
                    self._run(self._rewrite_file)
            else:
                self.header = loaded.header
                cwd = loaded.header.get("cwd")
                self.cwd = cwd if isinstance(cwd, str) and cwd else self.cwd
                self._session_file = path
                self._set_entries(loaded.entries, loaded.leaf_id)
                self._flushed = True
                if loaded.migrations and rewrite_migrated:
                    self._run(self._rewrite_file)
            self._leave_breadcrumb()

    def _load(self, path: Path) -> tuple[Session | None, bool]:
        """Read the session at ``path`` (None when missing) and whether its last line lacks its newline."""
        data = read_session_bytes(path, self.storage, strict=False)
        self._unread = None
        if data is None:
            return None, False
        session = parse_session_text(decode_text(data), path)
        if session.is_empty and data.strip():
            from sessiontree.readers import refuse_foreign_data  # the readers import the store

            refuse_foreign_data(data, path)  # never rewrite another agent's file
        if session.bad_lines or (session.is_empty and data.strip()):
            self._unread = data  # a rewrite would drop what we could not parse: keep it first
        rehydrate_blobs(session, path, agent_dir=self.agent_dir)
        return session, bool(data) and not data.endswith(b"\n")

    def _new_session(self, parent_session: str | None) -> None:
        timestamp = now_iso()
        self.header = {"type": "session", "version": CURRENT_VERSION, "id": new_session_id()}
        self.header.update(timestamp=timestamp, cwd=self.cwd)
        if parent_session is not None:
            self.header["parentSession"] = parent_session
        self._set_entries([], None)
        self._flushed = False
        self._session_file = (
            self.session_dir / session_file_name(timestamp, self.header["id"]) if self.persist else None
        )

    def _set_entries(self, entries: list[Entry], leaf_id: str | None) -> None:
        self._entries, self._tree = [], SessionTree()
        self._has_assistant = False
        with paused_gc():
            for entry in entries:
                self._index(entry)
        self._leaf_id = leaf_id

    def _index(self, entry: Entry) -> None:
        self._entries.append(entry)
        self._tree.add(entry)
        message = message_of(entry)
        if message is not None and message.get("role") == "assistant":
            self._has_assistant = True

    def _on_real_files(self) -> bool:
        # Artifact folders are real folders; a memory storage has none to copy.
        return not isinstance(self.storage, MemorySessionStorage)

    def _leave_breadcrumb(self) -> None:
        if not self.persist or not self.term or self._session_file is None:
            return
        try:
            write_terminal_breadcrumb(self.agent_dir, self.term, self.cwd, self._session_file, self.storage)
        except OSError as exc:
            log.warning("could not write the terminal breadcrumb: %s", exc)

    # Reading -----------------------------------------------------------------------------------

    @property
    def session_id(self) -> str:
        return str(self.header.get("id", ""))

    @property
    def session_file(self) -> Path | None:
        return self._session_file

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def persist_error(self) -> PersistError | None:
        """The first persistence error, if any."""
        return self._persist_error

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
            header=self.header, entries=list(self._entries), path=self._session_file, leaf_id=self._leaf_id
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
            self._check()
            entry: Entry = {"type": kind, "id": self._new_entry_id(), "parentId": self._leaf_id}
            entry["timestamp"] = now_iso()
            entry.update((k, v) for k, v in fields.items() if v is not None)
            self._index(entry)
            self._leaf_id = entry["id"]
            self._run(lambda: self._persist_entry(entry))
            return str(entry["id"])

    def append_message(self, message: Message) -> str:
        """Append a ``message`` entry (user, assistant, toolResult, ...); return its id."""
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise SessiontreeError("A message needs a string 'role' (user, assistant, toolResult, ...)")
        return self._append("message", {"message": message})

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append("thinking_level_change", {"thinkingLevel": thinking_level})

    def append_model_change(self, model: str, role: str | None = None) -> str:
        """Append a ``model_change`` (``model`` as ``provider/model``)."""
        return self._append("model_change", {"model": model, "role": role})

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str,
        tokens_before: int,
        *,
        short_summary: str | None = None,
        details: Any = None,
        preserve_data: dict[str, Any] | None = None,
        from_extension: bool | None = None,
    ) -> str:
        fields: dict[str, Any] = {"summary": summary, "shortSummary": short_summary}
        fields.update(firstKeptEntryId=first_kept_entry_id, tokensBefore=tokens_before, details=details)
        return self._append(
            "compaction", {**fields, "preserveData": preserve_data, "fromExtension": from_extension}
        )

    def append_custom_entry(self, custom_type: str, data: Any = None) -> str:
        """Append extension state (ignored by the model context)."""
        return self._append("custom", {"customType": custom_type, "data": data})

    def append_custom_message_entry(
        self, custom_type: str, content: str | list[dict[str, Any]], display: bool, details: Any = None
    ) -> str:
        fields = {"customType": custom_type, "content": content, "display": display, "details": details}
        return self._append("custom_message", fields)

    def append_label_change(self, target_id: str, label: str | None) -> str:
        """Label an entry (``None`` or ``""`` clears its label)."""
        self._require_entry(target_id)
        return self._append("label", {"targetId": target_id, "label": label})

    def append_ttsr_injection(self, injected_rules: list[str]) -> str:
        return self._append("ttsr_injection", {"injectedRules": list(injected_rules)})

    def append_session_init(
        self,
        system_prompt: str,
        *,
        task: str | None = None,
        tools: list[Any] | None = None,
        output_schema: Any = None,
    ) -> str:
        fields = {"systemPrompt": system_prompt, "task": task, "tools": tools, "outputSchema": output_schema}
        return self._append("session_init", fields)

    def append_mode_change(self, mode: str, data: dict[str, Any] | None = None) -> str:
        return self._append("mode_change", {"mode": mode, "data": data})

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
            self._check()
            self._leaf_id = branch_from_id
            fields = {"fromId": branch_from_id if branch_from_id is not None else "root", "summary": summary}
            return self._append(
                "branch_summary", {**fields, "details": details, "fromExtension": from_extension}
            )

    # Rewrites ----------------------------------------------------------------------------------

    def set_session_name(self, name: str) -> None:
        """Set the header title (the file is rewritten atomically when it is already written)."""
        with self._lock:
            self._check()
            self.header["title"] = name
            if self._flushed and self._session_file is not None and self.persist:
                self._run(self._rewrite_file)

    def rewrite_entries(self) -> None:
        """Re-index the entries (edited in place by the caller) and rewrite the file atomically."""
        with self._lock:
            self._check()
            self._set_entries(
                list(self._entries), self._leaf_id if self._leaf_id in self._tree.by_id else None
            )
            if self._leaf_id is None and self._entries:
                self._leaf_id = self._entries[-1].get("id")
            if self._flushed and self._session_file is not None and self.persist:
                self._run(self._rewrite_file)

    # Persistence -------------------------------------------------------------------------------

    def _check(self) -> None:
        if self._persist_error is not None:
            raise self._persist_error

    def _run(self, action: Callable[[], T]) -> T:
        """Run a persistence step; its first failure becomes the sticky error."""
        try:
            return action()
        except PersistError as exc:
            self._persist_error = self._persist_error or exc
            raise self._persist_error from exc
        except OSError as exc:
            if self._persist_error is None:
                self._persist_error = persist_error_for(self._session_file, exc)
            raise self._persist_error from exc

    def _lines(self) -> list[str]:
        return [to_line(self.header, self._blobs)] + [to_line(e, self._blobs) for e in self._entries]

    def _rewrite_file(self) -> None:
        assert self._session_file is not None
        self._close_writer()
        if self._unread is not None:
            back_up_original(self.storage, self._session_file, self._unread)
            self._unread = None
        rewrite_atomically(self.storage, self._session_file, self._lines())
        self._flushed = True
        self._repair_tail = False

    def _persist_entry(self, entry: Entry) -> None:
        if not self.persist or self._session_file is None:
            return
        if not self._has_assistant:
            self._flushed = False  # the file (if any) is now behind memory until the first answer
            return
        if not self._flushed:
            self._rewrite_file()
            return
        if self._writer is None:
            self._writer = NdjsonWriter(self.storage, self._session_file, repair_tail=self._repair_tail)
            self._repair_tail = False
        self._writer.append([to_line(entry, self._blobs)])

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            self._run(writer.close)

    def flush(self) -> None:
        """Push written entries to disk (fsync). Nothing happens before the first assistant message."""
        with self._lock:
            self._check()
            if self._writer is not None:
                self._run(self._writer.sync)

    def close(self) -> None:
        """Close the writer (best effort) and raise the first persistence error, if any."""
        with self._lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                try:
                    writer.close()
                except PersistError as exc:
                    self._persist_error = self._persist_error or exc
            self._check()

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Fork and move -----------------------------------------------------------------------------

    def fork(self) -> Path | None:
        """Continue in a new session file (new id, ``parentSession`` = old id); None when in memory."""
        with self._lock:
            self._check()
            old_file = self._session_file
            if not self.persist or old_file is None or not self.storage.exists_sync(old_file):
                return None
            self._close_writer()
            old_header = self.header
            timestamp = now_iso()
            self.header = {**old_header, "id": new_session_id(), "timestamp": timestamp}
            self.header["parentSession"] = old_header.get("id")
            self._session_file = old_file.parent / session_file_name(timestamp, self.header["id"])
            try:
                self._run(self._rewrite_file)
            except PersistError:
                self.header, self._session_file = old_header, old_file
                raise
            if self._on_real_files():
                copy_artifacts(old_file, self._session_file)
            self._leave_breadcrumb()
            return self._session_file

    def move_to(self, new_cwd: str | Path, session_dir: Path | None = None) -> Path | None:
        """Move the session to another cwd: its file and artifact folder, then the header cwd.

        Any failing step undoes the earlier ones, so the session stays whole where it was.
        """
        with self._lock:
            self._check()
            cwd = normalize_cwd(new_cwd)
            target_dir = session_dir if session_dir is not None else session_dir_for(cwd, self.agent_dir)
            old_file = self._session_file
            if not self.persist or old_file is None:
                self.cwd, self.header["cwd"] = cwd, cwd
                return None
            new_file = target_dir / old_file.name
            on_disk = self.storage.exists_sync(old_file)
            old_art, new_art = artifacts_dir_for(old_file), artifacts_dir_for(new_file)
            move_art = (
                on_disk and self.storage.exists_sync(old_art) and not self.storage.stat_sync(old_art).is_file
            )
            if new_file != old_file and (
                self.storage.exists_sync(new_file) or (move_art and self.storage.exists_sync(new_art))
            ):
                raise SessiontreeError(f"Cannot move: {new_file} (or its artifact folder) already exists")
            self._run(self._close_writer)
            self._move(old_file, new_file, (old_art, new_art) if move_art else None, cwd, on_disk)
            self.cwd, self.session_dir = cwd, target_dir
            self._leave_breadcrumb()
            return new_file

    def _move(
        self, old_file: Path, new_file: Path, art: tuple[Path, Path] | None, cwd: str, on_disk: bool
    ) -> None:
        old_cwd = self.header.get("cwd")
        undo: list[Callable[[], None]] = []
        try:
            if new_file != old_file:
                self.storage.ensure_dir_sync(new_file.parent)
                if on_disk:
                    self.storage.rename_sync(old_file, new_file)
                    undo.append(lambda: self.storage.rename_sync(new_file, old_file))
                if art is not None:
                    self.storage.rename_sync(*art)
                    undo.append(lambda: self.storage.rename_sync(art[1], art[0]))
            self.header["cwd"] = cwd
            self._session_file = new_file
            if on_disk:
                self._rewrite_file()
        except (OSError, PersistError) as exc:
            self.header["cwd"], self._session_file = old_cwd, old_file
            for step in reversed(undo):
                try:
                    step()
                except OSError as undo_exc:
                    log.error("rollback of session move failed: %s", undo_exc)
            raise PersistError(
                f"Cannot move session to {new_file.parent}: {describe_os_error(exc)}; it was left in place"
            ) from exc
