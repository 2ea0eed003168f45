"""Reading one changed session file into the search index: whole reads, appended lines, forgetting.

``archive/index.py``'s stat pass calls it only for a file that changed or went.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessiontree.archive.collection import path_key
from sessiontree.archive.extract import BODY_TIER, Row, parse_time, rows_of_entry, title_row
from sessiontree.archive.follow_keys import Keys, Reload, forget_keys
from sessiontree.archive.index_db import (
    BATCH_ROWS,
    CHUNK_CHARS,
    FTS_TABLES,
    UpdateReport,
    pack_texts,
    read_texts,
)
from sessiontree.archive.usage_store import add_usage, forget_usage
from sessiontree.errors import SessiontreeError
from sessiontree.store.entries import header_version, is_title_slot, is_valid_header
from sessiontree.store.jsonl import decode_line, decode_text
from sessiontree.store.surrogates import replace_surrogates
from sessiontree.store.tail import TailRead, TailReader, TailState
from sessiontree.store.titles import cut_title

if TYPE_CHECKING:
    from sessiontree.archive.usage import Usage

BATCH_CHARS = 8_000_000
"""Text characters gathered before they are written (a row holds up to 1 M)."""


@dataclass
class _FileState:
    id: int
    session_id: str | None
    version: int
    entries: int
    tail: TailState | None
    agent: str | None = None
    """Another agent's format (Claude Code, Codex): its lines go through that agent's follower."""
    follow: dict[str, Any] | None = None
    """The follower's state after the last lines read."""


@contextlib.contextmanager
def _write(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _load_state(conn: sqlite3.Connection, path: Path) -> _FileState | None:
    row = conn.execute(
        "SELECT id, session_id, version, entries, tail, agent, follow FROM files WHERE path = ?",
        (path_key(path),),
    ).fetchone()
    if row is None:
        return None
    tail = TailState.from_json(json.loads(row[4])) if row[4] else None
    follow = json.loads(row[6]) if row[6] else None
    return _FileState(row[0], row[1], row[2], row[3], tail, row[5], follow)


def update_file(conn: sqlite3.Connection, path: Path, report: UpdateReport) -> None:
    """Index what changed in one file, in one transaction (state re-read under the write lock)."""
    # The readers load only when a file changed (a query over an index in step imports none).
    from sessiontree.archive.follow import FOLLOWERS, has_subagents, parse_lines
    from sessiontree.readers import foreign_agent

    with _write(conn):
        state = _load_state(conn, path)
        if state is None:
            conn.execute("INSERT INTO files (path) VALUES (?)", (path_key(path),))
            state = _FileState(conn.execute("SELECT last_insert_rowid()").fetchone()[0], None, 3, 0, None)
        reader = TailReader(path, state.tail)
        try:
            # The file as it is before the read is what is recorded: a write during the read (or
            # the indexing after it) then leaves it unlike the record, and it is read again next
            # time. A stat after would name bytes never read, skipped for good by the stat pass.
            before: os.stat_result | None = os.stat(path)
        except OSError:
            before = None  # gone: the read says so
        try:
            read = reader.poll()
            if read.kind == "missing":
                forget_file(conn, state.id)
                conn.execute("DELETE FROM files WHERE id = ?", (state.id,))
                report.removed += 1
                return
            if read.kind == "append" and not read.lines:
                pass
            elif read.kind == "append" and state.agent is None:
                report.appended += 1
                report.rows += _index_values(conn, state, map(_parse, read.lines))
            elif (
                read.kind == "append"
                and state.follow is not None
                and not has_subagents(path, state.agent)
                and _follow_appended(conn, state, path, read, report)
            ):
                pass
            else:
                forget_file(conn, state.id)
                state = _FileState(state.id, None, 3, 0, None, foreign_agent(path))
                report.whole += 1
                if state.agent is None:
                    report.rows += _index_values(conn, state, map(_parse, reader.read_all()))
                elif has_subagents(path, state.agent) or state.agent not in FOLLOWERS:
                    # no follower (Gemini CLI: records rewritten under their id): read whole
                    report.rows += _index_values(conn, state, _read_whole(reader, state.agent))
                else:
                    values = parse_lines(list(reader.read_all()), 1)
                    report.rows += _follow(conn, state, path, values, whole=True)
        except OSError:
            return  # unreadable now (permissions, vanished mid-read): keep what was indexed
        st = before if before is not None else os.stat(path)
        conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ?, ino = ?, checked_ns = ?, tail = ?, entries = ?, "
            "agent = ? WHERE id = ?",
            (
                st.st_size,
                st.st_mtime_ns,
                st.st_ino,
                time.time_ns(),
                json.dumps(reader.state.to_json()) if reader.state else None,
                state.entries,
                state.agent,
                state.id,
            ),
        )


