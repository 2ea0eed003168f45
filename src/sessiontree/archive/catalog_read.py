"""One listed file's record as the catalog reads and caches it (``archive.catalog``): a file read
whole or from its prefix, or listed from its stat alone (``_bare``), and the cached form of each.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive.foreign_entry import foreign_info, session_parts
from sessiontree.archive.line_scan import Scan, read_small, scan_file
from sessiontree.errors import SessiontreeError
from sessiontree.store.discovery import (
    CHEAP_COUNT_BYTES,
    SessionInfo,
    one_line,
    read_session_info,
)
from sessiontree.store.parts import split_key
from sessiontree.store.paths import folder_cwd, names_folder
from sessiontree.store.storage import open_regular, read_reason
from sessiontree.store.tail import TailState

if TYPE_CHECKING:
    from sessiontree.archive.keep.roots import KeptRoot


def read_entry(
    root: Path, path: Path, parent: str | None, previous: _Cached | None, *, exact: bool = True
) -> _Cached:
    """Read one file's record (reusing the previous scan when the file only grew).

    Not ``exact``: a large file is read only as far as its prefix (its count pending), unless
    an earlier pass can be continued from its offset.
    """
    key = key_of(root, path)
    try:
        st = path.stat()
    except OSError as exc:
        return _Cached(_bare(path, key, parent, 0, 0.0, why_unreadable(exc)))
    base = _bare(path, key, parent, st.st_size, st.st_mtime)
    scan: Scan | None = None
    mtime_ns = st.st_mtime_ns
    before = previous.scan if previous is not None else None
    info: SessionInfo | None = None
    try:
        if st.st_size <= CHEAP_COUNT_BYTES and (before is None or before.tail is None):
            found = read_small(path, st.st_mtime, st.st_size)  # one open, one pass
            if found is not None:
                info, scan = _counted(*found), found[1]
        else:
            check_readable(path)
            info = read_session_info(path)
            grown = before is not None and before.tail is not None
            if info is not None and (exact or info.message_count is not None or grown):
                scan = scan_file(path, before)
                info = _counted(info, scan)
        if info is None:
            info, rows = foreign_info(path, exact=exact)
            scan = None if rows is None else Scan(usage=rows)
            mtime_ns = path.stat().st_mtime_ns  # after the whole read a large file may need
    except OSError as exc:
        return _Cached(replace(base, error=why_unreadable(exc)))
    if info is None:
        return _Cached(replace(base, error="not a session file"))
    entry = replace(
        info,
        path=path,
        key=key,
        parent_key=parent,
        title=one_line(info.title or "") or None,
        modified=st.st_mtime,
        size=st.st_size,
        cwd=sys.intern(info.cwd),  # one copy of what many records hold the same of (as a load's)
        agent=sys.intern(info.agent),
    )
    if scan is not None and scan.tail is not None:
        scan.tail = _tail_shared(scan.tail, entry.size)
    try:
        parts = [] if entry.agent == "pi" or entry.pending else session_parts(path, key, entry.agent)
    except (OSError, SessiontreeError):
        parts = []  # listed as the one file it is
    return _Cached(entry, scan, mtime_ns, tuple(_Cached(part, Scan(usage=rows)) for part, rows in parts))


def _counted(info: SessionInfo, scan: Scan) -> SessionInfo:
    """A header record with what the line pass found: a later name, the counts, the last time."""
    return replace(
        info,
        title=scan.rename or info.title,
        message_count=scan.messages,
        prompt_count=scan.prompts,
        last_activity=scan.last,
    )


def _bare(
    path: Path,
    key: str,
    parent: str | None,
    size: int,
    mtime: float,
    error: str | None = None,
    agent: str = "pi",
    cwd: str = "",
) -> SessionInfo:
    """The record of a listed file before (or instead of) reading it: key, size, mtime, the cwd its
    folder's name says (``FolderCwds``) (made once: at 100,000 new files each copy of a record
    costs ~0.5 s)."""
    return SessionInfo(
        path=path,
        id="",
        cwd=cwd,
        title=None,
        first_message=None,
        created=None,
        modified=mtime,
        size=size,
        message_count=None,
        key=key,
        parent_key=parent,
        error=error,
        agent=agent,
    )


def shown_as(entry: SessionInfo, prefix: str, kept: KeptRoot | None) -> SessionInfo:
    """A root's record as a listing of several roots shows it: ``prefix`` (its root's label) before
    its key and parent key, and a kept copy's machine and the day its file disappeared; the record
    itself when there is neither (one copy otherwise: at 100,000 records each costs ~0.5 s)."""
    if kept is None and not prefix:
        return entry
    # Its values in field order, four of them changed: ``dataclasses.replace`` took 25 us a record
    # (0.25 s of every build at 10,000 sessions in three roots), this 4 us.
    values = list(_ALL_VALUES(entry))
    values[_KEY] = prefix + entry.key
    values[_PARENT_KEY] = None if entry.parent_key is None else prefix + entry.parent_key
    if kept is not None:
        values[_MACHINE] = kept.machine
        values[_KEPT] = kept.gone.get(split_key(entry.key)[0])
    return SessionInfo(*values)


class FolderCwds:
    """The cwd of each session folder as far as its name tells (``store.paths``): alone when it is
    one word, else once a file read from it had the cwd its name is made of. What a file listed
    from its stat alone is shown under until it is read (its own cwd then wins)."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}
        """By folder path (text: a ``Path``'s ``parent`` and hash cost ~10x more at 100,000 files)."""

    def learn(self, entry: SessionInfo) -> None:
        """Take the cwd of a record read whole or from its prefix, when its folder is named by it."""
        folder, _, _ = str(entry.path).rpartition(os.sep)
        name = folder.rpartition(os.sep)[2]
        if entry.error is None and not self._known.get(folder) and names_folder(name, entry.cwd):
            self._known[folder] = entry.cwd

    def of(self, path: Path) -> str:
        """The cwd to show a file of this folder under before it is read ("" when unknown)."""
        folder = str(path).rpartition(os.sep)[0]
        cwd = self._known.get(folder)
        if cwd is None:
            cwd = self._known[folder] = folder_cwd(folder.rpartition(os.sep)[2])
        return cwd


