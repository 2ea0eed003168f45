"""One archive in a store, opened with its key: sealed objects in, sealed manifests in and out.

Object and machine names are HMACs under the archive's name key; every object's logical name is
its associated data, so an object copied over another is refused like a damaged one.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from sessiontree.archive.keep.envelope import Keys, dump_json, new_config, open_config, seal, unseal
from sessiontree.archive.keep.manifest import Manifest
from sessiontree.archive.keep.stores import Store
from sessiontree.errors import KeepDamaged, KeepError

CONFIG = "config"
MANIFESTS_KEPT = 2
"""Manifests left per machine after a run: the newest, and the one before (a reader that listed it)."""


class Repository:
    """An archive opened with its keys."""

    def __init__(self, store: Store, keys: Keys, *, redacted: bool = False) -> None:
        self.store = store
        self.keys = keys
        self.redacted = redacted
        """The archive holds redacted copies (``keep --redact``, a team bucket), never whole files."""

    @classmethod
    def open(
        cls,
        store: Store,
        key_file: Path,
        passphrase: Callable[[bool], str | None],
        *,
        create: bool,
        redacted: bool = False,
    ) -> Repository:
        """Open the archive in ``store`` (making its config first when ``create`` and it has none).

        ``passphrase(new)`` gives the passphrase to use (None: the key file)."""
        raw = store.get(CONFIG)
        if raw is None:
            if not create:
                raise KeepError(f"No archive in {store.where} yet: run 'sessiontree keep' first")
            config, keys = new_config(key_file, passphrase(True), store.where)
            config["redacted"] = redacted
            store.put(CONFIG, dump_json(config))
            return cls(store, keys, redacted=redacted)
        try:
            config = json.loads(raw)
        except ValueError:
            raise KeepDamaged(f"Refused the archive's config in {store.where}: it is damaged") from None
        if not isinstance(config, dict) or config.get("version") != 1:
            raise KeepError(
                f"The archive in {store.where} is of another version: a newer sessiontree made it"
            )
        needs_passphrase = config.get("kdf") == "scrypt"
        keys = open_config(config, key_file, passphrase(False) if needs_passphrase else None)
        return cls(store, keys, redacted=config.get("redacted") is True)

    # -- names ---------------------------------------------------------------------------------

    def machine_id(self, machine: str) -> str:
        return self.keys.object_name("machine\0" + machine)[:32]

    def object_path(self, machine: str, logical: str) -> str:
        return f"o/{self.machine_id(machine)}/{self.keys.object_name(machine + chr(0) + logical)}"

    # -- objects -------------------------------------------------------------------------------

    def put(self, name: str, plain: bytes) -> None:
        self.store.put(name, seal(self.keys, name, plain))

    def get(self, name: str) -> bytes:
        sealed = self.store.get(name)
        if sealed is None:
            short = name.rsplit("/", 1)[-1][:16]
            raise KeepDamaged(f"Refused a kept file: its object {short} is missing from {self.store.where}")
        return unseal(self.keys, name, sealed)

    # -- manifests -----------------------------------------------------------------------------

    def manifest_names(self) -> dict[str, list[str]]:
        """Each machine's id -> its manifests' names, oldest first."""
        found: dict[str, list[str]] = {}
        for name in self.store.list("i/"):
            parts = name.split("/")
            if len(parts) == 3:
                found.setdefault(parts[1], []).append(name)
        return {machine: sorted(names) for machine, names in found.items()}

    def read_manifest(self, names: list[str]) -> Manifest | None:
        """The newest manifest of one machine that is there (a name listed and deleted since is skipped)."""
        for name in reversed(names):
            sealed = self.store.get(name)
            if sealed is None:
                continue
            data = json.loads(unseal(self.keys, name, sealed))
            return Manifest.from_json(data)
        return None

    def write_manifest(self, manifest: Manifest, before: list[str]) -> str:
        """Put a new manifest (after every object it names), then drop all but the newest few."""
        manifest.written = max(int(time.time() * 1000), manifest.written + 1)
        name = f"i/{self.machine_id(manifest.machine)}/{manifest.written:020d}"
        self.put(name, dump_json(manifest.to_json()))
        for old in sorted({*before} - {name})[: max(0, len(before) + 1 - MANIFESTS_KEPT)]:
            self.store.delete(old)
        return name
