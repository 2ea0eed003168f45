"""A property per reader (issue 55): any field of a valid file of its format given a value of the
wrong type or range, or removed, and its bytes cut, flipped or made invalid UTF-8, and the reader,
the page, the text dump and the usage rows still come out: no exception, nothing written into the
input folder, and the untouched part of the file still shown.
"""

from __future__ import annotations

import html
import json
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.archive.session_usage import usage_rows_of
from sessiontree.errors import SessiontreeError
from sessiontree.exporter.options import ExportOptions
from sessiontree.exporter.text import format_session_as_text
from sessiontree.pages.export import export_to_file
from sessiontree.readers import load_any
from sessiontree.readers.agent_info import read_agent_info
from sessiontree.store.summary import summarize_session
from tests.readers.mutate import (
    FORMATS,
    READER_KEYS,
    Change,
    Damage,
    apply,
    changes,
    damages,
    get,
    hostile,
    mutate_database_row,
    table_cells,
)
from tests.readers.opencode_db import STORAGE, make_database

MARKER = "zqkeep this prompt"
SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI is deterministic, a failure reproduces
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _state(folder: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if not p.is_symlink()
    }


def _shows(path: Path, agent: str, out: Path) -> str:
    """Everything a user sees of a file: listing, page, dump, usage; the page's text."""
    read_agent_info(path)
    session = load_any(path, agent)
    summarize_session(session)
    usage_rows_of(session.entries)
    format_session_as_text(session, None, None).encode("utf-8")  # strict: no lone surrogate left
    if session.is_empty:
        return ""
    export_to_file(path, out, ExportOptions(compress=False, agent=agent))
    return out.read_bytes().decode("utf-8")  # strict


def _check(folder: Path, path: Path, agent: str, whole: bool) -> None:
    before = _state(folder)
    page = _shows(path, agent, folder.parent / "page.html")
    assert _state(folder) == before, "the input folder was written to"
    if whole:
        assert html.escape(MARKER) in page or MARKER in page, "the untouched prompt is not shown"


@pytest.mark.parametrize("name", sorted(FORMATS))
@SETTINGS
@given(found=changes, damage=damages, pretty=st.booleans())
def test_any_field_damaged_never_escapes_a_reader(
    name: str, found: list[Change], damage: Damage | None, pretty: bool
) -> None:
    fmt = FORMATS[name]
    with tempfile.TemporaryDirectory(prefix="st-prop-") as tmp:
        folder = Path(tmp) / "in"
        content = fmt.make("a", MARKER)
        touched: list[tuple[Any, ...]] = []
        if isinstance(content, str):
            lines = content.split("\n")
            for change in found:  # a text history: a line of junk put in or one taken out
                at = change.pick % len(lines)
                if at and lines[at] and MARKER not in lines[at] and "aider chat started" not in lines[at]:
                    lines[at] = str(change.value)[:80] if not change.remove else ""
            content = "\n".join(lines)
        else:
            content, touched = apply(content, found, fmt.record)
        path = fmt.write(folder, "a", content, damage)
        _check(folder, path, fmt.agent, whole=damage is None and fmt.keeps_identity(touched))


def _storage_folder(root: Path) -> Path:
    shutil.copytree(STORAGE, root)
    (session,) = (root / "session").rglob("ses_*.json")
    return session


@SETTINGS
@given(found=changes, which=st.integers(0, 10**6), damage=damages)
def test_any_file_of_an_opencode_storage_session_damaged(
    found: list[Change], which: int, damage: Damage | None
) -> None:
    import json

    with tempfile.TemporaryDirectory(prefix="st-prop-") as tmp:
        root = Path(tmp) / "storage"
        session = _storage_folder(root)
        files = sorted(p for p in root.rglob("*.json") if p != session)
        target = [session, *files][which % (len(files) + 1)]
        value = json.loads(target.read_text(encoding="utf-8"))
        data = json.dumps(apply(value, found, None)[0], indent=2, allow_nan=True).encode("ascii")
        from tests.readers.mutate import damaged

        target.write_bytes(damaged(data, damage))
        _check(root, session, "opencode", whole=False)


def _database(folder: Path, agent: str) -> Path:
    """A good database of ``agent`` in ``folder``, all of it in its one file (no -wal, no -shm)."""
    folder.mkdir()
    if agent == "opencode":
        db = folder / "opencode.db"
        make_database(db, wal=False)
        return db
    from tests.readers.test_crush import make_db
    from tests.readers.test_cursor import make_store
    from tests.readers.test_cursor_ide import make_state
    from tests.readers.test_goose_db import make_db as make_goose_db
    from tests.readers.test_zed import make_db as make_zed_db

    makers: dict[str, Callable[[Path], Path]] = {
        "goose": make_goose_db,
        "zed": make_zed_db,
        "cursor": make_store,
        "cursor-ide": make_state,
    }
    db = makers.get(agent, make_db)(folder)
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    for companion in (Path(f"{db}-wal"), Path(f"{db}-shm")):
        companion.unlink(missing_ok=True)
    return db


@pytest.mark.parametrize("agent", ["opencode", "crush", "goose", "zed", "cursor", "cursor-ide"])
@SETTINGS
@given(cell=st.integers(0, 10**6), value=hostile)
def test_any_cell_of_a_database_damaged(agent: str, cell: int, value: Any) -> None:
    with tempfile.TemporaryDirectory(prefix="st-prop-") as tmp:
        db = _database(Path(tmp) / "in", agent)
        cells = table_cells(db)
        table, column, rowid = cells[cell % len(cells)]
        mutate_database_row(db, table, column, rowid, value)
        _check(db.parent, db, agent.removesuffix("-ide"), whole=False)


