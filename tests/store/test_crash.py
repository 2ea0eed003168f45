"""Crash safety, measured: writers killed with SIGKILL at random points of appends and rewrites.

Each round forks a writer (the test process has already imported everything, so a fork costs a
millisecond instead of a Python start), lets it append, rename and rewrite for a random short
time, and kills it. The writer reports each entry id over a pipe only after ``flush()`` returned,
and marks when it has opened the file and when it is inside a full rewrite. After every kill the
file must load and hold every entry reported so far.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path
from typing import Any, NoReturn

import pytest

from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager

KILLS = 240
FILES = 4


def message(rng: random.Random, role: str, n: int) -> dict[str, Any]:
    size = rng.choice([10, 200, 2_000, 20_000])
    text = f"{role} {n} " + "x" * size
    if role == "assistant":
        return {"role": role, "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"}
    return {"role": role, "content": text}


def write_until_killed(path: Path, agent: Path, seed: int, report: int) -> NoReturn:
    """The writer: open the file (or start it), then append / rename / rewrite forever."""
    try:
        rng = random.Random(seed)
        manager = SessionManager.open(path, agent_dir=agent, term="crash-test")
        os.write(report, b"S\n")  # opened: the kill clock starts now
        if not manager.get_entries():
            manager.append_message(message(rng, "assistant", 0))  # persistence starts here
            manager.flush()
            os.write(report, f"{manager.leaf_id}\n".encode())
        n = 0
        while True:
            n += 1
            roll = rng.random()
            if roll < 0.06:
                os.write(report, b"R\n")  # inside a full rewrite (temp file + fsync + rename)
                manager.set_session_name(f"name {n}")
                os.write(report, b"r\n")
            elif roll < 0.10:
                os.write(report, b"R\n")
                manager.rewrite_entries()
                os.write(report, b"r\n")
            else:
                manager.append_message(message(rng, rng.choice(["user", "assistant", "toolResult"]), n))
                manager.flush()
                os.write(report, f"{manager.leaf_id}\n".encode())
    finally:
        os._exit(1)


def wait_for_start(fd: int) -> str:
    """Read the writer's reports up to its "opened" mark (so kills land in appends and rewrites)."""
    seen = ""
    while "S\n" not in seen:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        seen += chunk.decode()
    return seen


def read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks).decode()


@pytest.mark.slow
def test_sigkill_during_appends_and_rewrites_loses_nothing_flushed(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    agent = tmp_path / "agent"
    files = [tmp_path / f"session-{i}.jsonl" for i in range(FILES)]
    flushed: dict[Path, set[str]] = {path: set() for path in files}
    kills = mid_rewrite = 0
    for round_no in range(KILLS):
        path = files[round_no % FILES]
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            os.close(read_end)
            write_until_killed(path, agent, rng.randrange(1 << 30), write_end)
        os.close(write_end)
        started = wait_for_start(read_end)
        time.sleep(rng.uniform(0.003, 0.06))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, "the writer died on its own"
        kills += 1
        lines = (started + read_all(read_end)).splitlines()
        os.close(read_end)
        if lines and lines[-1] == "R":
            mid_rewrite += 1
        flushed[path].update(line for line in lines if len(line) == 8)

        session = load_session(path)
        if flushed[path]:
            assert not session.is_empty, f"round {round_no}: {path.name} no longer loads"
        present = {e["id"] for e in session.entries}
        lost = flushed[path] - present
        assert not lost, f"round {round_no}: {len(lost)} flushed entries lost from {path.name}"

    assert kills >= 200
    total = sum(len(ids) for ids in flushed.values())
    print(f"\n{kills} kills, {mid_rewrite} inside a full rewrite, {total} flushed entries checked")
    assert total > kills  # the writers really wrote between kills
    for path in files:
        final = load_session(path)
        assert final.header["version"] == 3 and len(final.entries) >= len(flushed[path])
        SessionManager.open(path, agent_dir=agent, term="crash-test").close()
    # Opening a file clears the temp files of writers killed mid-rewrite.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
