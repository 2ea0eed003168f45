"""A stand-in for a running OpenCode: keeps adding parts to a database in WAL mode until told to pause.

``python -m tests.readers.opencode_writer DB CONTROL``: each transaction adds one text part
``tick N`` to the session's last message, removes ``tick N-KEPT`` and sets the session's title to
``N ticks`` (so any consistent read holds exactly the ``KEPT`` ticks up to its title's),
checkpointing every few pages. It writes the count reached to ``CONTROL/ticks``; when
``CONTROL/pause`` appears it writes ``CONTROL/paused`` and keeps its connection (and so the WAL)
open until ``CONTROL/stop`` appears.

The database keeps a long session's size: a writer growing it by megabytes a second, at full
speed and checkpointing every 16 pages, made a copy of it (15 MB within seconds) span several
checkpoints on a loaded machine: 5 copies in a row failed in a busy CI run, and no agent writes so.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path

KEPT = 64
"""How many tick parts the session holds at any commit."""


def note(control: Path, name: str, text: str) -> None:
    tmp = control / f".{name}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, control / name)


def main() -> None:
    db_path, control = Path(sys.argv[1]), Path(sys.argv[2])
    db = sqlite3.connect(db_path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=16")  # checkpoints often: the reader's copy must cope
    sid, mid = db.execute("SELECT session_id, id FROM message ORDER BY time_created DESC, id DESC").fetchone()
    tick = 0
    while not (control / "pause").exists():
        tick += 1
        now = 1763630200000 + tick
        db.execute("BEGIN IMMEDIATE")
        body = json.dumps({"type": "text", "text": f"tick {tick} " + "x" * 3000})
        db.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (f"prt_z{tick:08d}", mid, sid, now, now, body)
        )
        db.execute("DELETE FROM part WHERE id = ?", (f"prt_z{tick - KEPT:08d}",))
        db.execute("UPDATE session SET title = ?, time_updated = ? WHERE id = ?", (f"{tick} ticks", now, sid))
        db.execute("COMMIT")
        note(control, "ticks", str(tick))
    note(control, "paused", str(tick))
    while not (control / "stop").exists():
        time.sleep(0.01)  # a stand-in for OpenCode idling with the database open
    db.close()


if __name__ == "__main__":
    main()