def _parse(line: bytes) -> Any:
    try:
        return decode_line(decode_text(line))
    except ValueError:
        return None


def _read_whole(reader: TailReader, agent: str) -> Iterator[Any]:
    """The header and entries of another agent's session read whole (with its subagents' files)."""
    for _line in reader.read_all():
        pass  # only to move the tail state to the end
    from sessiontree.readers import load_any

    try:
        session = load_any(reader.path, agent)
    except SessiontreeError:
        return
    yield session.header
    yield from session.entries


def _follow_appended(
    conn: sqlite3.Connection, state: _FileState, path: Path, read: TailRead, report: UpdateReport
) -> bool:
    """Index another agent's appended lines; False when they need the file read whole (nothing done)."""
    if not read.lines:
        return True
    conn.execute("SAVEPOINT follow")
    try:
        from sessiontree.archive.follow import parse_lines

        rows = _follow(conn, state, path, parse_lines(read.lines, read.first_lineno), whole=False)
    except Reload:
        conn.execute("ROLLBACK TO follow")
        conn.execute("RELEASE follow")
        return False
    conn.execute("RELEASE follow")
    report.appended += 1
    report.rows += rows
    return True


def _follow(
    conn: sqlite3.Connection, state: _FileState, path: Path, values: list[tuple[int, Any]], *, whole: bool
) -> int:
    """Index another agent's lines through its follower (entries they change made again); return the rows."""
    assert state.agent is not None
    saved = state.follow if not whole and state.follow is not None else {}
    keys = Keys(conn, state.id)
    from sessiontree.archive.follow import follower_for

    follower = follower_for(state.agent, path, keys, saved.get("reader"))
    if follower is None:
        return 0
    new = follower.feed(values, whole)
    changed = follower.changed
    if changed:
        ids = [e["id"] for e in changed]
        for entry_id in ids:
            _forget_rows(conn, "file_id = ? AND entry_id = ? AND tier = ?", (state.id, entry_id, BODY_TIER))
        forget_usage(conn, state.id, ids)
    header = follower.session_header()
    title = header.get("title") if isinstance(header.get("title"), str) else None
    conn.execute(
        "UPDATE files SET session_id = ?, cwd = ?, started = ?, version = 3 WHERE id = ?",
        (
            replace_surrogates(str(header["id"])),
            replace_surrogates(header["cwd"]) if isinstance(header.get("cwd"), str) else None,
            parse_time(header.get("timestamp")),
            state.id,
        ),
    )
    rows = 0
    # Every title the file gave (Claude Code's summaries, then a custom title) is searchable;
    # the last one names the session.
    titles = [t for t in header.get("titles", [title] if title else []) if isinstance(t, str)]
    if title != saved.get("title") or titles != saved.get("titles", []):
        _forget_rows(conn, "file_id = ? AND role = 'title'", (state.id,))
        conn.execute(
            "UPDATE files SET title = ? WHERE id = ?",
            (replace_surrogates(title) if title else None, state.id),
        )
        found = [title_row({**header, "title": text}) for text in titles]
        rows += _insert_rows(conn, state.id, [row for row in found if row is not None]) if found else 0
    state.session_id = str(header["id"])
    rows += _index_values(conn, state, [*changed, *new])
    keys.save()
    state.follow = {"reader": follower.save(), "title": title, "titles": titles}
    conn.execute(
        "UPDATE files SET follow = ? WHERE id = ?", (json.dumps(state.follow, default=str), state.id)
    )
    return rows


def _index_values(conn: sqlite3.Connection, state: _FileState, values: Iterable[Any]) -> int:
    """Index parsed lines of one file (the header when it comes first); return the rows added."""
    # Imported here (usage with the prices, migration's ids): a search on a warm index reads none.
    from sessiontree.archive.usage import usage_of_entry
    from sessiontree.store.kinds import typed_prompt
    from sessiontree.store.migrate import stable_entry_id

    batch: list[Row] = []
    spent: list[tuple[str | None, Usage]] = []
    added = chars = 0
    prompt = ""  # the first typed prompt: the title when the session names none
    for value in values:
        if not isinstance(value, dict):
            continue
        if state.session_id is None:
            if state.entries == 0 and is_title_slot(value):
                continue  # oh-my-pi's title slot before the header: the header comes next
            if state.entries == 0 and is_valid_header(value):
                _take_header(conn, state, value)
                row = title_row(value)
                if row is not None:
                    batch.append(row)
            state.entries = -1 if state.session_id is None else 0
            continue
        entry_id = value.get("id")
        if state.version < 2:
            entry_id = stable_entry_id(state.session_id, state.entries)
        entry_id = entry_id if isinstance(entry_id, str) else None
        state.entries += 1
        try:
            rows = list(rows_of_entry(value, entry_id))
        except RecursionError:
            continue
        batch.extend(rows)
        chars += sum(len(r.text) for r in rows)
        prompt = prompt or typed_prompt(value)
        usage = usage_of_entry(value)
        if usage is not None:
            spent.append((entry_id, usage))
        if len(batch) >= BATCH_ROWS or chars >= BATCH_CHARS:
            added += _insert_rows(conn, state.id, batch)
            batch, chars = [], 0
    if batch:
        added += _insert_rows(conn, state.id, batch)
    if prompt:
        conn.execute(
            "UPDATE files SET title = ? WHERE id = ? AND title IS NULL", (cut_title(prompt, 200), state.id)
        )
    add_usage(conn, state.id, spent)
    return added


