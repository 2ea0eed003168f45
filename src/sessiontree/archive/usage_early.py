"""A restarted server's usage page before its first listing: the answers the store kept for its rows
as they are, or else the page's own two (its totals and its first page of sessions) made from the
rows over a connection of their own, with no check of the file and no pass over its keys (opening
the store whole took 1.1 s at 100,000 sessions, under the lock its writer waits on), and kept."""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sessiontree.archive.usage import UsageRecord
from sessiontree.archive.usage_db import SCHEMA_VERSION
from sessiontree.archive.usage_kept import read_kept
from sessiontree.archive.usage_models import ALL, LATER
from sessiontree.archive.usage_query import (
    DbAnswers,
    SessionPage,
    UsageAnswers,
    UsageFilter,
    kept_groups,
    kept_name,
    kept_page,
)

log = logging.getLogger(__name__)

FIRST_LIMIT = 50
"""The first page of sessions the usage page asks (``pages.usage_data.PAGE_SIZE``)."""


def _made(conn: sqlite3.Connection, first: int) -> dict[str, Any]:
    """The page's totals and first page made from the store's rows as they are and kept with their
    generation (``DbAnswers``), then read back: nothing when the store is not of this schema, holds
    no session (a fresh cache), or a writer changed its rows meanwhile (not kept then)."""
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
        return {}
    if conn.execute("SELECT 1 FROM sessions LIMIT 1").fetchone() is None:
        return {}
    answers = DbAnswers(lambda: conn, LATER.format(source=ALL, where="1"), threading.Lock())
    answers.groups()
    answers.sessions(UsageFilter(), 0, first)
    return read_kept(conn, None)


class KeptAnswers:
    """The answers a store kept for its rows as they are (``usage_kept.KEPT_SCHEMA``), read with no
    check of the file: a restarted server's usage page before its first listing. What was not kept
    is asked of ``rest`` (the store opened whole)."""

    def __init__(self, kept: dict[str, Any], rest: Callable[[], UsageAnswers]) -> None:
        self._kept = kept
        self._rest = rest
        self._groups = kept_groups(kept["groups"])

    @classmethod
    def read(
        cls, path: Path, rest: Callable[[], UsageAnswers], first: int = FIRST_LIMIT
    ) -> KeptAnswers | None:
        """The answers kept in the store at ``path``, made and kept first when its rows changed since
        (None: no store, nothing stored, or an SQLite error: a damaged file is the whole open's to
        refuse and make again, never answered from here)."""
        if not path.is_file():
            return None
        try:
            conn = sqlite3.connect(path, timeout=5, isolation_level=None)
            try:
                kept = read_kept(conn, None)
                if "groups" not in kept or kept_name(UsageFilter(), 0, first) not in kept:
                    kept = _made(conn, first)
            finally:
                conn.close()
            return cls(kept, rest) if "groups" in kept else None
        except (sqlite3.Error, ValueError, TypeError) as exc:  # damaged: the whole open says so
            log.debug("no usage answers kept in %s: %s", path, exc)
            return None

    def groups(self) -> list[UsageRecord]:
        return self._groups

    def sessions(self, where: UsageFilter, offset: int, limit: int) -> SessionPage:
        kept = self._kept.get(kept_name(where, offset, limit) or "")
        return self._rest().sessions(where, offset, limit) if kept is None else kept_page(kept, offset)
