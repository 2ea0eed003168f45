"""One catalog's link to serve's usage store (``archive.usage_db``): a record's usage rows are handed
to the store as the catalog stores the record, and dropped from it (its records keep no rows)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any, Protocol

from sessiontree.archive.usage_db import UsageDb
from sessiontree.store.discovery import SessionInfo


class _Listed(Protocol):
    """A catalog's record of one file (``catalog._Cached``): what the glue below reads of it."""

    entry: SessionInfo
    scan: Any
    mtime_ns: int

    def listed(self) -> Sequence[_Listed]: ...


class CatalogUsage:
    """One catalog's link to the store (``Catalog(..., usage=)``): its records keep no rows."""

    def __init__(self, db: UsageDb, root: int) -> None:
        self.db = db
        self.root = root

    @classmethod
    def of(cls, db: UsageDb | None, root: int) -> CatalogUsage | None:
        return None if db is None else cls(db, root)

    def adopt(self, loaded: dict[str, Any], files: dict[str, Any]) -> dict[str, Any]:
        """The records of a loaded cache whose rows are stored (the others read again): rows a
        cache carries (an older one's) are stored and dropped, here and from its JSON ``files``."""
        kept: dict[str, Any] = {}
        for key, cached in loaded.items():
            sig = (cached.mtime_ns, cached.entry.size)
            parts = cached.listed()
            if all(
                p.scan is None or p.scan.usage or self.db.known(self.root, p.entry.key, sig) for p in parts
            ):
                kept[key] = cached
                for value in [files[key], *files[key].get("parts", ())]:
                    if value.get("scan"):
                        value["scan"]["usage"] = []
        self.take(kept.values(), set(p.entry.key for c in kept.values() for p in c.listed()))
        return kept

    def take(self, records: Iterable[_Listed], keep: set[str] | None = None) -> None:
        """Store the rows of these records not stored yet and drop them from the records; with
        ``keep`` (every listed key), remove the store's other sessions of this root."""
        found: list[tuple[SessionInfo, tuple[int, int], list[list[Any]] | None]] = []
        scans = []
        for cached in records:
            sig = (cached.mtime_ns, cached.entry.size)
            for part in cached.listed():
                if part.scan is None:
                    if self.db.stored(self.root, part.entry.key):
                        found.append((part.entry, sig, None))
                elif not self.db.known(self.root, part.entry.key, sig):
                    found.append((part.entry, sig, part.scan.usage))
                    scans.append(part.scan)
                elif part.scan.usage:
                    scans.append(part.scan)
        if found or keep is not None:
            self.db.store(self.root, found, keep)
        for scan in scans:
            scan.usage = []

    def restored(self, old: Any) -> Any:
        """A record whose pass a grown file continues, with its rows back from the store."""
        if old is None or old.scan is None or old.scan.tail is None or old.scan.usage:
            return old
        return replace(old, _scan=replace(old.scan, usage=self.db.rows(self.root, old.entry.key)))
