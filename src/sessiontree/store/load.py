"""load_session: the read-only path from a JSONL file to a Session. It never writes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sessiontree.errors import SessionNotFound
from sessiontree.store.blobs import BlobStore, resolve_blob_refs_in_entries, unreadable_blobs
from sessiontree.store.entries import Entry, header_version, is_title_slot, is_valid_header
from sessiontree.store.jsonl import BadLine, decode_lines, parse_jsonl_lenient, parse_jsonl_lines, paused_gc
from sessiontree.store.migrate import migrate_to_current
from sessiontree.store.paths import blob_dirs_for
from sessiontree.store.repair import (
    header_repair,
    is_excerpt,
    reattach_orphans,
    split_repairs,
    synthesize_header,
)
from sessiontree.store.session import Session, Subagents, cannot_read, not_a_session_file
from sessiontree.store.storage import FileSessionStorage, SessionStorage
from sessiontree.store.subagents import subagent_files

T = TypeVar("T")


def _open_errors(path: Path, action: Callable[[], T], *, strict: bool) -> T | None:
    """Run a read of ``path``; None for a missing file (unless strict); one-line errors otherwise."""
    try:
        return action()
    except FileNotFoundError:
        if strict:
            raise SessionNotFound(f"File not found: {path}") from None
        return None
    except IsADirectoryError:
        raise not_a_session_file(path, "it is a directory") from None
    except OSError as exc:
        raise cannot_read(path, exc) from None


def read_session_bytes(path: Path, storage: SessionStorage, *, strict: bool) -> bytes | None:
    """The file's bytes; None for a missing file (unless strict); one-line errors otherwise."""
    return _open_errors(path, lambda: storage.read_bytes_sync(path), strict=strict)


def ensure_readable(path: Path, storage: SessionStorage) -> None:
    """Raise the one-line error for a missing, directory or unreadable file, reading nothing."""
    lines = _open_errors(path, lambda: storage.iter_lines_sync(path), strict=True)
    close = getattr(lines, "close", None)
    if close is not None:
        close()


def rehydrate_blobs(
    session: Session, path: Path, *, blobs_dir: Path | None = None, agent_dir: Path | None = None
) -> None:
    """Put the bytes of blob-referenced images back inline, recording the missing ones."""
    if session.is_empty:
        return
    dirs = [blobs_dir] if blobs_dir is not None else blob_dirs_for(path, agent_dir)
    stores = [BlobStore(d) for d in dirs]
    session.missing_blobs = resolve_blob_refs_in_entries(session.entries, stores)
    session.unreadable_blobs = unreadable_blobs(stores)


def session_from_values(
    values: list[tuple[int, Any]],
    bad: list[BadLine],
    path: Path | None = None,
    *,
    split: list[BadLine] | None = None,
    excerpts: bool = False,
) -> Session:
    """Check the header, keep the entries and migrate them in memory (no blob rehydration).

    An oh-my-pi title slot before the header is kept apart (``session.title_slot``). With
    ``excerpts`` (the read path), a file of entries without a header gets a synthesised one,
    and entries whose parent is not in the file are attached to the nearest earlier entry.
    """
    repairs = split_repairs(split or [])
    # Values that are not objects before the first one (junk a damaged file holds before its
    # header: "0{...}") are bad lines; the header after them is read.
    lead = next((k for k, (_, value) in enumerate(values) if isinstance(value, dict)), len(values))
    if lead:
        bad.extend(BadLine(lineno, "not a JSON object", str(value)[:120]) for lineno, value in values[:lead])
        values = values[lead:]
    slot: dict[str, Any] | None = None
    if len(values) > 1 and is_title_slot(values[0][1]) and is_valid_header(values[1][1]):
        slot, values = values[0][1], values[1:]
    if values and not is_valid_header(values[0][1]) and excerpts and is_excerpt(values):
        repairs.insert(0, header_repair(values))
        values = [(0, synthesize_header(values, path)), *values]
    if not values or not is_valid_header(values[0][1]):
        return Session(header={}, path=path, bad_lines=bad, version_found=0)
    header = values[0][1]
    entries: list[Entry] = []
    linenos: list[int] = []
    for lineno, value in values[1:]:
        if isinstance(value, dict):
            entries.append(value)
            linenos.append(lineno)
        else:
            bad.append(BadLine(lineno, "not a JSON object", str(value)[:120]))
    if bad:
        bad.sort(key=lambda b: b.lineno)
    version = header_version(header)
    migrations = migrate_to_current(header, entries)
    joints: dict[str, str] = {}
    if excerpts:
        reattached, joints = reattach_orphans(entries, linenos, bad)
        repairs = sorted(repairs + reattached, key=lambda r: r.lineno)
    last_id = next((e["id"] for e in reversed(entries) if isinstance(e.get("id"), str)), None)
    return Session(
        header=header,
        entries=entries,
        path=path,
        leaf_id=last_id,
        version_found=version,
        migrations=migrations,
        bad_lines=bad,
        repairs=repairs,
        joints=joints,
        title_slot=slot,
    )


def parse_session_text(text: str, path: Path | None = None, *, contain: bool = True) -> Session:
    """Parse and migrate session text in memory (no blob rehydration, no repairs of the tree).

    ``contain=False`` is the write path's reading: values stay as written (see ``parse_jsonl_lines``).
    """
    split: list[BadLine] = []
    values, bad = parse_jsonl_lenient(text, split, contain=contain)
    return session_from_values(values, bad, path, split=split)


def load_session(
    path: str | Path,
    *,
    blobs_dir: Path | None = None,
    agent_dir: Path | None = None,
    storage: SessionStorage | None = None,
    strict: bool = False,
) -> Session:
    """Load a session file read-only: lenient parse, migrations in memory, blobs rehydrated.

    A missing file (unless ``strict``), an empty one, or one whose first line is neither a
    valid header nor an entry gives an empty session (``session.is_empty``). Damage is repaired
    in memory and recorded in ``session.repairs`` (see ``store.repair``). A directory or an unreadable file
    raises ``InvalidSession``. The file is read line by line, so memory holds the parsed
    entries, never the whole text besides them.
    """
    path = Path(path)
    source = storage or FileSessionStorage()
    raw_lines = _open_errors(path, lambda: source.iter_lines_sync(path), strict=strict)
    if raw_lines is None:
        return Session(header={}, path=path, version_found=0)
    with paused_gc():
        split: list[BadLine] = []
        parsed = _open_errors(path, lambda: parse_jsonl_lines(decode_lines(raw_lines), split), strict=True)
        assert parsed is not None  # strict: a read error mid-file raises, it does not return None
        session = session_from_values(*parsed, path, split=split, excerpts=True)
        rehydrate_blobs(session, path, blobs_dir=blobs_dir, agent_dir=agent_dir)
    session.subagents = pi_subagents(path)
    return session


def pi_subagents(session_path: Path | None) -> Subagents:
    """The oh-my-pi subagents of a session file, listed and read (``load_session``) on first use."""

    def find() -> dict[str, Callable[[], Session]]:
        files = subagent_files(session_path)
        return {agent_id: functools.partial(load_session, path) for agent_id, path in files.items()}

    return Subagents(find)
