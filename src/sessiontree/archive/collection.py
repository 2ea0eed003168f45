"""The collection: several sessions folders seen as one, and the rules every many-session command shares.

Serve, build, search and stats go through here for which folders they cover (``--root`` or the
default agent folders), the keys and labels of what they list, the filters (one ``--since``,
one ``--project`` rule), the cache dir, and the one "this folder must not be inside that one"
check. ``Sources`` lists the folders through one ``Catalog`` each.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import posixpath
import re
import time
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote_to_bytes

from sessiontree.errors import FilterError
from sessiontree.readers.discovery import default_roots, root_agent
from sessiontree.store.atomic import make_private_dir
from sessiontree.store.discovery import SessionInfo, normalize_cwd
from sessiontree.store.paths import AgentPaths
from sessiontree.store.paths import default_cache_dir as default_cache_dir  # its home is the store
from sessiontree.store.storage import read_reason, resolves_inside
from sessiontree.store.times import MAX_TIME_MS, UTC_ZONE, Zone, datetime_millis, parse_iso

if TYPE_CHECKING:
    from sessiontree.archive.catalog import Catalog, Walk
    from sessiontree.archive.usage import UsageRecord
    from sessiontree.archive.usage_db import UsageDb
    from sessiontree.archive.usage_query import UsageAnswers

# -- folders ---------------------------------------------------------------------------------


def pick_roots(
    agent_dir: Path,
    given: Sequence[Path],
    agent: str | None = None,
    *,
    existing: bool = False,
    announce: Callable[[str, Path], None] | None = None,
) -> list[Path]:
    """The folders given, else ours and the other agents' default folders that exist.

    ``announce(agent, folder)`` hears each other agent's folder picked up. ``existing`` leaves
    out our own folder when it does not exist and another one does.
    """
    if given:
        return list(given)
    ours = AgentPaths(agent_dir).sessions_dir
    roots = [ours] if agent in (None, "pi") else []
    for name, root in default_roots():
        if agent in (None, name):
            if announce is not None:
                announce(name, root)
            roots.append(root)
    if existing and len(roots) > 1 and not ours.is_dir():
        roots.remove(ours)
    return roots + kept_folders(roots if given else None, agent)


def kept_folders(given: Sequence[Path] | None = None, agent: str | None = None) -> list[Path]:
    """The shown copies of ``keep`` (deleted sessions, other machines'): one more root each, listed
    like any other. With ``given`` roots, only this machine's copies of those folders."""
    from sessiontree.archive.keep.roots import kept_roots

    kept = kept_roots()
    if not kept:
        return []
    if given is not None:
        from sessiontree.archive.keep.manifest import machine_name

        wanted = {os.path.abspath(root.expanduser()) for root in given}
        kept = [k for k in kept if k.origin in wanted and k.machine == machine_name()]
    return [k.path for k in kept if agent in (None, k.agent) and k.path not in (given or ())]


_STAND_INS: dict[Path, Path] = {}
"""Cache dirs that could not be made -> the private temp dir used instead (once per process)."""


def usable_cache_dir(given: Path | None = None, warn: Callable[[str], None] | None = None) -> Path:
    """The cache dir to use: ``given`` (else the user's), made 0700 when missing. When it cannot be
    made (a file in its place, no permission) the command works without a cache: a private temp
    dir, removed at exit, stands in, and ``warn`` says so once."""
    wanted = (given or default_cache_dir()).expanduser()
    if wanted in _STAND_INS:
        return _STAND_INS[wanted]
    try:
        make_private_dir(wanted)
        if not os.access(wanted, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, "permission denied", str(wanted))
        return wanted
    except OSError as exc:
        reason = read_reason(exc) if exc.errno != errno.EEXIST else "a file is in its place"
    import atexit  # only when the cache dir cannot be made
    import shutil
    import tempfile

    stand_in = Path(tempfile.mkdtemp(prefix="sessiontree-cache-"))
    atexit.register(shutil.rmtree, stand_in, ignore_errors=True)
    _STAND_INS[wanted] = stand_in
    if warn is not None:
        warn(f"Cannot use the cache dir {wanted} ({reason}); working without a cache")
    return stand_in


def is_inside(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or under it (``~`` expanded, symlinks followed)."""
    try:
        base = folder.expanduser().resolve()
    except (OSError, RuntimeError):
        return False
    return resolves_inside(path.expanduser(), base)


# -- filters ---------------------------------------------------------------------------------

_RELATIVE = re.compile(r"^(\d{1,6})\s*([hdw])$")
_BARE_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UNIT_SECONDS = {"h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float | None = None, option: str = "--since", zone: Zone = UTC_ZONE) -> int:
    """Turn ``2026-02-16``, an ISO date-time or ``12h`` / ``7d`` / ``2w`` into ms (a date, or a
    date-time that names no offset, is read in ``zone``: UTC unless given)."""
    value = text.strip()
    relative = _RELATIVE.match(value.lower())
    if relative:
        seconds = int(relative.group(1)) * _UNIT_SECONDS[relative.group(2)]
        return int(((time.time() if now is None else now) - seconds) * 1000)
    when = parse_iso(value, zone.local)
    ms = None if when is None else datetime_millis(when)
    if ms is None:
        where = "UTC" if not zone.local else "local time"
        raise FilterError(
            f"Not a date for {option}: {value!r}; use YYYY-MM-DD (1970-9999), "
            f"an ISO date-time ({where} unless it says), or 12h / 7d / 2w"
        )
    return ms


def parse_until(text: str, now: float | None = None, zone: Zone = UTC_ZONE) -> int:
    """``parse_since`` for the end of a range (exclusive): a bare ``YYYY-MM-DD`` counts that whole day
    (to the next midnight in ``zone``: a day of 23 or 25 hours where the clocks change)."""
    value = text.strip()
    end = parse_since(value, now, "--until", zone)
    if not _BARE_DAY.match(value):
        return end
    try:
        following = date.fromisoformat(value) + timedelta(days=1)
    except OverflowError:  # 9999-12-31: the end of time
        return MAX_TIME_MS
    return zone.start_of(following) or MAX_TIME_MS


def project_path(value: str) -> str:
    """A ``--project`` value as the absolute directory headers record (``~`` and relative paths resolved)."""
    return normalize_cwd(value).rstrip("/\\") or os.sep


def in_project(cwd: str, project: str) -> bool:
    """The one ``--project`` rule: the session started in ``project`` or in a folder under it."""
    return cwd == project or cwd.startswith(project.rstrip("/\\") + os.sep)


def project_clause(project: str, column: str) -> tuple[str, list[Any]]:
    """``in_project`` as an SQL condition on ``column``, and its parameters."""
    under = project.rstrip("/\\") + os.sep
    return f"({column} = ? OR substr({column}, 1, ?) = ?)", [project, len(under), under]


@dataclass(frozen=True, slots=True)
class Filters:
    """What ``--project``, ``--since`` and ``--exclude`` keep of a listing."""

    project: str | None = None
    """An absolute directory: sessions started in it or under it (see ``in_project``)."""
    since_ms: int | None = None
    """Only files changed at or after this time (epoch milliseconds)."""
    exclude: tuple[str, ...] = ()

    def keeps(self, entry: SessionInfo) -> bool:
        """True when the session is kept."""
        name = entry.key.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(entry.key, p) or fnmatch.fnmatchcase(name, p) for p in self.exclude):
            return False
        if self.since_ms is not None and entry.modified * 1000 < self.since_ms:
            return False
        # An unreadable file has no cwd: a project filter leaves it out, no filter lists it.
        return self.project is None or (entry.error is None and in_project(entry.cwd, self.project))


def select(entries: Iterable[SessionInfo], filters: Filters) -> list[SessionInfo]:
    """The entries the filters keep, in the order given."""
    return [e for e in entries if filters.keeps(e)]


# -- the files a command covers -------------------------------------------------------------


_BYTES = "bytes:"
"""The key of a path that is not UTF-8 (no absolute path starts so): its bytes, percent-escaped."""


def path_key(path: str | Path) -> str:
    """A file's path as the index stores it: the path itself when it is UTF-8 (as nearly all are);
    else ``bytes:`` and its bytes percent-escaped (SQLite stores only UTF-8 text; the undecodable
    bytes of a name arrive as lone surrogates). One key per path, and the path comes back whole."""
    text = str(path)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _BYTES + quote(os.fsencode(text), safe="/")
    return text


def path_of_key(key: str) -> Path:
    """The path a ``path_key`` names."""
    if key.startswith(_BYTES):
        return Path(os.fsdecode(unquote_to_bytes(key[len(_BYTES) :])))
    return Path(key)


def root_clause(roots: Sequence[Path], column: str) -> tuple[str, list[Any]]:
    """An SQL condition keeping paths (``path_key``) under one of the roots, and its parameters."""
    if not roots:
        return "1", []
    parts, params = [], []
    for root in roots:
        prefix = str(root).rstrip(os.sep) + os.sep
        # Escaping goes byte by byte, so the escaped root is a prefix of its files' escaped keys.
        for form in dict.fromkeys((path_key(prefix), _BYTES + quote(os.fsencode(prefix), safe="/"))):
            parts.append(f"substr({column}, 1, ?) = ?")
            params.extend([len(form), form])
    return "(" + " OR ".join(parts) + ")", params


def files_clause(
    roots: Sequence[Path], project: str | None, path_column: str, cwd_column: str
) -> tuple[str, list[Any]]:
    """An SQL condition keeping the indexed files under the roots and, if given, in the project."""
    clause, params = root_clause(roots, path_column)
    if project is not None:
        in_project, more = project_clause(project, cwd_column)
        clause += f" AND {in_project}"
        params.extend(more)
    return clause, params


# -- several folders as one ------------------------------------------------------------------


def machine_roots(roots: Sequence[Path], machine: str | None) -> list[Path]:
    """The roots of one machine's sessions (``--machine``): this machine's folders and its kept
    copy, or another machine's kept copies (``archive.keep``)."""
    if machine is None:
        return list(roots)
    from sessiontree.archive.keep.manifest import machine_name
    from sessiontree.archive.keep.roots import kept_root_of, kept_roots

    here = machine_name()
    found = [
        root
        for root in roots
        if ((kept := kept_root_of(root)) is None and machine == here)
        or (kept is not None and kept.machine == machine)
    ]
    if not found:
        known = sorted({here, *(k.machine for k in kept_roots())})
        raise FilterError(f"No sessions of a machine named {machine!r} here; machines: {', '.join(known)}")
    return found


def root_labels(roots: Sequence[Path]) -> list[str]:
    """A key prefix per root: none for one root; else its agent's name (``pi``, ``claude``, ``codex``).

    This machine's kept copy of a listed root (``archive.keep``: its deleted sessions) shares that
    root's label, so a session keeps its key (and a built site its page's address) once its own
    file is gone; another machine's copy is one more root, labelled ``<machine>-<agent>``.
    """
    from sessiontree.archive.keep.roots import kept_root_of

    overlays = overlay_of(roots)
    bases = [root for index, root in enumerate(roots) if index not in overlays]
    labels: list[str] = []
    for root in bases:
        if len(bases) <= 1:
            labels.append("")
            continue
        kept = kept_root_of(root)
        base = f"{kept.machine}-{kept.agent}" if kept is not None else root_agent(root) or "pi"
        label, n = base, 1
        while label in labels:
            n += 1
            label = f"{base}-{n}"
        labels.append(label)
    by_root = dict(zip(bases, labels, strict=True))
    return [by_root[roots[overlays.get(i, i)]] for i in range(len(roots))]


def overlay_of(roots: Sequence[Path]) -> dict[int, int]:
    """Index of this machine's kept copy -> index of the listed root it is the copy of."""
    from sessiontree.archive.keep.manifest import machine_name
    from sessiontree.archive.keep.roots import kept_root_of

    where = {os.path.abspath(root): index for index, root in enumerate(roots)}
    found: dict[int, int] = {}
    for index, root in enumerate(roots):
        kept = kept_root_of(root)
        if kept is not None and kept.machine == machine_name() and kept.origin in where:
            found[index] = where[kept.origin]
    return found


def key_in(roots: Sequence[Path], labels: Sequence[str], path: str) -> str | None:
    """The (prefixed) key of a session file under one of the roots (``root_labels``), or None."""
    # A normal absolute path, as the catalogs list them, is cut as a string (through pathlib,
    # 30 us a root: 0.8 s of a site's usage page at 10,000 sessions in three roots).
    normal = os.sep == "/" and path.startswith("/") and posixpath.normpath(path) == path
    for index, root in enumerate(roots):
        prefix = f"{labels[index]}/" if labels[index] else ""
        if normal:
            top = os.path.join(os.path.abspath(root), "")
            if path.startswith(top) and len(path) > len(top):
                return prefix + path[len(top) :]
            continue
        try:
            rest = Path(path).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            continue
        return prefix + rest
    return None


class Sources:
    """Several catalogs seen as one: ``<label>/<key>`` keys, each mapped back to its file."""

    def __init__(
        self, roots: Sequence[Path], cache_dir: Path | None, *, usage_store: bool | UsageDb = False
    ) -> None:
        """``usage_store`` (serve): usage rows in SQLite in ``cache_dir`` (``archive.usage_db``), or
        that store opened already (serve's usage page answers from it before the catalogs load)."""
        self.roots = list(roots)
        self.labels = root_labels(self.roots)
        # The catalog (records, caches, line scans) loads with the first listing, not the stat pass.
        from sessiontree.archive.catalog import CACHE_VERSION, Catalog
        from sessiontree.archive.usage_catalog import CatalogUsage
        from sessiontree.archive.usage_db import UsageDb

        self.usage_db = (
            usage_store
            if isinstance(usage_store, UsageDb)
            else UsageDb.open(cache_dir if usage_store else None, roots, CACHE_VERSION)
        )
        linked = [CatalogUsage.of(self.usage_db, n) for n in range(len(self.roots))]
        self.catalogs: list[Catalog] = [
            Catalog(root, cache_dir, linked[n]) for n, root in enumerate(self.roots)
        ]
        self._prefixed: dict[int, tuple[int, list[SessionInfo]]] = {}  # ``_shown``'s, with its changes

    def _prefix(self, index: int) -> str:
        return f"{self.labels[index]}/" if self.labels[index] else ""

    def scan(
        self,
        *,
        exact: bool = True,
        touched: Collection[Path] | None = None,
        deadline: float | None = None,
    ) -> list[SessionInfo]:
        """Every root's listing (re-reading only changed files), newest first (``exact``,
        ``deadline``: see ``Catalog.scan``); ``touched``: only these files can have changed since
        the last scan (a watcher's report), so each root looks at those alone (``Catalog.refresh``)
        when it can."""
        from sessiontree.archive.catalog import READ_FIRST

        walks: list[tuple[int, Walk]] = []
        for index, catalog in enumerate(self.catalogs):
            if touched is None or not catalog.refresh(touched):
                walks.append((index, catalog.walk(exact=exact)))
        # Every root's files in one order, newest first: the first window is what is read first.
        todo = sorted(
            ((item, walk) for _, walk in walks for item in walk.todo),
            key=lambda pair: (pair[0].newest, pair[0].key),
        )
        for n, (item, walk) in enumerate(todo):
            walk.read_one(item, deadline if n >= READ_FIRST else None)
        for _, walk in walks:
            walk.catalog.take(walk, listing=False)
        found: list[SessionInfo] = []
        keys: set[str] = set()
        for index in range(len(self.catalogs)):
            for entry in self._shown(index):
                if entry.key in keys:
                    continue  # a kept copy of a file listed live: one session, the live one
                keys.add(entry.key)
                found.append(entry)
        found.sort(key=lambda e: e.modified, reverse=True)
        return found

    def _shown(self, index: int) -> list[SessionInfo]:
        """A catalog's records with its root's prefix in their keys (a kept one's with its machine),
        made again only when the catalog changed (shared: never change it)."""
        catalog = self.catalogs[index]
        made = self._prefixed.get(index)
        if made is not None and made[0] == catalog.changes:
            return made[1]
        shown = catalog.entries(self._prefix(index))
        self._prefixed[index] = (catalog.changes, shown)
        return shown

    def version(self) -> tuple[int, ...]:
        """Changes as each catalog counts them: equal versions, the same listing."""
        return tuple(catalog.changes for catalog in self.catalogs)

    def usage_records(self) -> list[UsageRecord]:
        """Every listed session's usage per (day, model), from the last scans (``archive.session_usage``)."""
        from sessiontree.archive.session_usage import usage_records

        if self.usage_db is not None:
            return self.usage_db.records()
        return usage_records(pair for catalog in self.catalogs for pair in catalog.usage_listed())

    def usage_answers(self) -> UsageAnswers:
        """The usage page's answers: queries over the usage store, else over ``usage_records``."""
        from sessiontree.archive.usage_query import RecordsAnswers

        return RecordsAnswers(self.usage_records()) if self.usage_db is None else self.usage_db.answers()

    def session_models(self, keys: Iterable[str] | None = None) -> dict[str, list[str]] | None:
        """The models of these listed sessions (prefixed keys), or of every one, from the usage store."""
        return None if self.usage_db is None else self.usage_db.models_by_key(keys, self._prefix, self._split)

    def model_keys(self, model: str) -> list[str]:
        """The (prefixed) keys of the sessions that used ``model``, from the usage store (or none)."""
        return [] if self.usage_db is None else self.usage_db.model_keys(model, self.labels, self._split)

    def pending(self) -> list[tuple[Catalog, str]]:
        """The files whose counts wait for a whole read, as (catalog, its key), newest first."""
        found = [
            (when, n, key) for n, catalog in enumerate(self.catalogs) for when, key in catalog.pending_times()
        ]
        found.sort(key=lambda item: -item[0])  # stable: a root's own order kept among equal times
        return [(self.catalogs[n], key) for _, n, key in found]

    def _split(self, key: str) -> tuple[int, str]:
        """The catalog a key is in and the key in it (a live file before its kept copy)."""
        if not any(self.labels):
            label, rest = "", key
        else:
            label, _, rest = key.partition("/")
        found = [index for index, name in enumerate(self.labels) if name == label]
        if not found:
            raise ValueError(key)
        return next((i for i in found if self.catalogs[i].get(rest) is not None), found[0]), rest

    def get(self, key: str) -> SessionInfo | None:
        """The record of one file by (prefixed) key."""
        try:
            index, rest = self._split(key)
        except ValueError:
            return None
        entry = self.catalogs[index].get(rest)
        return replace(entry, key=key) if entry is not None else None

    def family(self, key: str) -> tuple[SessionInfo | None, list[SessionInfo]]:
        """The listed session that spawned this one and those it spawned (another agent's subagent
        threads and sub-sessions, in the same root), as of the last scan; keys prefixed."""
        try:
            index, rest = self._split(key)
        except ValueError:
            return None, []
        prefix = self._prefix(index)
        entries = self.catalogs[index].entries()
        parent_key = next((e.parent_key for e in entries if e.key == rest), None)
        parent = next((e for e in entries if parent_key is not None and e.key == parent_key), None)
        children = [e for e in entries if e.parent_key == rest]
        return (
            None if parent is None else replace(parent, key=prefix + parent.key),
            [replace(c, key=prefix + c.key) for c in children],
        )

    def key_of(self, path: str) -> str | None:
        """The (prefixed) key of a session file under one of the roots, or None."""
        return key_in(self.roots, self.labels, path)

    def path_of(self, key: str) -> Path:
        """The session file a (prefixed) key names."""
        index, rest = self._split(key)
        return self.roots[index] / rest
