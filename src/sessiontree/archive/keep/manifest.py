"""A machine's manifest: every file it keeps, as the objects that hold its bytes; and where the
archive's parts live on this machine (the data dir) and in the store (names that reveal nothing).

A store holds ``config`` (plain: the KDF and a key check), ``o/<machine>/<object>`` (sealed
pieces of files, immutable) and ``i/<machine>/<time>`` (sealed manifests, the newest wins), with
``<machine>`` and ``<object>`` HMACs of the real names. A manifest is written after every object
it names, so a killed run leaves at most objects nothing refers to.
"""

from __future__ import annotations

import json
import os
import re
import socket
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sessiontree.errors import KeepError
from sessiontree.store.paths import keep_data_dir, keep_key_file

MACHINE_ENV = "SESSIONTREE_MACHINE"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def machine_name() -> str:
    """This machine's name in the archive: ``$SESSIONTREE_MACHINE``, else the host name."""
    name = os.environ.get(MACHINE_ENV) or socket.gethostname().split(".")[0] or "machine"
    safe = _UNSAFE.sub("-", name).strip(".-")
    if not safe:
        raise KeepError(f"Not a machine name: {name!r}; set {MACHINE_ENV} to letters, digits, . _ -")
    return safe[:64]


@dataclass(frozen=True, slots=True)
class Places:
    """Where keep's own files live on this machine (under the user data dir)."""

    base: Path

    @classmethod
    def default(cls) -> Places:
        return cls(keep_data_dir())

    @property
    def archive(self) -> Path:
        """The default store: a folder of objects."""
        return self.base / "archive"

    @property
    def kept(self) -> Path:
        """The shown copies, one folder per machine: plain files the collection lists as roots."""
        return self.base / "kept"

    @property
    def key_file(self) -> Path:
        return keep_key_file()

    @property
    def lock_file(self) -> Path:
        return self.base / "keep.lock"

    @property
    def settings(self) -> Path:
        return self.base / "keep.json"

    def state_file(self, store_where: str) -> Path:
        import hashlib

        digest = hashlib.sha256(store_where.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        return self.base / "state" / f"{digest}.json"

    def load_settings(self) -> dict[str, Any]:
        try:
            value = json.loads(self.settings.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}


Part = list[Any]
"""[object name, offset, length] of a piece of a file."""


@dataclass(slots=True)
class Version:
    """One version of a file: its stat and the pieces that hold it."""

    size: int
    mtime_ns: int
    parts: list[Part] = field(default_factory=list)
    head: str = ""
    """SHA-256 of its first bytes (up to ``EDGE``), to tell an append from a rewrite."""
    tail: str = ""
    """SHA-256 of the ``EDGE`` bytes before its end."""
    length: int = -1
    """The bytes kept when they are not the file's (a redacted copy); -1: ``size``."""

    @property
    def kept_size(self) -> int:
        return self.size if self.length < 0 else self.length


@dataclass(slots=True)
class FileRecord:
    """A kept file: its newest version, its earlier ones (rewritten in place), and when it was
    last seen and first found missing (ISO days, this machine's)."""

    now: Version
    old: list[Version] = field(default_factory=list)
    seen: str = ""
    gone: str | None = None


@dataclass(slots=True)
class RootRecord:
    origin: str
    """The folder on its machine (absolute)."""
    agent: str
    name: str
    """The folder's own name, which the shown copy keeps (``projects``, ``sessions``)."""


@dataclass(slots=True)
class Manifest:
    machine: str
    written: int = 0
    roots: dict[str, RootRecord] = field(default_factory=dict)
    files: dict[str, FileRecord] = field(default_factory=dict)
    """``<slot>/<path under the slot>`` -> record."""

    def to_json(self) -> dict[str, Any]:
        return {"version": 1, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        if data.get("version") != 1:
            raise KeepError(f"A manifest of version {data.get('version')!r}: a newer sessiontree wrote it")
        files = {
            key: FileRecord(
                now=Version(**value["now"]),
                old=[Version(**v) for v in value.get("old", [])],
                seen=value.get("seen", ""),
                gone=value.get("gone"),
            )
            for key, value in data["files"].items()
        }
        roots = {slot: RootRecord(**value) for slot, value in data["roots"].items()}
        return cls(str(data["machine"]), int(data.get("written", 0)), roots, files)
