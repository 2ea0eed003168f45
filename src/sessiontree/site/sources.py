"""Which sessions a build covers: the catalog of the sessions folder, filtered."""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sessiontree.archive.catalog import CatalogEntry
from sessiontree.errors import SessiontreeError

_HASH_CHUNK = 1 << 20


class BuildError(SessiontreeError):
    """The build cannot start (bad folder, bad output, bad filter)."""


@dataclass(frozen=True, slots=True)
class Filters:
    """What ``--project``, ``--since`` and ``--exclude`` keep."""

    project: str | None = None
    since: datetime | None = None
    exclude: tuple[str, ...] = ()

    def keeps(self, entry: CatalogEntry) -> bool:
        """True when the session is part of the site."""
        name = entry.key.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(entry.key, p) or fnmatch.fnmatchcase(name, p) for p in self.exclude):
            return False
        if self.since is not None and entry.mtime < self.since.timestamp():
            return False
        # An unreadable file has no cwd: a project filter leaves it out, no filter lists it.
        return self.project is None or (entry.error is None and entry.cwd.startswith(self.project))


def parse_since(value: str) -> datetime:
    """Parse ``--since`` (``2026-11-30`` or an ISO time); a time without a zone is UTC."""
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BuildError(
            f"Not a date: {value!r}; use YYYY-MM-DD or an ISO time such as 2026-11-30T12:00"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def select(entries: Iterable[CatalogEntry], filters: Filters) -> list[CatalogEntry]:
    """The catalog entries the filters keep, in catalog order (newest first)."""
    return [e for e in entries if filters.keeps(e)]


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
