"""The listing of a sessions folder: one ``SessionInfo`` per session file, cached by (size, mtime).

A folder is either an agent dir's ``sessions/`` (one sub-folder per project) or a flat folder of
``.jsonl`` files; a session's own folder (``<file without .jsonl>/``) holds its artifacts and,
for oh-my-pi, its subagents' sessions (``<AgentId>.jsonl``), which are listed under their parent.
A small pi file met for the first time is read in one pass (``archive.line_scan.read_small``:
its header record, counts, later title and usage rows); a large one's metadata comes from a
prefix read (``store.discovery``) and its counts from the line pass, which a growing file
continues from its last offset instead of reading again. ``scan(exact=False)``
lists new files from their prefix alone (a large file's count pending: ``message_count`` None)
and ``pending`` / ``read_exact`` / ``settle`` finish them later (serve's background pass), so a
cold listing of a big folder answers at once. The cache lives in a cache dir, never in the
listed folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sqlite3
import stat
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive import catalog_cache
from sessiontree.archive.catalog_read import FolderCwds, _bare, _Cached, key_of
from sessiontree.archive.catalog_read import read_entry as read_entry  # patched here by tests
from sessiontree.archive.keep.roots import kept_root_of
from sessiontree.archive.project_groups import CatalogNode as CatalogNode  # where they were
from sessiontree.archive.project_groups import ProjectGroup as ProjectGroup
from sessiontree.archive.project_groups import group_by_project as group_by_project
from sessiontree.archive.session_files import iter_session_texts
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.parts import split_key

if TYPE_CHECKING:
    from sessiontree.archive.keep.roots import KeptRoot
    from sessiontree.archive.usage_catalog import CatalogUsage


CACHE_VERSION = 8
"""8: a file that holds several sessions lists each (``store.parts``); 7: usage rows per UTC quarter
hour, not per UTC day (the usage page's days are the reader's)."""


READ_FIRST = 100
"""New files a scan with a deadline reads whatever the time: the index's first window (``FIRST_ROWS``)."""


@dataclass(slots=True)
class _ToRead:
    """A file a walk found new or changed: read by ``Walk.read``."""

    newest: float
    """Minus its modification time (a sort puts the newest first)."""
    key: str
    path: Path
    parent: str | None
    size: int
    mtime_ns: int
    regular: bool
    """A regular file when stat'ed (False: not one, or the stat failed)."""
    old: _Cached | None


@dataclass(slots=True)
class Walk:
    """A catalog's files as one scan found them (``Catalog.walk``): the unchanged ones' records
    and the files to read."""

    catalog: Catalog
    exact: bool
    seen: dict[str, _Cached] = field(default_factory=dict)
    todo: list[_ToRead] = field(default_factory=list)
    read_any: bool = False
    agent: str | None = None
    """The agent of the last file this walk read or kept (a folder holds one agent's sessions):
    what a file listed from its stat alone is shown as until it is read."""
    cwds: FolderCwds = field(default_factory=FolderCwds)
    """The cwd each folder's name says, as far as the files read so far tell (issue 54: a file
    listed from its stat alone is shown under its folder's, not "(no working directory)")."""

    def read(self, todo: Iterable[_ToRead], deadline: float | None) -> None:
        """Read these files of the walk's newest first. ``deadline`` (a ``time.monotonic()``; not
        ``exact`` only): new files not reached by then are listed from their stat alone, pending
        (``settle`` reads them): a folder never seen before answers with its newest rows before
        every file is read. The first ``READ_FIRST`` are read whatever the time."""
        for n, item in enumerate(sorted(todo, key=lambda t: (t.newest, t.key))):
            self.read_one(item, deadline if n >= READ_FIRST else None)

    def read_one(self, item: _ToRead, deadline: float | None) -> None:
        """Read one file of the walk (see ``read``)."""
        root = self.catalog.root
        if (
            deadline is not None
            and not self.exact
            and item.old is None
            and item.regular
            and time.monotonic() >= deadline
        ):
            # Listed, not read yet: its stat now, its header and counts from ``settle``.
            agent = "pi" if self.agent is None else self.agent
            cwd = self.cwds.of(item.path)
            bare = _bare(item.path, item.key, item.parent, item.size, -item.newest, agent=agent, cwd=cwd)
            self.seen[item.key] = _Cached(bare, None, item.mtime_ns)
        else:
            old = item.old if self.catalog.usage is None else self.catalog.usage.restored(item.old)
            done = read_entry(root, item.path, item.parent, old, exact=self.exact)
            if done.entry.error is None:
                self.agent = done.entry.agent
                self.cwds.learn(done.entry)
            self.seen[_one_key(item.key, done)] = done
        self.read_any = True