def _shared(value: Any) -> Any:
    return sys.intern(value) if type(value) is str else value


_FEW_VALUES = ("dev", "head_len", "before_len")
"""A tail state's numbers that few records differ in (a device, the checked windows' lengths)."""
_INTS: dict[int, int] = {}


def _tail_shared(tail: TailState, size: int) -> TailState:
    """A read's tail state with its numbers shared as a loaded one's (``from_json``)."""
    return replace(
        tail,
        size=size if tail.size == size else tail.size,
        offset=size if tail.offset == size else tail.offset,
        **{name: _one_int(getattr(tail, name)) for name in _FEW_VALUES},
    )


def _one_int(value: Any) -> Any:
    """One copy of a number ``_FEW_VALUES`` holds (a few hundred at most are kept)."""
    if type(value) is not int:
        return value
    if value not in _INTS and len(_INTS) < 256:
        _INTS[value] = value
    return _INTS.get(value, value)


def _path_of(text: str, folders: dict[str, Path] | None) -> Path:
    """``Path(text)``, as its folder's path (one per folder in ``folders``) joined with its name."""
    folder, _, name = text.rpartition(os.sep)
    if folders is None or not folder or name in ("", ".", ".."):
        return Path(text)
    made = folders.get(folder)
    if made is None:
        made = folders[folder] = Path(folder)
    return made / name


def key_of(root: Path, path: Path) -> str:
    """A listed file's key: its path relative to the root, ``/`` separated (a cut of the text when
    the path starts with the root's, as the walk's paths do: ``relative_to`` costs ~10x more)."""
    base, text = str(root), str(path)
    if text.startswith(base) and text[len(base) : len(base) + 1] == os.sep and base not in ("", os.sep):
        return text[len(base) + 1 :].replace(os.sep, "/")
    return path.relative_to(root).as_posix()


def why_unreadable(exc: OSError) -> str:
    """The reason a listing gives for a file it cannot read."""
    return f"unreadable: {read_reason(exc)}"


def check_readable(path: Path) -> None:
    """Raise the OSError that keeps a listed file from being read (see ``open_regular``)."""
    open_regular(path).close()


_ENTRY_FIELDS = tuple(f.name for f in fields(SessionInfo))
_ALL_VALUES = attrgetter(*_ENTRY_FIELDS)
_KEY, _PARENT_KEY, _MACHINE, _KEPT = (
    _ENTRY_FIELDS.index(n) for n in ("key", "parent_key", "machine", "kept")
)
_SHARED_FIELDS = ("cwd", "agent", "machine", "kept", "error")
"""A record's values many records hold the same of: one copy of each (``sys.intern``)."""
_SCAN_FIELDS = tuple(f.name for f in fields(Scan))


