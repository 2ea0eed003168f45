"""load_session: the read-only path from a JSONL file to a Session. It never writes."""

from __future__ import annotations

from pathlib import Path

from sessiontree.errors import InvalidSession, SessionNotFound
from sessiontree.store.blobs import BlobStore, resolve_blob_refs_in_entries
from sessiontree.store.entries import Entry, header_version, is_valid_header
from sessiontree.store.jsonl import BadLine, decode_text, parse_jsonl_lenient, paused_gc
from sessiontree.store.migrate import migrate_to_current
from sessiontree.store.paths import blob_dirs_for
from sessiontree.store.session import Session
from sessiontree.store.storage import FileSessionStorage, SessionStorage


def read_session_bytes(path: Path, storage: SessionStorage, *, strict: bool) -> bytes | None:
    """The file's bytes; None for a missing file (unless strict); one-line errors otherwise."""
    try:
        return storage.read_bytes_sync(path)
    except FileNotFoundError:
        if strict:
            raise SessionNotFound(f"File not found: {path}") from None
        return None
    except IsADirectoryError:
        raise InvalidSession(f"{path} is a directory, not a session file") from None
    except PermissionError:
        raise InvalidSession(f"Cannot read {path}: permission denied") from None
    except OSError as exc:
        raise InvalidSession(f"Cannot read {path}: {exc.strerror or exc}") from None


def parse_session_text(text: str, path: Path | None = None) -> Session:
    """Parse and migrate session text in memory (no blob rehydration)."""
    values, bad = parse_jsonl_lenient(text)
    if bad and bad[-1].lineno == text.count("\n") + 1:
        last = bad[-1]
        bad[-1] = BadLine(last.lineno, "incomplete last line (file still being written?)", last.text)
    if not values or not is_valid_header(values[0][1]):
        return Session(header={}, path=path, bad_lines=bad, version_found=0)
    header = values[0][1]
    entries: list[Entry] = []
    for lineno, value in values[1:]:
        if isinstance(value, dict):
            entries.append(value)
        else:
            bad.append(BadLine(lineno, "not a JSON object", str(value)[:120]))
    if bad:
        bad.sort(key=lambda b: b.lineno)
    version = header_version(header)
    migrations = migrate_to_current(header, entries)
    last_id = next((e["id"] for e in reversed(entries) if isinstance(e.get("id"), str)), None)
    return Session(
        header=header,
        entries=entries,
        path=path,
        leaf_id=last_id,
        version_found=version,
        migrations=migrations,
        bad_lines=bad,
    )


def load_session(
    path: str | Path,
    *,
    blobs_dir: Path | None = None,
    agent_dir: Path | None = None,
    storage: SessionStorage | None = None,
    strict: bool = False,
) -> Session:
    """Load a session file read-only: lenient parse, migrations in memory, blobs rehydrated.

    A missing file (unless ``strict``), an empty one, or one whose first line is not a valid
    header gives an empty session (``session.is_empty``). A directory or an unreadable file
    raises ``InvalidSession``.
    """
    path = Path(path)
    storage = storage or FileSessionStorage()
    data = read_session_bytes(path, storage, strict=strict)
    if data is None:
        return Session(header={}, path=path, version_found=0)
    with paused_gc():
        session = parse_session_text(decode_text(data), path)
        if not session.is_empty:
            dirs = [blobs_dir] if blobs_dir is not None else blob_dirs_for(path, agent_dir)
            session.missing_blobs = resolve_blob_refs_in_entries(
                session.entries, [BlobStore(d) for d in dirs]
            )
    return session
