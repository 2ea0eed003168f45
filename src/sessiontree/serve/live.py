"""One served session kept up to date: read whole once, then only the bytes appended since.

Methods run in worker threads (never on the event loop): a 100 MB session loads and renders
there while other clients keep being served. Each instance has a lock; the hub publishes what
``refresh`` returns.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sessiontree.exporter.context import RenderContext
from sessiontree.exporter.images import ImageFile, image_file, image_url
from sessiontree.exporter.render import render_appended_entry
from sessiontree.readers import agent_of, foreign_agent, load_any
from sessiontree.serve.hub import Event
from sessiontree.store.foreground import FOREGROUND
from sessiontree.store.jsonl import decode_lines, parse_jsonl_lines
from sessiontree.store.load import load_session
from sessiontree.store.parts import split_part
from sessiontree.store.session import Session
from sessiontree.store.storage import FileSessionStorage
from sessiontree.store.subagents import storage_stamp
from sessiontree.store.tail import TailReader

MAX_KEPT_APPENDS = 5000
"""Rendered appends kept for late subscribers; beyond this a late page reloads instead."""


class _LinesStorage(FileSessionStorage):
    """File storage whose line reader yields lines already read (so load and tail agree exactly)."""

    def __init__(self, lines: Iterator[bytes]) -> None:
        super().__init__()
        self._lines = lines

    def iter_lines_sync(self, path: Path) -> Iterator[bytes]:
        return self._lines


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What a page is rendered from: the session as of ``count`` entries of load ``generation``."""

    session: Session
    generation: str
    count: int