def _take_header(conn: sqlite3.Connection, state: _FileState, header: dict[str, Any]) -> None:
    state.session_id = str(header["id"])
    state.version = header_version(header)
    title, cwd = header.get("title"), header.get("cwd")
    conn.execute(
        "UPDATE files SET session_id = ?, title = ?, cwd = ?, started = ?, version = ? WHERE id = ?",
        (
            state.session_id,
            replace_surrogates(title) if isinstance(title, str) else None,
            replace_surrogates(cwd) if isinstance(cwd, str) else None,
            parse_time(header.get("timestamp")),
            state.version,
            state.id,
        ),
    )


def _insert_rows(conn: sqlite3.Connection, file_id: int, rows: list[Row]) -> int:
    labels = [(file_id, r.entry_id) for r in rows if r.role == "label"]
    for key in labels:  # a new label on an entry replaces the old one
        _forget_rows(conn, "file_id = ? AND role = 'label' AND entry_id IS ?", key)
    next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM rows").fetchone()[0]
    for chunk in _chunks(rows):
        conn.execute(
            "INSERT INTO chunks (file_id, z) VALUES (?, ?)", (file_id, pack_texts([r.text for r in chunk]))
        )
        chunk_id = conn.execute("SELECT last_insert_rowid()").fetchone()[0]
        ids = range(next_id, next_id + len(chunk))
        next_id += len(chunk)
        conn.executemany(
            "INSERT INTO rows (id, file_id, entry_id, role, tier, ts, chunk, part) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (i, file_id, r.entry_id, r.role, r.tier, r.ts, chunk_id, part)
                for part, (i, r) in enumerate(zip(ids, chunk, strict=True))
            ],
        )
        for table, tier in FTS_TABLES.items():
            conn.executemany(
                f"INSERT INTO {table} (rowid, text) VALUES (?, ?)",
                [(i, r.text) for i, r in zip(ids, chunk, strict=True) if r.tier == tier],
            )
    return len(rows)


def _chunks(rows: list[Row]) -> Iterator[list[Row]]:
    chunk: list[Row] = []
    size = 0
    for row in rows:
        chunk.append(row)
        size += len(row.text)
        if size >= CHUNK_CHARS:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


def forget_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Remove every row of one file from the index."""
    _forget_rows(conn, "file_id = ?", (file_id,))
    conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))
    forget_usage(conn, file_id)
    forget_keys(conn, file_id)
    conn.execute(
        "UPDATE files SET session_id = NULL, title = NULL, entries = 0, tail = NULL, follow = NULL "
        "WHERE id = ?",
        (file_id,),
    )


def _forget_rows(conn: sqlite3.Connection, where: str, params: tuple[Any, ...]) -> None:
    """Remove some rows from the index (their chunk keeps the dead text until the file goes)."""
    ids = [r[0] for r in conn.execute(f"SELECT id FROM rows WHERE {where}", params)]
    for start in range(0, len(ids), BATCH_ROWS):
        chunk = ids[start : start + BATCH_ROWS]
        texts = read_texts(conn, chunk)
        marks = ",".join("?" * len(chunk))
        # A contentless FTS5 table forgets a row only when given the exact text it indexed.
        tiers = dict(conn.execute(f"SELECT id, tier FROM rows WHERE id IN ({marks})", chunk).fetchall())
        for table, tier in FTS_TABLES.items():
            conn.executemany(
                f"INSERT INTO {table} ({table}, rowid, text) VALUES ('delete', ?, ?)",
                [(i, text) for i, text in texts.items() if tiers.get(i) == tier],
            )
        conn.execute(f"DELETE FROM rows WHERE id IN ({marks})", chunk)


def remove_file(conn: sqlite3.Connection, file_id: int) -> None:
    """Forget a file that went, and its record."""
    with _write(conn):
        forget_file(conn, file_id)
        conn.execute("DELETE FROM files WHERE id = ?", (file_id,))
