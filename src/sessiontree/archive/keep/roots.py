"""The shown copies as roots of the collection: each machine's ``index.json`` read (no key, no
store: a listing never waits on the network), the day each file disappeared, the machine it
came from. Light on purpose: the catalog imports it for every folder it lists."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sessiontree.store.paths import keep_data_dir

INDEX = "index.json"


def kept_label(machine: str | None, gone: str | None) -> str:
    """What a listing says of a kept session: "gone 2026-12-06" (this machine's, deleted by its
    agent), "from laptop" (another machine's), both; "" for a live file of this machine."""
    if not machine:
        return ""
    from sessiontree.archive.keep.manifest import machine_name

    said = f"gone {gone}" if gone else ""
    return said if machine == machine_name() else f"from {machine}" + (f", {said}" if said else "")


def target(folder: Path, key: str) -> Path | None:
    """Where a manifest key's copy goes under a machine's folder; None for a key that would leave it."""
    parts = PurePosixPath(key).parts
    if len(parts) < 3 or any(p in ("", ".", "..") or "\0" in p for p in parts) or key.startswith("/"):
        return None
    return folder.joinpath(*parts)


@dataclass(frozen=True, slots=True)
class KeptRoot:
    """A shown copy's root folder, the machine it came from and its folder there."""

    path: Path
    machine: str
    origin: str
    agent: str
    gone: dict[str, str]
    """Key under this root -> the day its file disappeared."""


def kept_roots(base: Path | None = None) -> list[KeptRoot]:
    """Every shown copy's root that holds files, this machine's and the others' (no key needed)."""
    kept = (base or keep_data_dir()) / "kept"
    found: list[KeptRoot] = []
    try:
        machines = sorted(p for p in kept.iterdir() if p.is_dir())
    except OSError:
        return []
    for folder in machines:
        try:
            data = json.loads((folder / INDEX).read_text(encoding="utf-8"))
            roots = data["roots"]
            gone = data.get("gone", {})
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for slot, root in sorted(roots.items()):
            path = folder / slot / str(root.get("name", ""))
            if target(folder, f"{slot}/{root.get('name', '')}/x") is None or not path.is_dir():
                continue
            prefix = f"{slot}/{root['name']}/"
            found.append(
                KeptRoot(
                    path,
                    str(data.get("machine", folder.name)),
                    str(root.get("origin", "")),
                    str(root.get("agent", "pi")),
                    {k[len(prefix) :]: str(v) for k, v in gone.items() if k.startswith(prefix)},
                )
            )
    return found


def kept_root_of(root: Path) -> KeptRoot | None:
    """The shown copy a folder is, or None for any other folder (the collection's other roots)."""
    base, path = keep_data_dir().absolute(), Path(root).absolute()
    if not str(path).startswith(str(base / "kept") + "/"):
        return None  # one string test for every other folder
    return next((k for k in kept_roots(base) if k.path == path), None)
