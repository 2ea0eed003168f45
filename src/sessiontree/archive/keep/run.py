"""One ``keep`` run: what changed since the manifest goes into the store as new objects, then the
manifest (last, atomically); then the shown copies are brought up to date.

Stat first: a file whose size and mtime are the manifest's is not opened, so a run that finds
nothing new writes nothing. A grown file whose first and last kept bytes are unchanged sends only
its new bytes; any other change keeps the earlier version beside the new one. Object names are
derived from their content and place, so a run after a killed one re-puts nothing it finds there.
One run per machine at a time (a lock in the data dir); each machine writes only its own names.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from threading import BoundedSemaphore
from typing import Any

from sessiontree.archive.keep import walk
from sessiontree.archive.keep.manifest import FileRecord, Manifest, Places, RootRecord, Version, machine_name
from sessiontree.archive.keep.repository import Repository
from sessiontree.archive.keep.stores import FolderStore, Store, open_store
from sessiontree.archive.keep.walk import Found
from sessiontree.errors import KeepDamaged, KeepError
from sessiontree.store.atomic import make_private_dir, write_atomic

PIECE = 4 * 2**20
"""A file is kept in pieces of this many bytes (each one object): memory stays bounded."""
EDGE = 64 * 1024
WORKERS = 8


@dataclass(slots=True)
class Report:
    machine: str
    where: str
    files: int = 0
    changed: int = 0
    appended: int = 0
    sent_bytes: int = 0
    objects: int = 0
    gone: int = 0
    pulled: dict[str, int] = field(default_factory=dict)
    wrote_manifest: bool = False
    problems: list[str] = field(default_factory=list)


@contextmanager
def _one_line() -> Iterator[None]:
    """A file this machine cannot write (a full disk, a folder made read-only): one line, as every
    other failure; what was kept stays as it was (every write is atomic, the manifest last)."""
    try:
        yield
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise KeepError(f"Cannot write{where}: {exc.strerror or exc}; nothing half kept") from None


@contextmanager
def run_lock(places: Places) -> Iterator[None]:
    """Hold the machine's keep lock; a second run stops with one line instead of waiting."""
    from sessiontree.store.locks import lock, unlock

    make_private_dir(places.base)
    fd = os.open(places.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            lock(fd, wait=False)
        except BlockingIOError:
            raise KeepError("Another keep run is under way on this machine; this one did nothing") from None
        try:
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)


def choose_store(places: Places, to: str | None) -> Store:
    """The store of ``--to``, else the one remembered, else the local folder; remembers a new one."""
    settings = places.load_settings()
    where = to or settings.get("to")
    if not where:
        return FolderStore(places.archive)
    store = open_store(str(where))
    if to and settings.get("to") != to:
        make_private_dir(places.base)
        write_atomic(places.settings, json.dumps({**settings, "to": to}) + "\n", readable=False)
    return store


def keep(
    roots: Sequence[Path],
    *,
    places: Places | None = None,
    to: str | None = None,
    passphrase: Callable[[bool], str | None] = lambda new: None,
    machine: str | None = None,
    pull: bool = True,
    redact: Redact | None = None,
) -> Report:
    """Keep every file under the roots in the archive, then refresh the shown copies.

    ``redact`` keeps a changed copy of each of its files instead (a team bucket: the share
    redactor, from the CLI): whole, never appended to, and no other file."""
    from sessiontree.archive.keep import shown

    places = places or Places.default()
    machine = machine or machine_name()
    with _one_line(), run_lock(places):
        store = choose_store(places, to)
        report = Report(machine, store.where)
        repo = Repository.open(store, places.key_file, passphrase, create=True, redacted=redact is not None)
        if repo.redacted != (redact is not None):
            holds = (
                "redacted copies: run with --redact"
                if repo.redacted
                else "whole sessions: use another prefix"
            )
            raise KeepError(f"The archive in {store.where} holds {holds}")
        names = repo.manifest_names()
        mine = repo.machine_id(machine)
        manifest = _own_manifest(places, repo, machine, names.get(mine, []))
        slots, found = walk.walk_roots(roots, redact.suffixes if redact else None)
        report.files = len(found)
        carried = _carry_shown(places, manifest, found)
        today = date.today().isoformat()
        work = [(key, f) for key, f in found.items() if _changed(manifest.files.get(key), f)]
        dirty = _mark_running(places, store.where, bool(work))
        with ThreadPoolExecutor(WORKERS, thread_name_prefix="keep") as pool:
            sender = _Sender(repo, machine, pool, dirty)
            for key, f in work:
                _keep_file(sender, manifest, key, f, today, report, redact)
            sender.wait()
        report.objects = sender.sent
        for key, (day, root_slot, root) in carried.items():
            if key in manifest.files:
                manifest.files[key].gone = day
                manifest.roots.setdefault(root_slot, root)
        for slot in list(slots):
            before = manifest.roots.get(slot)
            if before is not None and not any(k.startswith(slot + "/") for k in found):
                slots[slot] = before  # emptied: its agent can no longer be told from its files
        changed = bool(work) or any(manifest.roots.get(s) != r for s, r in slots.items())
        manifest.roots.update(slots)
        for key, record in manifest.files.items():
            present = key in found and key not in carried
            if record.gone is not None and present:
                record.gone, changed = None, True
            elif record.gone is None and not present and key.split("/", 1)[0] in slots:
                record.gone, changed = today, True
                report.gone += 1
        if changed:
            name = repo.write_manifest(manifest, names.get(mine, []))
            _save_state(places, store.where, name, manifest)
            report.wrote_manifest = True
        _mark_done(places, store.where)
        report.problems += shown.refresh_own(places, repo, manifest)
        if pull:
            for machine_id, manifest_names in sorted(names.items()):
                if machine_id != mine:
                    other = repo.read_manifest(manifest_names)
                    if other is not None:
                        count, problems = shown.refresh_machine(places, repo, other)
                        report.pulled[other.machine] = count
                        report.problems += problems
    return report