@pytest.mark.parametrize("value", [7, True, "x \ud800", [1, None], {"k": [2]}, float("nan"), -(10**30)])
@pytest.mark.parametrize("name", sorted(set(FORMATS) - {"aider"}))
def test_every_field_a_reader_asks_for_given_a_wrong_value_at_once(
    name: str, value: Any, tmp_path: Path
) -> None:
    """Every field name any reader reads (``READER_KEYS``, a field the file may lack: Gemini's
    ``directories``, a patch's ``files``) set on every object of the file but the one holding
    the marker, to one wrong value; then the same with the fields that name a record's kind kept."""
    fmt = FORMATS[name]
    for keep_kinds in (True, False):
        content = fmt.make("a", MARKER)
        record = get(content, fmt.record) if fmt.record else None
        objects = [node for node in _walk(content) if isinstance(node, dict)]  # before any is changed
        for holder in objects:
            if record is None or not _inside(holder, record):
                for key in READER_KEYS:
                    if not (keep_kinds and key in ("type", "role", "kind", "id")):
                        holder[key] = value
        folder = tmp_path / f"in-{keep_kinds}"
        path = fmt.write(folder, "a", content)
        _check(folder, path, fmt.agent, whole=False)


def _inside(holder: dict[str, Any], record: Any) -> bool:
    """Tell whether ``holder`` is ``record`` or held by it."""
    return any(node is holder for node in _walk(record))


def _walk(value: Any) -> Any:
    yield value
    for child in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
        yield from _walk(child)


@pytest.mark.parametrize("agent", ["opencode", "crush", "goose", "zed", "cursor", "cursor-ide"])
@SETTINGS
@given(
    flips=st.lists(st.tuples(st.integers(0, 8191), st.integers(0, 255)), min_size=1, max_size=8),
    cut=st.none() | st.floats(0.05, 1),
)
def test_any_bytes_of_a_database_damaged(agent: str, flips: list[tuple[int, int]], cut: float | None) -> None:
    """Bytes of a database changed (its first pages: the header and the schema, names of no
    UTF-8 among them) or the file cut short: a one-line error or what is readable, never more."""
    with tempfile.TemporaryDirectory(prefix="st-prop-") as tmp:
        db = _database(Path(tmp) / "in", agent)
        data = bytearray(db.read_bytes())
        for at, byte in flips:
            data[at % len(data)] = byte
        db.write_bytes(bytes(data[: int(len(data) * cut)] if cut else data))
        before = _state(db.parent)
        try:
            _shows(db, agent.removesuffix("-ide"), Path(tmp) / "page.html")
        except SessiontreeError as exc:
            assert "\n" not in str(exc)  # the CLI's one line
        assert _state(db.parent) == before


def _continue(folder: Path, value: Any) -> Path:
    from tests.readers import test_continue

    value = value if isinstance(value, dict) else {}
    return test_continue.write_session(folder, {**value, "sessionId": test_continue.SESSION_ID})


def _cline(folder: Path, value: Any, part: str) -> Path:
    from tests.readers import test_cline

    return test_cline.write_task(folder / "tasks", **{part: value})


def _factory(folder: Path, value: Any) -> Path:
    from tests.readers import test_factory

    return test_factory.write_session(folder, value if isinstance(value, list) else [value])


def _kimi(folder: Path, value: Any, part: str) -> Path:
    from tests.readers import test_kimi

    context = test_kimi.write_session(folder / ".kimi")
    lines = value if isinstance(value, list) else [value]
    name = "context.jsonl" if part == "CONTEXT" else "wire.jsonl"
    (context.parent / name).write_text(
        "".join(json.dumps(v, allow_nan=True) + "\n" for v in lines), encoding="ascii"
    )
    return context


def _added(name: str) -> tuple[Any, Any, str]:
    """(valid content, writer, agent) of a reader issue 50 added."""
    from tests.readers import test_cline, test_continue, test_factory, test_kimi

    return {
        "continue": (test_continue.SESSION, _continue, "continue"),
        "cline-history": (test_cline.HISTORY, lambda f, v: _cline(f, v, "history"), "cline"),
        "cline-ui": (test_cline.UI, lambda f, v: _cline(f, v, "ui"), "cline"),
        "factory": (test_factory.LINES, _factory, "factory"),
        "kimi-context": (test_kimi.CONTEXT, lambda f, v: _kimi(f, v, "CONTEXT"), "kimi"),
        "kimi-wire": (test_kimi.WIRE, lambda f, v: _kimi(f, v, "WIRE"), "kimi"),
    }[name]


@pytest.mark.parametrize(
    "name", ["continue", "cline-history", "cline-ui", "factory", "kimi-context", "kimi-wire"]
)
@settings(SETTINGS, max_examples=20)
@given(found=changes)
def test_any_field_of_a_newer_reader_damaged(name: str, found: list[Change]) -> None:
    """The readers issue 50 added (Continue, Cline and its forks, Factory's droid, Kimi CLI): any
    field of the wrong type or range, removed, or a field some reader asks for set: no exception
    but a one-line error, nothing written into the input folder."""
    base, write, agent = _added(name)
    with tempfile.TemporaryDirectory(prefix="st-prop-") as tmp:
        folder = Path(tmp) / "in"
        path = write(folder, apply(base, found, None)[0])
        before = _state(folder)
        try:
            _shows(path, agent, Path(tmp) / "page.html")
        except SessiontreeError as exc:
            assert "\n" not in str(exc)
        assert _state(folder) == before, "the input folder was written to"
