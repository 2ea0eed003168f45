"""HistoryStorage on a real SQLite file: schema, dedup, background inserts, FTS5 search and fallback."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.errors import HistoryError
from sessiontree.store.history import HistoryEntry, HistoryStorage, escape_like, history_db_path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return history_db_path(tmp_path / "agent")


@pytest.fixture
def history(db: Path) -> Iterator[HistoryStorage]:
    storage = HistoryStorage(db)
    yield storage
    storage.close()


def rows(db: Path) -> list[tuple[str, str | None]]:
    with sqlite3.connect(db) as conn:
        return [(r[0], r[1]) for r in conn.execute("SELECT prompt, cwd FROM history ORDER BY id")]


def prompts(entries: list[HistoryEntry]) -> list[str]:
    return [e.prompt for e in entries]


def test_db_lives_in_the_agent_dir(tmp_path: Path) -> None:
    with HistoryStorage.open(tmp_path / "agent") as storage:
        assert storage.db_path == tmp_path / "agent" / "history.db"
    assert (tmp_path / "agent" / "history.db").is_file()


def test_schema_table_fts_and_triggers(history: HistoryStorage, db: Path) -> None:
    with sqlite3.connect(db) as conn:
        objects = dict(conn.execute("SELECT name, type FROM sqlite_master"))
        columns = [r[1] for r in conn.execute("PRAGMA table_info(history)")]
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    assert columns == ["id", "prompt", "created_at", "cwd"]
    assert objects["history_fts"] == "table"
    assert {objects[t] for t in ("history_ai", "history_ad", "history_au")} == {"trigger"}
    assert mode == "wal"


def test_add_is_written_by_flush(history: HistoryStorage, db: Path) -> None:
    before = int(time.time())
    assert history.add("  fix the failing test  ", cwd="/work/a")
    history.flush()
    assert rows(db) == [("fix the failing test", "/work/a")]
    entry = history.recent(1)[0]
    assert before <= entry.created_at <= int(time.time())


def test_consecutive_duplicates_and_blank_prompts_are_skipped(history: HistoryStorage, db: Path) -> None:
    results = [history.add(p) for p in ("one", "one", " one\n", "two", "one", "", "   ")]
    history.flush()
    assert results == [True, False, False, True, True, False, False]
    assert [r[0] for r in rows(db)] == ["one", "two", "one"]


def test_dedup_cache_is_primed_from_the_db_on_open(db: Path) -> None:
    with HistoryStorage(db) as first:
        first.add("same")
    with HistoryStorage(db) as second:
        assert not second.add("same")
        assert second.add("different")
    assert [r[0] for r in rows(db)] == ["same", "different"]


def test_many_adds_are_batched_and_kept_in_order(history: HistoryStorage, db: Path) -> None:
    for i in range(1200):
        history.add(f"prompt number {i}")
    history.flush()
    assert [r[0] for r in rows(db)] == [f"prompt number {i}" for i in range(1200)]


def test_close_writes_what_is_queued(db: Path) -> None:
    storage = HistoryStorage(db)
    storage.add("queued before close")
    storage.close()
    storage.close()  # idempotent
    assert rows(db) == [("queued before close", None)]
    with pytest.raises(HistoryError, match="closed"):
        storage.add("after close")


def test_recent_is_newest_first_with_cwd_and_limit(history: HistoryStorage) -> None:
    for i, cwd in enumerate(["/a", "/b", "/a", "/b", "/a"]):
        history.add(f"p{i}", cwd=cwd)
    history.flush()
    assert prompts(history.recent(3)) == ["p4", "p3", "p2"]
    assert prompts(history.recent(10, cwd="/b")) == ["p3", "p1"]


@pytest.fixture
def filled(history: HistoryStorage) -> HistoryStorage:
    for text, cwd in [
        ("refactor the parser module", "/proj"),
        ("write tests for the parser", "/proj"),
        ("deploy to staging", "/ops"),
        ("why does c++ template fail", "/proj"),
        ("give 100% coverage", "/proj"),
        ("give 100 percent effort", "/proj"),
        ("open fooXbar.py", "/proj"),
        ("open foo_bar.py", "/proj"),
        ("it's done: ship it", "/ops"),
    ]:
        history.add(text, cwd=cwd)
    history.flush()
    return history


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("parser", ["write tests for the parser", "refactor the parser module"]),
        ("PARSER", ["write tests for the parser", "refactor the parser module"]),
        ("pars*", ["write tests for the parser", "refactor the parser module"]),
        ('"tests for"', ["write tests for the parser"]),
        ("parser NOT tests", ["refactor the parser module"]),
        ("staging OR refactor", ["deploy to staging", "refactor the parser module"]),
        ("nothing-like-this", []),
    ],
)
def test_fts5_query_syntax(filled: HistoryStorage, query: str, expected: list[str]) -> None:
    assert prompts(filled.search(query)) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("c++", ["why does c++ template fail"]),
        ("100%", ["give 100% coverage"]),
        ("o_bar.", ["open foo_bar.py"]),
        ("it's", ["it's done: ship it"]),
        ('"unbalanced', []),
        ("done:", ["it's done: ship it"]),
        ("(", []),
    ],
)
def test_invalid_fts5_falls_back_to_substring(
    filled: HistoryStorage, query: str, expected: list[str]
) -> None:
    assert prompts(filled.search(query)) == expected


def test_like_wildcards_are_escaped() -> None:
    assert escape_like("50%_a\\b") == "50\\%\\_a\\\\b"


def test_search_with_cwd_and_limit(filled: HistoryStorage) -> None:
    assert prompts(filled.search("parser", cwd="/ops")) == []
    assert prompts(filled.search("parser", limit=1)) == ["write tests for the parser"]
    assert prompts(filled.search("it's", cwd="/ops")) == ["it's done: ship it"]
    assert prompts(filled.search("   ", limit=2)) == ["it's done: ship it", "open foo_bar.py"]


def test_triggers_keep_fts_in_sync_on_update_and_delete(filled: HistoryStorage, db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE history SET prompt = 'deploy to production' WHERE prompt = 'deploy to staging'")
        conn.execute("DELETE FROM history WHERE prompt = 'refactor the parser module'")
        conn.execute("INSERT INTO history_fts(history_fts) VALUES ('integrity-check')")
    assert prompts(filled.search("staging")) == []
    assert prompts(filled.search("production")) == ["deploy to production"]
    assert prompts(filled.search("parser")) == ["write tests for the parser"]


def test_not_a_database_gives_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "history.db"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(HistoryError, match="not a usable SQLite database; move it away"):
        HistoryStorage(bad)
    assert bad.read_bytes() == b"this is not sqlite at all" * 100


def test_unwritable_location_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(HistoryError, match="Cannot create"):
        HistoryStorage(blocker / "agent" / "history.db")


def test_a_failed_write_is_reported_once_and_later_adds_still_land(db: Path) -> None:
    storage = HistoryStorage(db)
    with sqlite3.connect(db) as conn:
        # A trigger that rejects one prompt stands in for any write failure.
        conn.execute(
            "CREATE TRIGGER reject BEFORE INSERT ON history WHEN new.prompt = 'bad' "
            "BEGIN SELECT RAISE(ABORT, 'rejected'); END"
        )
    storage.add("bad")
    with pytest.raises(HistoryError, match="rejected"):
        storage.flush()
    storage.add("good")
    storage.flush()
    storage.close()
    assert rows(db) == [("good", None)]


def test_readonly_reads_without_changing_anything(db: Path) -> None:
    with HistoryStorage(db) as writer:
        writer.add("kept prompt", cwd="/k")
    before = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    with HistoryStorage(db, readonly=True) as reader:
        assert [e.prompt for e in reader.search("kept")] == ["kept prompt"]
        assert [e.prompt for e in reader.search("c++")] == []
        with pytest.raises(HistoryError, match="read-only"):
            reader.add("not allowed")
    after = {p.name: p.read_bytes() for p in db.parent.iterdir()}
    assert after == before


def test_readonly_on_a_missing_or_foreign_db(tmp_path: Path) -> None:
    with pytest.raises(HistoryError, match="No prompt history at"):
        HistoryStorage(tmp_path / "none" / "history.db", readonly=True)
    assert not (tmp_path / "none").exists()
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(HistoryError, match="holds no prompt history"):
        HistoryStorage(other, readonly=True)
