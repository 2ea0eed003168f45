"""Full-text search for a built site: one Pagefind bundle per batch of sessions, merged in the browser.

Pagefind holds a whole index in memory while it writes it, so the site is indexed in batches:
memory follows the largest batches (two are indexed at once where there are two cores), not the
archive, and a changed session re-indexes only its batch. A batch's bundle is named after what
it was made from, checked file by file on every build, and rebuilt when anything in it is
missing or damaged.

A bundle is only ever put in place whole (staged, then one rename), so a build checks a known
bundle by its files' count and sizes (a stat each, not a read: every bundle's bytes cost 1.8 s of
an incremental build at 10,000 sessions); ``bundle_intact`` compares every byte.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import os
import shutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sessiontree import __version__
from sessiontree.errors import SearchIndexError
from sessiontree.site.layout import STATE_DIR
from sessiontree.site.pagefind_service import index_documents
from sessiontree.site.progress import BuildProgress, Silent
from sessiontree.site.search_router import KEYS_FILE, entry_meta, keys_file, word_keys
from sessiontree.store.entries import dicts_of

__all__ = [
    "BATCH_SESSIONS",
    "BUNDLE_PREFIX",
    "Bundle",
    "IndexedPage",
    "SearchIndexError",
    "bundle_intact",
    "bundle_name",
    "bundle_present",
    "bundles_present",
    "chunk_documents",
    "index_batch",
    "plan_batches",
    "remove_old_bundles",
    "remove_staging",
    "router_order",
    "update_bundles",
]

BUNDLE_PREFIX = "pagefind-"
CHUNK_MESSAGES = 20
CHUNK_CHARS = 48_000
PARALLEL_BATCHES = 2
"""Batches indexed at once (at most one per core)."""
BATCH_BYTES = 512 << 10
"""Compressed search records per batch (about 6x as much text). Pagefind's service takes about
200 MiB per MiB of them (16 sessions: 3 MiB batches peaked at 477 MiB, 1 MiB at 222 MiB), so a
batch stays small and a session bigger than a batch is indexed in parts."""
CUT_ONE_IN = 8
"""A batch also ends after a session whose key hashes to 0 mod this: boundaries that depend on
the keys alone, so a session that grows or appears moves no boundary but its own."""
BATCH_SESSIONS = 16
"""A batch also ends at this many sessions: a folder's newest sessions sort last in it, so without
a bound its last batch grew with every new session until a key's hash cut it (small sessions:
up to ~128 in a batch's bytes; re-indexing 26 took 0.5 s, 8 0.18 s at 10,000 sessions)."""
# A batch also ends with its folder (a project's): a folder's newest sessions sort last in it, so
# a new session joins only its own folder's last few, not the next folder's first ones as well
# (10,000 sessions: the batch a new session re-indexed held 24 sessions, 0.5 s of Pagefind's).
_STAGING = f"{STATE_DIR}/staging"


@dataclass(frozen=True, slots=True)
class IndexedPage:
    """A session page and its records file, as the search index takes them."""

    key: str
    page: str
    records: str
    title: str
    sha256: str = ""
    """Of the session file the page was made from (part of the bundle's name)."""
    part: int = 0
    parts: int = 1
    """A session bigger than a batch is indexed in ``parts`` parts: this one holds every
    ``parts``-th of its documents, from the ``part``-th."""


@dataclass(frozen=True, slots=True)
class Bundle:
    """What the manifest keeps of one bundle: its sessions and a fingerprint of its files."""

    name: str
    keys: tuple[str, ...]
    files: int
    size: int
    sha256: str

    def to_json(self) -> dict[str, Any]:
        return {"keys": list(self.keys), "files": self.files, "size": self.size, "sha256": self.sha256}

    @classmethod
    def from_json(cls, name: str, raw: object) -> Bundle | None:
        if not isinstance(raw, dict):
            return None
        keys, files, size, digest = raw.get("keys"), raw.get("files"), raw.get("size"), raw.get("sha256")
        if not (isinstance(keys, list) and isinstance(files, int) and isinstance(size, int)):
            return None
        if not isinstance(digest, str):
            return None
        return cls(name, tuple(str(k) for k in keys), files, size, digest)


