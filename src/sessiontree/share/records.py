"""The record of shares: ``<agent dir>/shares.jsonl``, one JSON object a line (0600: it holds the
keys of encrypted shares, so that ``shares`` can print their whole links again)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sessiontree.errors import ShareError
from sessiontree.store.locks import lock
from sessiontree.store.persist import rewrite_atomically
from sessiontree.store.storage import FileSessionStorage

SHARES_FILE = "shares.jsonl"
LOCK_FILE = ".shares.lock"


def now_iso() -> str:
    """Return the current UTC time as ``2026-02-16T10:21:00Z``."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class ShareRecord:
    """One published share."""

    time: str
    session: str
    url: str | None
    backend: str  # "gh", "api" or "handler:<file name>"
    gist_id: str | None = None
    gist_url: str | None = None
    deleted: str | None = None  # when ``unshare`` removed it
    key: str | None = None  # an encrypted share's key: its link is ``url#key``
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ShareRecord:
        """Build a record from one parsed line, keeping unknown keys in ``extra``."""

        def text(key: str) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) else None

        known = {f.name for f in fields(cls)}
        return cls(
            time=text("time") or "",
            session=text("session") or "",
            url=text("url"),
            backend=text("backend") or "unknown",
            gist_id=text("gist_id"),
            gist_url=text("gist_url"),
            deleted=text("deleted"),
            key=text("key"),
            extra={k: v for k, v in data.items() if k not in known},
        )

    @property
    def link(self) -> str | None:
        """The link that opens the shared page: an encrypted share's with its key after ``#``."""
        return f"{self.url}#{self.key}" if self.url and self.key else self.url

    def to_json(self) -> str:
        """Return the record as one JSON line (no newline; no ``key`` for a plain page's)."""
        data = asdict(self)
        extra = data.pop("extra")
        if data["key"] is None:
            del data["key"]
        return json.dumps({**extra, **data}, ensure_ascii=False, separators=(",", ":"))


def shares_path(agent_dir: Path) -> Path:
    """Return where the record of shares lives."""
    return agent_dir / SHARES_FILE


@contextmanager
def _locked(agent_dir: Path) -> Iterator[None]:
    """Hold the record's lock so an append never lands between a rewrite's read and rename."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(agent_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        lock(fd)
        yield
    finally:
        os.close(fd)


def append_record(agent_dir: Path, record: ShareRecord) -> None:
    """Append one record as a single write, then fsync, so a crash never leaves half a line."""
    line = (record.to_json() + "\n").encode("utf-8")
    with _locked(agent_dir):
        fd = os.open(shares_path(agent_dir), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.fchmod(fd, 0o600)  # a file made looser by hand: it is about to hold a key
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def update_records(agent_dir: Path, change: Callable[[list[ShareRecord]], None]) -> list[ShareRecord]:
    """Read the records, let ``change`` edit them in place, and rewrite the file atomically."""
    with _locked(agent_dir):
        records = read_records(agent_dir)
        change(records)
        write_records(agent_dir, records)
    return records


def read_records(agent_dir: Path) -> list[ShareRecord]:
    """Return every record, oldest first; lines that are not records are skipped."""
    path = shares_path(agent_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ShareError(f"Cannot read {path}: {exc.strerror}") from exc
    records = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("time"), str):
            records.append(ShareRecord.from_json(data))
    return records


def write_records(agent_dir: Path, records: list[ShareRecord]) -> None:
    """Replace the record file atomically (temp file, fsync, rename, fsync the folder)."""
    rewrite_atomically(FileSessionStorage(), shares_path(agent_dir), [r.to_json() for r in records])


def find_record(records: list[ShareRecord], ref: str, gist_id: str | None = None) -> ShareRecord:
    """Return the latest record whose gist id, gist URL or share URL is ``ref`` (or ``gist_id``);
    an encrypted share's link is found with its key or without it."""
    ref = ref.strip().split("#")[0].rstrip("/")
    for record in reversed(records):
        candidates = {c.rstrip("/") for c in (record.gist_id, record.url, record.gist_url) if c}
        if ref in candidates or (gist_id is not None and gist_id == record.gist_id):
            return record
    raise ShareError(f"No share recorded for {ref}: run 'sessiontree shares' to list them")