@dataclass(slots=True)
class _Cached:
    entry: SessionInfo
    _scan: Scan | None = None
    mtime_ns: int = 0
    parts: Sequence[_Cached] = ()
    """A file that holds several sessions: each one's record, listed instead of the file's (no
    list per record of the others: ~0.05 KB each at 100,000)."""
    shown: SessionInfo | None = None
    """The record as a listing of several roots shows it (``shown_in``), made for ``shown_for``."""
    shown_for: object = None
    scan_text: str | None = None
    """Its pass as the cache keeps it (JSON), not parsed until ``scan`` is asked for (a build of
    one new session asks for no unchanged file's: ``archive.catalog_cache``)."""

    @property
    def scan(self) -> Scan | None:
        """The line pass over the file (None: not made, as for a file listed from its stat)."""
        text = self.scan_text
        if text is not None:
            self._scan, self.scan_text = _scan_of(json.loads(text), self.entry), None
        return self._scan

    @scan.setter
    def scan(self, value: Scan | None) -> None:
        self._scan, self.scan_text = value, None

    def shown_in(self, how: tuple[str, KeptRoot | None]) -> SessionInfo:
        """``shown_as`` of the record with this (prefix, kept root): the copy made last while
        ``how`` is the same object (a catalog's listing made again copies only the changed
        records: every one at each of the background pass's looks held two of each at once)."""
        if self.shown_for is not how or self.shown is None:
            self.shown, self.shown_for = shown_as(self.entry, *how), how
        return self.shown

    def to_json(self) -> dict[str, Any]:
        """The record for ``json.dumps`` (now: its values are the record's own, not copies), its
        pass inside it (``to_row`` keeps it apart). Field by field, not ``dataclasses.asdict``: its
        deep copy made a save at 10,000 new files 3 s."""
        return {**self._value(), "scan": self._scan_json()}

    def to_row(self) -> tuple[str, str | None]:
        """The record's JSON text without its pass, and its pass's (as it was loaded, when it was
        not asked for since): a cache row's two columns."""
        scan = self.scan_text
        if scan is None and (made := self._scan_json()) is not None:
            scan = json.dumps(made)
        return json.dumps(self._value()), scan

    def _value(self) -> dict[str, Any]:
        entry = {name: getattr(self.entry, name) for name in _ENTRY_FIELDS}
        entry["path"] = str(self.entry.path)
        parts = {"parts": [p.to_json() for p in self.parts]} if self.parts else {}
        return {"entry": entry, "mtimeNs": self.mtime_ns, **parts}

    def _scan_json(self) -> dict[str, Any] | None:
        found = self.scan
        if found is None:
            return None
        scan = {name: getattr(found, name) for name in _SCAN_FIELDS}
        if found.tail is not None:
            scan["tail"] = found.tail.to_json()
        return scan

    @classmethod
    def from_json(
        cls, data: dict[str, Any], folders: dict[str, Path] | None = None, scan_text: str | None = None
    ) -> _Cached:
        """The record of its JSON; ``folders``: the folders' paths made so far by this load, shared
        by their files' paths (a path made whole holds every part of it again); ``scan_text``: its
        pass's JSON when the cache keeps it apart (parsed when asked for)."""
        entry = data["entry"]
        shared = {name: _shared(entry[name]) for name in _SHARED_FIELDS if name in entry}
        info = SessionInfo(**{**entry, **shared, "path": _path_of(entry["path"], folders)})
        scan = data.get("scan")
        parts = tuple(cls.from_json(part, folders) for part in data.get("parts", ()))
        made = cls(info, _scan_of(scan, info) if scan else None, int(data["mtimeNs"]), parts)
        made.scan_text = scan_text
        return made

    def listed(self) -> Sequence[_Cached]:
        """What the listing shows of this file: its sessions when it holds several, else itself."""
        return self.parts or (self,)


def _scan_of(scan: dict[str, Any] | None, info: SessionInfo) -> Scan | None:
    """A pass of its JSON, its numbers shared with its record's (``from_json``)."""
    if not scan:
        return None
    tail = scan.get("tail")
    if tail:  # its sizes the record's own, its device and window lengths one copy each
        same = {**tail, **{name: _one_int(tail[name]) for name in _FEW_VALUES if name in tail}}
        same.update({name: info.size for name in ("size", "offset") if tail.get(name) == info.size})
        scan = {**scan, "tail": TailState.from_json(same)}
    if scan.get("last") is not None and scan["last"] == info.last_activity:
        scan = {**scan, "last": info.last_activity}
    return Scan(**scan)