def _cuts_after(key: str) -> bool:
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:4], "big") % CUT_ONE_IN == 0


def _folder(key: str) -> str:
    return key.rpartition("/")[0]


def _units(
    pages: Iterable[IndexedPage], size_of: Callable[[IndexedPage], int]
) -> Iterator[tuple[IndexedPage, int]]:
    """Each page with its weight, a page heavier than a batch cut into parts of equal weight."""
    for page in sorted(pages, key=lambda p: p.key):
        weight = size_of(page)
        parts = max(1, -(-weight // BATCH_BYTES))
        if parts == 1 and page.parts == 1 and page.part == 0:
            yield page, weight  # most pages: no copy (dataclasses.replace, 0.24 s of 10,000)
            continue
        for part in range(parts):
            yield replace(page, part=part, parts=parts), weight // parts


def plan_batches(
    pages: Iterable[IndexedPage], size_of: Callable[[IndexedPage], int]
) -> list[list[IndexedPage]]:
    """Split pages (in key order, so a project's sessions sit together) into batches of bounded
    size and at most ``BATCH_SESSIONS`` sessions, none across two folders."""
    batches: list[list[IndexedPage]] = []
    current: list[IndexedPage] = []
    size = 0
    for page, weight in _units(pages, size_of):
        if current and (
            size + weight > BATCH_BYTES
            or len(current) >= BATCH_SESSIONS
            or _folder(current[-1].key) != _folder(page.key)
        ):
            batches.append(current)
            current, size = [], 0
        current.append(page)
        size += weight
        if page.part == page.parts - 1 and _cuts_after(page.key):
            batches.append(current)
            current, size = [], 0
    if current:
        batches.append(current)
    return batches


def router_order(bundles: Mapping[str, Bundle]) -> list[str]:
    """The bundles by their first session's file name, then its key, then their own name: what the
    router numbers them by, so a batch rebuilt after a new session keeps its number and the others
    theirs. Agents name a session by its start (pi, Codex): a new session's own batch, begun
    when its folder's last one is full, sorts after every other and moves no number (by key,
    it moved those of every later folder: 2 of 4 new sessions rewrote all shards at 10,000)."""

    def first(bundle: Bundle) -> tuple[str, str, str]:
        key = bundle.keys[0] if bundle.keys else ""
        return key.rsplit("/", 1)[-1], key, bundle.name

    return [b.name for b in sorted(bundles.values(), key=first)]


def bundle_name(batch: Sequence[IndexedPage]) -> str:
    """The bundle's folder name, from what it indexes (the same sessions give the same name)."""
    digest = hashlib.sha256(__version__.encode())
    for page in batch:
        line = f"{page.key}\0{page.sha256}\0{page.title}\0{page.page}\0{page.part}/{page.parts}\n"
        digest.update(line.encode("utf-8", "replace"))
    return BUNDLE_PREFIX + digest.hexdigest()[:16]


def _records_of(site: Path, item: IndexedPage) -> list[dict[str, Any]]:
    try:
        raw = json.loads(gzip.decompress((site / item.records).read_bytes()))
    except (OSError, ValueError, EOFError):
        return []
    return dicts_of(raw)


def chunk_documents(item: IndexedPage, records: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """Group a session's records into small HTML documents: (url, html), one section per message.

    Each message is a heading whose id is its entry id, so Pagefind's sub-results point at
    entries (``<url>#<entry id>``); grouping keeps the bundle to one fragment per chunk instead
    of one per message (20,000 messages: 1,031 files and 3.4 s instead of 20,041 and 18.5 s).
    """
    title = html.escape(item.title or item.page)
    parts: list[str] = []
    times: list[str] = []
    size = 0
    chunk = 0

    def document() -> tuple[str, str]:
        body = "".join(parts)
        # Each message's time (epoch seconds, 0 unknown), in the order of its heading: the
        # search's "newest first" orders the hits by it (a page's metadata, loaded with a hit).
        meta = f'data-pagefind-meta="times:{" ".join(times)}"'
        head = f'<html lang="en"><head><title>{title}</title></head><body {meta}>'
        doc = f"{head}<h1>{title}</h1>{body}</body></html>"
        return f"{item.page}?chunk={chunk}", doc

    for rec in records:
        text = str(rec.get("text", ""))
        entry = html.escape(str(rec.get("id", "")))
        role = html.escape(str(rec.get("role", "")))
        parts.append(f'<section><h2 id="{entry}">{role}</h2><p>{html.escape(text)}</p></section>')
        ts = rec.get("ts")
        times.append(str(ts // 1000) if isinstance(ts, int) and ts > 0 else "0")
        size += len(text)
        if len(parts) >= CHUNK_MESSAGES or size >= CHUNK_CHARS:
            yield document()
            parts, times, size, chunk = [], [], 0, chunk + 1
    if parts:
        yield document()


def _fingerprint(files: Iterable[tuple[str, bytes]]) -> tuple[int, int, str]:
    count = size = 0
    digest = hashlib.sha256()
    for rel, data in sorted(files):
        count += 1
        size += len(data)
        digest.update(f"{rel}\0{len(data)}\0".encode())
        digest.update(data)
    return count, size, digest.hexdigest()


def _files_of(folder: Path) -> Iterator[tuple[str, bytes]]:
    for path in folder.rglob("*"):
        if path.is_file():
            yield path.relative_to(folder).as_posix(), path.read_bytes()


def bundle_intact(site: Path, bundle: Bundle) -> bool:
    """True when the bundle's folder holds exactly the files it was written with, byte for byte."""
    folder = site / bundle.name
    if not folder.is_dir():
        return False
    try:
        return _fingerprint(_files_of(folder)) == (bundle.files, bundle.size, bundle.sha256)
    except OSError:
        return False


def _sizes_of(folder: str) -> Iterator[int]:
    with os.scandir(folder) as found:
        for entry in found:
            if entry.is_dir(follow_symlinks=False):
                yield from _sizes_of(entry.path)
            else:
                yield (
                    entry.stat(follow_symlinks=False).st_size if entry.is_file(follow_symlinks=False) else -1
                )


def bundle_present(site: Path, bundle: Bundle) -> bool:
    """True when the bundle's folder holds as many files as it was written with, of the same total
    size (a file missing, added or cut short fails; a file's bytes are not read)."""
    try:
        sizes = list(_sizes_of(os.path.join(site, bundle.name)))
    except OSError:
        return False
    return len(sizes) == bundle.files and -1 not in sizes and sum(sizes) == bundle.size


def bundles_present(site: Path, bundles: Mapping[str, Bundle]) -> dict[str, bool]:
    """``bundle_present`` of each of ``bundles``, by name."""
    return {name: bundle_present(site, bundle) for name, bundle in bundles.items()}


def _write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _put_in_place(site: Path, staging: Path, name: str) -> None:
    """Move a whole staged bundle to ``site/name`` (a damaged folder of that name goes first)."""
    final = site / name
    if final.exists():
        trash = site / _STAGING / f"old-{name}-{os.getpid()}"
        os.replace(final, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.replace(staging, final)


def index_batch(
    site: Path, batch: Sequence[IndexedPage], on_document: Callable[[], None] | None = None
) -> tuple[Bundle, int]:
    """Index one batch into its bundle folder, whole or not at all; return it and its record count."""
    name = bundle_name(batch)
    count = 0
    words: set[str] = set()

    def documents() -> Iterator[tuple[str, str]]:
        nonlocal count
        for item in batch:
            records = _records_of(site, item)
            if item.part == 0:
                count += len(records)
            word_keys(item.title or item.page, words)
            for rec in records:  # of every part: a bundle may claim more words, never fewer
                word_keys(f"{rec.get('role', '')} {rec.get('text', '')}", words)
            for number, document in enumerate(chunk_documents(item, records)):
                if number % item.parts == item.part:
                    yield document

    files = index_documents(documents(), on_document)
    if "pagefind-entry.json" not in files or "pagefind.js" not in files:
        raise SearchIndexError("Pagefind gave a bundle without its entry file")
    files[KEYS_FILE] = keys_file(words, entry_meta(files["pagefind-entry.json"]))
    staging = site / _STAGING / f"{name}-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        for rel, data in files.items():
            target = (staging / rel).resolve()
            if not target.is_relative_to(staging.resolve()):
                raise SearchIndexError(f"Pagefind named a file outside its bundle: {rel!r}")
            _write_file(target, data)
        _put_in_place(site, staging, name)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise SearchIndexError(f"Writing the search bundle {name}: {exc}") from None
    files_n, size, digest = _fingerprint(files.items())
    keys = tuple(dict.fromkeys(p.key for p in batch))
    return Bundle(name, keys, files_n, size, digest), count


def remove_staging(site: Path) -> None:
    """Delete what an interrupted build left half-written in the staging folder."""
    shutil.rmtree(site / _STAGING, ignore_errors=True)
    for legacy in (site / STATE_DIR).glob("staging-" + BUNDLE_PREFIX + "*"):  # before batches
        shutil.rmtree(legacy, ignore_errors=True)


def remove_old_bundles(site: Path, keep: Iterable[str]) -> None:
    """Delete search bundles other than ``keep`` (after the index page that names them is in place)."""
    kept = set(keep)
    for path in site.glob(BUNDLE_PREFIX + "*"):
        if path.is_dir() and path.name not in kept:
            shutil.rmtree(path, ignore_errors=True)
    remove_staging(site)


@dataclass
class SearchUpdate:
    """What the search step made: the bundles the index page loads, and what it re-indexed."""

    bundles: dict[str, Bundle]
    records: int | None = None
    """Records indexed this time (None when every batch was already up to date)."""
    errors: list[str] = field(default_factory=list)


def update_bundles(
    site: Path,
    pages: Sequence[IndexedPage],
    known: Mapping[str, Bundle],
    *,
    force: bool = False,
    progress: BuildProgress | None = None,
    sizes: Mapping[str, int] | None = None,
    present: Mapping[str, bool] | None = None,
) -> SearchUpdate:
    """Bring every batch's bundle up to date: keep the whole ones (``bundle_present``; ``force``
    indexes every batch again), index the rest two at a time. ``sizes``: records files' sizes
    known already (by their site path; the others are stat'ed); ``present``: known bundles'
    ``bundle_present`` answers made already, by name (the others are checked here)."""
    known_sizes = sizes or {}

    def size_of(page: IndexedPage) -> int:
        size = known_sizes.get(page.records)
        if size is not None:
            return size
        try:
            return os.stat(os.path.join(site, page.records)).st_size
        except OSError:
            return 0

    checked = present or {}

    def whole(bundle: Bundle) -> bool:
        found = checked.get(bundle.name)
        return bundle_present(site, bundle) if found is None else found

    update = SearchUpdate(bundles={})
    todo: list[list[IndexedPage]] = []
    for batch in plan_batches(pages, size_of):
        old = known.get(bundle_name(batch))
        if not force and old is not None and whole(old):
            update.bundles[old.name] = old
        else:
            todo.append(batch)
    if not todo:
        return update
    report = progress or Silent()
    report.begin("Indexing for search", len(todo))
    update.records = 0

    def index(batch: list[IndexedPage]) -> tuple[Bundle, int] | SearchIndexError:
        try:
            return index_batch(site, batch)
        except SearchIndexError as exc:
            return exc

    # Two Pagefind services at once where there are two cores: one indexes while the other's
    # documents are read and sent (each is a process of its own; memory follows two batches).
    workers = max(1, min(PARALLEL_BATCHES, os.cpu_count() or 1, len(todo)))
    try:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pagefind") as pool:
            for done, (batch, result) in enumerate(zip(todo, pool.map(index, todo), strict=True), 1):
                if isinstance(result, SearchIndexError):
                    update.errors.append(str(result))
                else:
                    bundle, count = result
                    update.bundles[bundle.name] = bundle
                    update.records += count
                more = f" and {len(batch) - 1} more" if len(batch) > 1 else ""
                report.advance(done, batch[0].key + more)
    finally:
        report.end()
    return update