def _carry_shown(
    places: Places, manifest: Manifest, found: dict[str, Found]
) -> dict[str, tuple[str, str, Any]]:
    """This machine's shown copies the manifest does not know (kept into another store before the
    one now used): added to ``found`` to be kept again here, as gone on the day they went."""
    from sessiontree.archive.keep.roots import INDEX, target

    folder = places.kept / manifest.machine
    try:
        index = json.loads((folder / INDEX).read_text(encoding="utf-8"))
        gone, roots = dict(index["gone"]), dict(index["roots"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    carried: dict[str, tuple[str, str, Any]] = {}
    for key, day in gone.items():
        path = target(folder, key)
        slot = key.split("/", 1)[0]
        if key in manifest.files or key in found or path is None or slot not in roots:
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        found[key] = Found(path, st.st_size, st.st_mtime_ns)
        carried[key] = (str(day), slot, RootRecord(**roots[slot]))
    return carried


def _changed(record: FileRecord | None, found: Found) -> bool:
    return record is None or (record.now.size, record.now.mtime_ns) != (found.size, found.mtime_ns)


class _Sender:
    """Puts objects from a few threads, at most ``2 * WORKERS`` pieces in memory at once."""

    def __init__(self, repo: Repository, machine: str, pool: ThreadPoolExecutor, resumed: bool) -> None:
        self.repo, self.machine, self.pool = repo, machine, pool
        self.slots = BoundedSemaphore(2 * WORKERS)
        self.futures: list[Future[None]] = []
        self.sent = 0
        self.there: set[str] | None = None
        if resumed:  # a run was killed: what it put is not put again
            self.there = set(repo.store.list(f"o/{repo.machine_id(machine)}/"))

    def send(self, key: str, offset: int, piece: bytes) -> str:
        digest = hashlib.sha256(piece).hexdigest()
        name = self.repo.object_path(self.machine, f"{key}\0{offset}\0{digest}")
        if self.there is not None and name in self.there:
            return name
        self.slots.acquire()

        def put() -> None:
            try:
                self.repo.put(name, piece)
            finally:
                self.slots.release()

        for done in self.futures:
            if done.done() and done.exception() is not None:
                self.slots.release()
                done.result()  # the first failure stops the run at once, as its one line
        self.futures.append(self.pool.submit(put))
        self.sent += 1
        self.futures = [f for f in self.futures if not f.done() or f.exception() is not None]
        return name

    def wait(self) -> None:
        for future in self.futures:
            future.result()  # the first failure, as its one line


def _edges(fh: object, size: int) -> tuple[str, str]:
    read_at = fh.read  # type: ignore[attr-defined]
    fh.seek(0)  # type: ignore[attr-defined]
    head = hashlib.sha256(read_at(min(size, EDGE))).hexdigest()
    fh.seek(max(0, size - EDGE))  # type: ignore[attr-defined]
    tail = hashlib.sha256(read_at(size - max(0, size - EDGE))).hexdigest()
    return head, tail


@dataclass(frozen=True, slots=True)
class Redact:
    """What a redacted archive keeps (names ending so) and how a file's bytes become the kept ones."""

    suffixes: tuple[str, ...]
    bytes_of: Callable[[str, bytes], bytes]


def _keep_file(
    sender: _Sender,
    manifest: Manifest,
    key: str,
    found: Found,
    today: str,
    report: Report,
    redact: Redact | None,
) -> None:
    """Send what changed of one file; record its new version (the earlier one kept when rewritten)."""
    try:
        fh = open(found.path, "rb", buffering=0)  # noqa: SIM115 (closed below)
    except OSError:
        return  # deleted (or made unreadable) since it was listed: the next run sees why
    if redact is not None:
        with fh:
            st = os.fstat(fh.fileno())
            data = redact.bytes_of(found.path.name, fh.read(st.st_size))
        pieces = range(0, len(data), PIECE)
        parts = [
            [sender.send(key, at, data[at : at + PIECE]), at, len(data[at : at + PIECE])] for at in pieces
        ]
        version = Version(st.st_size, st.st_mtime_ns, parts, length=len(data))
        _record(manifest, key, version, 0, today, report, keep_old=False)  # a derived copy: the newest
        return
    with fh:
        st = os.fstat(fh.fileno())
        size, mtime_ns = st.st_size, st.st_mtime_ns
        record = manifest.files.get(key)
        start, parts = 0, []
        grown = record is not None and 0 < record.now.size < size and record.now.head
        if record is not None and grown and _edges(fh, record.now.size) == (record.now.head, record.now.tail):
            start, parts = record.now.size, list(record.now.parts)  # grown: only the new bytes
        fh.seek(start)
        offset, first, last = start, b"", b""
        while offset < size:
            piece = fh.read(min(PIECE, size - offset))
            if not piece:
                break  # cut short while read: what was read is kept, the next run sees the rest
            parts.append([sender.send(key, offset, piece), offset, len(piece)])
            first = first or (piece[:EDGE] if offset == 0 else b"")
            last = (last + piece)[-EDGE:] if len(piece) < EDGE else piece[-EDGE:]
            offset += len(piece)
        if first and (len(last) == EDGE or offset == len(last)):  # the edges from the bytes read
            head, tail = hashlib.sha256(first).hexdigest(), hashlib.sha256(last).hexdigest()
        else:  # an append shorter than the tail's window: its bytes before are read again
            head, tail = _edges(fh, offset)
        after = os.fstat(fh.fileno())
    if (after.st_size, after.st_mtime_ns) != (size, mtime_ns) or offset != size:
        mtime_ns = -1  # written to while kept: kept as read, and read again next run
    _record(manifest, key, Version(offset, mtime_ns, parts, head, tail), start, today, report)


def _record(
    manifest: Manifest,
    key: str,
    version: Version,
    start: int,
    today: str,
    report: Report,
    *,
    keep_old: bool = True,
) -> None:
    """Note a file's new version: appended to (from ``start``), or the earlier one kept beside it."""
    record = manifest.files.get(key)
    report.changed += 1
    report.sent_bytes += version.kept_size - start
    if record is None:
        manifest.files[key] = FileRecord(version, seen=today)
        return
    if start:
        report.appended += 1
    elif keep_old and record.now.size and record.now.mtime_ns != -1:
        record.old.append(record.now)  # rewritten in place: its earlier version stays kept
    record.now, record.seen, record.gone = version, today, None


# -- this machine's manifest, cached in plain beside the data dir's other state ------------------


def _own_manifest(places: Places, repo: Repository, machine: str, names: list[str]) -> Manifest:
    newest = names[-1] if names else None
    state = places.state_file(repo.store.where)
    try:
        data = json.loads(state.read_text(encoding="utf-8"))
        if data.get("manifest") == newest and newest is not None:
            return Manifest.from_json(data["data"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        found = repo.read_manifest(names)
    except KeepDamaged:
        raise KeepDamaged(f"Refused this machine's manifest in {repo.store.where}: it is damaged") from None
    return found or Manifest(machine)


def _save_state(places: Places, where: str, name: str, manifest: Manifest) -> None:
    state = places.state_file(where)
    make_private_dir(state.parent)
    write_atomic(state, json.dumps({"manifest": name, "data": manifest.to_json()}), readable=False)


def _running_mark(places: Places, where: str) -> Path:
    return places.state_file(where).with_suffix(".running")


def _mark_running(places: Places, where: str, work: bool) -> bool:
    """Note that a run is sending; True when a killed run had left its note (objects to reuse)."""
    mark = _running_mark(places, where)
    resumed = mark.exists()
    if work and not resumed:
        make_private_dir(mark.parent)
        write_atomic(mark, str(time.time()), readable=False)
    return resumed


def _mark_done(places: Places, where: str) -> None:
    _running_mark(places, where).unlink(missing_ok=True)