class Catalog:
    """The listing of one sessions folder, kept up to date by ``scan()`` and cached on disk."""

    def __init__(
        self, root: str | Path, cache_dir: str | Path | None = None, usage: CatalogUsage | None = None
    ) -> None:
        self.root = Path(root)
        self.usage = usage
        """Where the records' usage rows go (serve's SQLite, ``archive.usage_db``), else kept here."""
        self.cache_file = None if cache_dir is None else Path(cache_dir) / _cache_name(self.root)
        self._saved: dict[str, _Cached] | None = None
        """The records the cache file holds, by key (a record is replaced, never changed, when its
        file is: a save writes those that are not these); None: the file is to be written whole."""
        self._dirty = False
        self._cached: dict[str, _Cached] = self._load_cache()
        self._kept = kept_root_of(self.root)
        """The shown copy of ``keep`` this folder is (its machine, the days files went), else None."""
        self._shown_how: tuple[str, KeptRoot | None] | None = None
        """The prefix and kept root ``entries`` last showed the records with (``_Cached.shown_in``)."""
        self._save_every = 0.0
        self._saved_at = -math.inf
        self.changes = 0
        """How many scans or settles changed the listing (what was made from it is up to date while equal)."""

    def scan(self, *, exact: bool = True, deadline: float | None = None) -> list[SessionInfo]:
        """Stat every session file, re-read only the changed ones; newest first.

        Not ``exact``: new or changed large files are listed from their prefix, their counts
        pending until ``settle``; ``exact``: pending ones are read whole too. ``deadline``: see
        ``Walk.read``.
        """
        walk = self.walk(exact=exact)
        walk.read(walk.todo, deadline)
        return self.take(walk)

    def walk(self, *, exact: bool = True) -> Walk:
        """A scan's first half: every session file stat'ed, the unchanged ones' records kept, the
        others to read (``Walk.read``; then ``take``). Several catalogs' files can be read in one
        order (``Sources.scan``)."""
        walk = Walk(self, exact)
        base = str(self.root) + os.sep
        for text, parent in iter_session_texts(self.root, unreadable=True):
            # A file's key is its text after the root's (as key_of cuts it), no Path made for a
            # file whose record is kept.
            cut = text.startswith(base) and base != os.sep + os.sep
            key = text[len(base) :].replace(os.sep, "/") if cut else key_of(self.root, Path(text))
            old = self._cached.get(key)
            try:
                st = os.stat(text)
            except OSError:
                st = None
            if (
                old is not None
                and st is not None
                and old.entry.size == st.st_size
                and old.mtime_ns == st.st_mtime_ns
                and old.entry.parent_key == parent
                and not (exact and old.entry.pending)
            ):
                walk.seen[_one_key(key, old)] = old  # the key the record holds: not a copy per scan
                if old.entry.error is None:
                    walk.agent = old.entry.agent
                continue
            # The stat's few values, not the stat itself (~0.3 KB more per file: at 100,000 new files
            # they were all held until the walk was read).
            path = Path(text)
            if st is None:
                walk.todo.append(_ToRead(0.0, key, path, parent, 0, 0, False, old))
            else:
                regular = stat.S_ISREG(st.st_mode)
                walk.todo.append(
                    _ToRead(-st.st_mtime, key, path, parent, st.st_size, st.st_mtime_ns, regular, old)
                )
        return walk

    def take(self, walk: Walk, *, listing: bool = True) -> list[SessionInfo]:
        """A scan's second half: the listing is what the walk found and read; the cache saved (its
        ``entries()``, unless not ``listing``: none made)."""
        if walk.read_any:
            self._changed()
        if walk.seen.keys() != self._cached.keys():
            self._changed()
        if self.usage is not None and self._dirty:
            self.usage.take(walk.seen.values(), {p.entry.key for c in walk.seen.values() for p in c.listed()})
        self._cached = walk.seen
        if self._kept is not None:
            kept = kept_root_of(self.root)  # the days files disappeared, as of the last keep
            if kept != self._kept:
                self._changed()  # what was made of the listing (serve's views) shows those days
            self._kept = kept
        self.save()
        return self.entries() if listing else []

    def refresh(self, paths: Iterable[Path]) -> bool:
        """Look again at these files only (the watcher's report), not every file: False, changing
        nothing, when one under this root is anything but a listed file still a regular file (a
        new file, a folder, a file gone): only ``scan`` lists those right. Paths elsewhere are
        not this catalog's."""
        base = str(self.root) + os.sep
        mine = [path for path in paths if str(path).startswith(base)]
        found: list[tuple[str, Path, _Cached, os.stat_result]] = []
        for path in mine:
            key = key_of(self.root, path)
            old = self._cached.get(key)
            try:
                st = path.stat()
            except OSError:
                return False
            if old is None or not stat.S_ISREG(st.st_mode):
                return False
            found.append((key, path, old, st))
        for key, path, old, st in found:
            if old.entry.size != st.st_size or old.mtime_ns != st.st_mtime_ns:
                old = old if self.usage is None else self.usage.restored(old)
                self._cached[key] = read_entry(self.root, path, old.entry.parent_key, old, exact=False)
                self._changed()
                if self.usage is not None:
                    self.usage.take([self._cached[key]])
        self.save()
        return True

    def _changed(self) -> None:
        self._dirty = True
        self.changes += 1

    def entries(self, prefix: str = "") -> list[SessionInfo]:
        """Every record from the last scan, newest first; another agent's session spawned by one
        listed here (a Codex subagent thread) under it; a kept copy's marked with its machine and
        the day its file disappeared (``archive.keep``). ``prefix``: before each key and parent
        key (``Sources``' labels), in the one copy a kept record is made anyway."""
        listed = sorted(
            (p for c in self._cached.values() for p in c.listed()),
            key=lambda p: (-p.entry.modified, p.entry.key),
        )
        if self._kept is None and not prefix:
            found = [p.entry for p in listed]
        else:
            if self._shown_how is None or self._shown_how != (prefix, self._kept):
                self._shown_how = (prefix, self._kept)  # a new object: every record copied again
            found = [p.shown_in(self._shown_how) for p in listed]
        keys = {e.id: e.key for e in found if e.agent != "pi" and e.id}
        return [
            replace(e, parent_key=keys[e.parent_session or ""])
            if e.parent_key is None and e.agent != "pi" and keys.get(e.parent_session or "", e.key) != e.key
            else e
            for e in found
        ]

    def get(self, key: str) -> SessionInfo | None:
        """The record of one file by key, or of one session of a file that holds several (a file's
        own key still names the whole file: its address before it was listed by session)."""
        cached = self._cached.get(key)
        if cached is None:
            base, session_id = split_key(key)
            whole = self._cached.get(base) if session_id is not None else None
            cached = next((p for p in whole.parts if p.entry.key == key), None) if whole else None
        return None if cached is None else cached.entry

    def usage_listed(self) -> list[tuple[SessionInfo, list[list[Any]]]]:
        """Each readable record of the last scan with its usage rows (none yet while pending)."""
        scans = {p.entry.key: p.scan for cached in self._cached.values() for p in cached.listed()}
        return [(e, scan.usage if (scan := scans[e.key]) else []) for e in self.entries() if not e.error]

    def parse_passes(self) -> None:
        """Parse every record's line pass a load left as text (``_Cached.scan``), now rather than
        when first asked for (a build does it with the cyclic collector off)."""
        for cached in self._cached.values():
            if cached.scan_text is not None:
                cached.scan  # noqa: B018 - parsed and kept by the property

    def pending(self) -> list[str]:
        """The keys whose counts wait for a whole read, newest first."""
        return [key for _, key in self.pending_times()]

    def pending_times(self) -> list[tuple[float, str]]:
        """(modified, key) of the files whose counts wait for a whole read, newest first (from the
        records as they are: no sort of the whole listing)."""
        found = [(c.entry.modified, key) for key, c in self._cached.items() if c.entry.pending]
        found.sort(key=lambda item: (-item[0], item[1]))
        return found

    def read_exact(self, key: str) -> _Cached | None:
        """Read a pending file whole (changes nothing here: ``settle`` stores the result)."""
        old = self._cached.get(key)
        if old is None or not old.entry.pending:
            return None
        return read_entry(self.root, self.root / key, old.entry.parent_key, old)

    def unreadable(self, key: str, reason: str) -> _Cached | None:
        """A listed file's record as unreadable for ``reason`` (for ``settle``)."""
        old = self._cached.get(key)
        return None if old is None else _Cached(replace(old.entry, error=reason), None, old.mtime_ns)

    def settle(self, key: str, done: _Cached) -> None:
        """Store what ``read_exact`` read, unless the file left the listing or was settled since."""
        old = self._cached.get(key)
        if old is not None and old.entry.pending and old.entry.parent_key == done.entry.parent_key:
            self._cached[key] = done
            self._changed()
            if self.usage is not None:
                self.usage.take([done])

    def _load_cache(self) -> dict[str, _Cached]:
        if self.cache_file is None:
            return {}
        loaded: dict[str, _Cached] = {}
        folders: dict[str, Path] = {}
        try:  # one row at a time: no text of the whole listing, nor its parsed values, held
            for key, value, scan in catalog_cache.load(self.cache_file, CACHE_VERSION, self._root_text()):
                record = _Cached.from_json(value, folders, scan)
                loaded[_one_key(key, record)] = record
            old = bool(loaded) and catalog_cache.is_old(self.cache_file)
        except (OSError, sqlite3.Error, ValueError, KeyError, TypeError, AttributeError):
            return {}  # a missing or damaged cache is rebuilt, never an error
        if not loaded:
            return {}
        self._saved = dict(loaded)
        if self.usage is not None:
            # Rows an older cache carries are stored and dropped from the records: those are saved again.
            carried = {key for key, c in loaded.items() if any(p.scan and p.scan.usage for p in c.listed())}
            loaded = self.usage.adopt(loaded, _NoValues())
            for key in carried:
                self._saved.pop(key, None)
            self._dirty = bool(carried)
        if old:  # an older cache's table: written whole in the new one by the next save
            self._saved, self._dirty = None, True
        return loaded

    def _root_text(self) -> str:
        return str(self.root.resolve())

    def save_at_most_every(self, seconds: float) -> None:
        """From now on ``save`` writes the cache at most once in ``seconds`` (the first time after
        them), unless forced: a server's scans and background pass change the listing often, and
        at 100,000 sessions the cache is tens of MB. What was not saved costs only speed."""
        self._save_every = seconds
        self._saved_at = time.monotonic()

    def save(self, *, force: bool = False) -> None:
        """Write the cache (atomically) when something changed since the last save (see
        ``save_at_most_every``)."""
        if self.cache_file is None or not self._dirty:
            return
        if not force and time.monotonic() - self._saved_at < self._save_every:
            return
        self._saved_at = time.monotonic()
        cached, saved = self._cached, self._saved
        try:
            if saved is None:
                rows = ((key, *c.to_row()) for key, c in cached.items())
                catalog_cache.write_whole(self.cache_file, CACHE_VERSION, self._root_text(), rows)
                with contextlib.suppress(OSError):  # the one JSON text earlier versions kept: not read
                    self.cache_file.with_suffix(".json").unlink()
            else:
                changed = ((key, *c.to_row()) for key, c in cached.items() if saved.get(key) is not c)
                gone = (key for key in saved if key not in cached)
                catalog_cache.write(self.cache_file, CACHE_VERSION, self._root_text(), changed, gone)
        except sqlite3.Error:
            self._saved = None  # damaged, locked or another's: written whole next time
            return
        except OSError:
            return  # a cache that cannot be written only costs speed next time
        self._saved = dict(cached)
        self._dirty = False


class _NoValues(dict[str, Any]):
    """The loaded JSON values ``CatalogUsage.adopt`` drops carried rows from: none are kept (each
    record's row is made again from the record when it changed)."""

    def __missing__(self, key: str) -> dict[str, Any]:
        return {}


def _one_key(key: str, record: _Cached) -> str:
    """``key``, as its record's own copy of it when it holds the same (one copy of each key)."""
    return record.entry.key if record.entry.key == key else key


def _cache_name(root: Path) -> str:
    digest = hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return f"catalog-{digest}.sqlite"