class LiveSession:
    """A session file followed as it grows; rewrites and replacements reload it whole."""

    def __init__(self, path: Path, *, image_prefix: str, agent_dir: Path | None = None) -> None:
        self.path = path
        self.file = split_part(path)[0]
        """The file followed: ``path`` itself, or the file one session of which it names (``store.parts``)."""
        self.agent_dir = agent_dir
        self.lock = threading.Lock()
        self.generation = ""
        self.session = Session(header={})
        self._tail = TailReader(self.file)
        self._ctx = RenderContext()
        self._base = 0
        self._appended: list[list[Any]] = []
        self._storage: list[tuple[str, int, int]] | None = None
        """What an OpenCode storage session's page read beside its file, as loaded (``storage_stamp``)."""
        self.image_prefix = image_prefix
        self.images: dict[str, ImageFile] = {}
        """Images of this session's pages and appends, served under ``image_prefix``."""

    def load(self) -> None:
        """Read the file whole (only complete lines) and start following it from its end."""
        with self.lock:
            self._load()

    def _load(self) -> None:
        self._tail = TailReader(self.file)
        # Paused while another page's first screen is made (store.foreground): the load of a page
        # whose reader left, or that shows its first screen already, is not what a reader waits for.
        lines = self._tail.read_all(yielding=True)
        try:
            agent = foreign_agent(self.path)
            if agent is None:
                session = load_session(self.path, agent_dir=self.agent_dir, storage=_LinesStorage(lines))
            else:
                for _line in lines:
                    pass  # only to move the tail to the end: another agent's reader reads the file whole
                self._storage = storage_stamp(self.path)  # before the read: a part written meanwhile reloads
                session = load_any(self.path, agent, agent_dir=self.agent_dir)
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()
        if self._tail.state is None:  # a read error mid-file: start over at the next refresh
            self._tail = TailReader(self.file)
        self.session = session
        self.generation = uuid.uuid4().hex[:16]
        self._ctx = RenderContext.for_entries(session.entries, session.tree.labels)
        self._base = len(session.entries)
        self._appended = []

    def _storage_changed(self) -> bool:
        return self._storage is not None and storage_stamp(self.path) != self._storage

    @property
    def loaded(self) -> bool:
        """Whether the file was read whole (a page of it then needs no quick scan)."""
        return bool(self.generation)

    def snapshot(self) -> Snapshot:
        """The session as it is now (a shallow copy: later appends do not change it)."""
        FOREGROUND.acquire(self.lock)  # a first screen made from the load may wait for a paused one
        try:
            if not self.generation or self._storage_changed():
                self._load()
            s = self.session
            # Every field carried (title slot, repairs, joints too); lists copied, the tree rebuilt.
            copy = replace(
                s,
                entries=list(s.entries),
                migrations=list(s.migrations),
                bad_lines=list(s.bad_lines),
                missing_blobs=list(s.missing_blobs),
                repairs=list(s.repairs),
                joints=dict(s.joints),
            )
            return Snapshot(copy, self.generation, len(s.entries))
        finally:
            self.lock.release()

    def refresh(self) -> list[Event]:
        """Read what was appended since the last read: append events, or one "replaced"."""
        with self.lock:
            if not self.generation:
                self._load()
                return []
            if self._storage_changed():  # a message or part file of an OpenCode storage session
                self._load()
                return [Event("replaced", {"reason": "foreign", "generation": self.generation})]
            result = self._tail.poll()
            if result.kind == "missing":
                return [Event("removed", {})]
            if result.kind == "reload":
                self._load()
                return [Event("replaced", {"reason": result.reason, "generation": self.generation})]
            if not result.lines:
                return []
            if self.session.version_found < 3 or self.session.is_empty or agent_of(self.session) != "pi":
                # Old files are migrated in memory as a whole; appended lines would need it too.
                # Another agent's lines mean something only read whole (replies merged, tree relinked).
                reason = "migrated" if agent_of(self.session) == "pi" else "foreign"
                self._load()
                return [Event("replaced", {"reason": reason, "generation": self.generation})]
            return self._append(result.lines, result.first_lineno)

    def _append(self, lines: list[bytes], first_lineno: int) -> list[Event]:
        values, bad = parse_jsonl_lines(decode_lines(lines))
        items: list[list[Any]] = []
        labels: dict[str, str | None] = {}
        session = self.session
        tree = session.tree
        for _, value in values:
            if not isinstance(value, dict) or not isinstance(value.get("id"), str):
                continue
            session.entries.append(value)
            tree.add(value)
            session.leaf_id = value["id"]
            meta, html, images = render_appended_entry(
                value, self._ctx, parent_id=tree.parent_of(value["id"])
            )
            items.append([meta, html, self._image_urls(images)])
            if value.get("type") == "label" and isinstance(value.get("targetId"), str):
                labels[value["targetId"]] = self._ctx.labels.get(value["targetId"])
        session.bad_lines.extend(replace(b, lineno=b.lineno + first_lineno - 1) for b in bad)
        if not items:
            return []
        self._appended.extend(items)
        if len(self._appended) > MAX_KEPT_APPENDS:
            del self._appended[: len(self._appended) - MAX_KEPT_APPENDS]
            self._base = len(session.entries) - MAX_KEPT_APPENDS
        data: dict[str, Any] = {
            "entries": items,
            "count": len(session.entries),
            "generation": self.generation,
        }
        if labels:
            data["labels"] = labels
        return [Event("append", data)]

    def keep_images(self, files: Iterable[ImageFile]) -> None:
        """Keep the images a page refers to by URL, so the server can answer for them."""
        with self.lock:
            for f in files:
                self.images[f.sha256] = f

    def _image_urls(self, images: dict[str, str]) -> dict[str, str]:
        urls: dict[str, str] = {}
        for sha, data_url in images.items():
            self.images[sha] = image_file(sha, data_url)
            urls[sha] = image_url(self.image_prefix, sha, data_url)
        return urls

    def catch_up(self, generation: str, count: int) -> list[Event]:
        """Events that bring a page rendered at (``generation``, ``count``) up to now."""
        with self.lock:
            if generation != self.generation or count < self._base or count > len(self.session.entries):
                return [Event("replaced", {"reason": "stale", "generation": self.generation})]
            missing = self._appended[count - self._base :]
            if not missing:
                return []
            labels = {
                e["targetId"]: self._ctx.labels.get(e["targetId"])
                for e in self.session.entries[count:]
                if e.get("type") == "label" and isinstance(e.get("targetId"), str)
            }
            data: dict[str, Any] = {
                "entries": missing,
                "count": len(self.session.entries),
                "generation": self.generation,
            }
            if labels:
                data["labels"] = labels
            return [Event("append", data)]
