"""The shown copies: plain files under ``<data dir>/kept/<machine>/<slot>/<root name>/`` that the
collection lists as more roots (``kept_roots``), each machine's with an ``index.json`` naming its
roots and the day each of its files disappeared.

This machine's copy holds only the files whose own file is gone (a live file and its kept copy
are one session: the live one is listed, the copy removed when it comes back); another machine's
copy holds all its files. Each copy is written whole and atomically with its own file's mtime,
so a listing sorts it by the session's times, never by when it was brought here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from sessiontree.archive.keep.manifest import Manifest, Places, Version, machine_name
from sessiontree.archive.keep.repository import Repository
from sessiontree.archive.keep.roots import INDEX, target
from sessiontree.errors import KeepDamaged
from sessiontree.store.atomic import make_private_dir, temp_path_for, write_atomic


def _matches(path: Path, version: Version) -> bool:
    try:
        st = path.stat()
    except OSError:
        return False
    return st.st_size == version.kept_size and st.st_mtime_ns == version.mtime_ns


def _present(repo: Repository, machine: str, key: str, version: Version, path: Path) -> int:
    """How many bytes of the copy at ``path`` are the version's first pieces (a file that grew since
    it was brought): each piece checked by its name, an HMAC of its digest and place; else 0."""
    try:
        size = path.stat().st_size
    except OSError:
        return 0
    ends = [offset + length for _name, offset, length in version.parts]
    if not 0 < size < version.kept_size or size not in ends:
        return 0
    with open(path, "rb") as fh:
        for name, offset, length in version.parts[: ends.index(size) + 1]:
            digest = hashlib.sha256(fh.read(length)).hexdigest()
            if repo.object_path(machine, f"{key}\0{offset}\0{digest}") != name:
                return 0
    return size


def _restore(repo: Repository, machine: str, key: str, version: Version, path: Path) -> None:
    """Write one kept version to ``path`` (whole, atomically) with its own mtime; a copy that only
    lacks the version's last pieces gets just those."""
    make_private_dir(path.parent)
    start = _present(repo, machine, key, version, path)
    tmp = temp_path_for(path)
    try:
        if start:
            shutil.copyfile(path, tmp)
        with open(tmp, "ab" if start else "wb") as fh:
            for name, offset, _length in version.parts:
                if offset >= start:
                    fh.write(repo.get(name))
            # No fsync: a copy is made again from the archive whenever its size or mtime is not
            # the manifest's (a power cut's empty or older file included); the archive is fsynced.
        if version.mtime_ns >= 0:
            os.utime(tmp, ns=(version.mtime_ns, version.mtime_ns))
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _bring(repo: Repository, machine: str, jobs: list[tuple[str, Version, Path]]) -> tuple[int, list[str]]:
    """Restore each (key, version, path); a damaged one is refused, said in one line, never written."""
    problems: list[str] = []

    def one(job: tuple[str, Version, Path]) -> bool:
        key, version, path = job
        try:
            _restore(repo, machine, key, version, path)
        except KeepDamaged as exc:
            problems.append(f"{exc} (file {key.split('/', 1)[-1]})")
            return False
        return True

    with ThreadPoolExecutor(8, thread_name_prefix="keep-pull") as pool:
        done = sum(pool.map(one, jobs))
    return done, problems


def _write_index(folder: Path, manifest: Manifest, listed: set[str]) -> None:
    data = {
        "machine": manifest.machine,
        "roots": {
            slot: {"origin": r.origin, "agent": r.agent, "name": r.name} for slot, r in manifest.roots.items()
        },
        "gone": {key: r.gone for key, r in manifest.files.items() if r.gone and key in listed},
    }
    make_private_dir(folder)
    old = None
    with contextlib.suppress(OSError):
        old = (folder / INDEX).read_text(encoding="utf-8")
    text = json.dumps(data, sort_keys=True)
    if old != text:
        write_atomic(folder / INDEX, text, readable=False)


def refresh_own(places: Places, repo: Repository, manifest: Manifest) -> list[str]:
    """This machine's copy: the gone files restored, the ones back again removed (only the files
    the copy's index lists are looked at: a live file costs nothing here)."""
    folder = places.kept / manifest.machine
    try:
        before = set(json.loads((folder / INDEX).read_text(encoding="utf-8"))["gone"])
    except (OSError, ValueError, KeyError, TypeError):
        before = set()
    jobs: list[tuple[str, Version, Path]] = []
    listed: set[str] = set()
    for key in before:
        record = manifest.files.get(key)
        path = target(folder, key)
        if path is not None and (record is None or record.gone is None):
            path.unlink(missing_ok=True)  # live again: the live file is the session
    for key, record in manifest.files.items():
        if record.gone is None or (path := target(folder, key)) is None:
            continue
        listed.add(key)
        if not _matches(path, record.now):
            jobs.append((key, record.now, path))
    if not jobs and not listed and not before:
        return []
    _count, problems = _bring(repo, manifest.machine, jobs)
    _write_index(folder, manifest, listed)
    return problems


def refresh_machine(places: Places, repo: Repository, manifest: Manifest) -> tuple[int, list[str]]:
    """Another machine's copy: every file it keeps, brought here where ours differs."""
    folder = places.kept / manifest.machine
    if manifest.machine == machine_name() or "/" in manifest.machine or manifest.machine in ("", ".", ".."):
        return 0, []
    jobs: list[tuple[str, Version, Path]] = []
    for key, record in manifest.files.items():
        path = target(folder, key)
        if path is not None and not _matches(path, record.now):
            jobs.append((key, record.now, path))
    count, problems = _bring(repo, manifest.machine, jobs)
    _write_index(folder, manifest, set(manifest.files))
    return count, problems
