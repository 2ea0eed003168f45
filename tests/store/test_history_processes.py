"""HistoryStorage across real processes: concurrent writers and a database another process holds."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontree.errors import HistoryError
from sessiontree.store.history import HistoryStorage

WRITER = """
import sys, time
from pathlib import Path
from sessiontree.store.history import HistoryStorage
db, tag, n, go = sys.argv[1:]
while not Path(go).exists():
    time.sleep(0.002)
with HistoryStorage(Path(db), busy_timeout=30) as h:
    for i in range(int(n)):
        h.add(f"{tag} prompt {i}", cwd="/" + tag)
        if i % 25 == 0:
            h.flush()  # many small transactions, so the two processes interleave
"""

HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
conn.execute("BEGIN IMMEDIATE")
if sys.argv[2] == "row":
    conn.execute("INSERT INTO history (prompt, created_at, cwd) VALUES ('from holder', 0, '/holder')")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("COMMIT")
print("released", flush=True)
"""


class Holder:
    """Another process holding the write lock of a database until ``release``."""

    def __init__(self, db: Path, mode: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db), mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        assert self.proc.stdout.readline().strip() == "locked"

    def release(self) -> None:
        """Let the holder commit and exit (idempotent)."""
        if self.proc.returncode is None:
            out, _ = self.proc.communicate("go\n", timeout=30)
            assert out.strip() == "released"
        assert self.proc.returncode == 0


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "agent" / "history.db"
    HistoryStorage(path).close()  # the schema exists, as it does for any agent that ran once
    yield path


def committed(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [r[0] for r in conn.execute("SELECT prompt FROM history ORDER BY id")]


def test_two_processes_write_concurrently(db: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(db), tag, "300", str(go)])
        for tag in ("alpha", "beta")
    ]
    go.touch()
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    saved = committed(db)
    assert len(saved) == 600
    for tag in ("alpha", "beta"):
        assert [p for p in saved if p.startswith(tag)] == [f"{tag} prompt {i}" for i in range(300)]
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO history_fts(history_fts) VALUES ('integrity-check')")
    with HistoryStorage(db) as history:
        assert len(history.search("alpha", limit=1000)) == 300
        assert len(history.search("prompt", cwd="/beta", limit=1000)) == 300


def test_add_does_not_block_while_another_process_holds_the_lock(db: Path) -> None:
    holder = Holder(db, "row")
    try:
        history = HistoryStorage(db, busy_timeout=30)
        # Reads go on under WAL while the other process is mid-transaction.
        assert history.search("holder") == []
        assert history.add("mine while locked", cwd="/me")
        assert committed(db) == []
        holder.release()
        history.flush()
        assert committed(db) == ["from holder", "mine while locked"]
        assert [e.prompt for e in history.search("holder OR mine")] == ["mine while locked", "from holder"]
        history.close()
    finally:
        holder.release()


def test_lock_held_past_the_busy_timeout_is_reported_and_recovers(db: Path) -> None:
    holder = Holder(db, "empty")
    history = HistoryStorage(db, busy_timeout=0.2)
    try:
        history.add("lost to the lock")
        with pytest.raises(HistoryError, match="locked by another process; try again"):
            history.flush()
        holder.release()
        history.add("after release")
        history.flush()
        assert committed(db) == ["after release"]
    finally:
        holder.release()
        history.close()


def test_new_database_opened_while_another_process_holds_it(tmp_path: Path) -> None:
    db = tmp_path / "fresh" / "history.db"
    db.parent.mkdir()
    holder = Holder(db, "empty")  # an empty DB, write-locked: creating our schema has to wait
    timer = threading.Timer(0.3, holder.release)
    timer.start()
    try:
        with HistoryStorage(db, busy_timeout=30) as history:
            history.add("first prompt")
        assert committed(db) == ["first prompt"]
    finally:
        timer.join()
        holder.release()
