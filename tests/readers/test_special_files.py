"""Special files where another agent's sessions are (issue 55): a named pipe as a session, as a
database or as its ``-wal``, a damaged database, a folder not ours to search. Every command
finishes (a bound on each process: a hang fails the test), says what it skipped in one line,
and still lists the other agents' sessions.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
from pathlib import Path

import httpx
import pytest

from sessiontree.errors import InvalidSession
from sessiontree.readers import database_copy
from sessiontree.readers.database_copy import COPY_ATTEMPTS, open_copy
from tests.cli.test_hostile_inputs import run as run_cli
from tests.readers.helpers import FIXTURES
from tests.readers.opencode_db import make_database
from tests.serve.process import serve_process
from tests.stranger import (  # noqa: F401 (fixture)
    give,
    restrict,
    run_as_stranger,
    stranger_dir,
    stranger_env,
    stranger_python,
)

GEMINI = next((FIXTURES / "gemini" / "tmp").rglob("session-*.json"))
GEMINI_WORD = "Gemini CLI"  # the agent column of its row
BOUND = 120  # seconds: a command that waits on a pipe never ends; one that works ends in a few


def _home(top: Path) -> tuple[Path, dict[str, str]]:
    """A home with one Gemini CLI chat in its default folder, and the environment pointing at it."""
    home = top / "home"
    chats = home / ".gemini" / "tmp" / "9a7c" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats / GEMINI.name)
    env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(top / "cache"),
        "SESSIONTREE_AGENT_DIR": str(home / ".xcsh" / "agent"),
    }
    return home, env


def _listed(home: Path, env: dict[str, str]) -> tuple[set[str], str]:
    result = run_cli("list", "--all", "--json", cwd=home, env=env, timeout=BOUND)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return {s.get("agent") for s in json.loads(result.stdout)}, result.stderr


def _every_command_finishes(home: Path, env: dict[str, str], *, build: bool = True) -> str:
    """Run search, stats and build over the default folders; build's stderr."""
    commands = [["search", "the"], ["stats"]] + (
        [["build", "-o", str(home / "site"), "--no-search"]] if build else []
    )
    said = ""
    for args in commands:
        result = run_cli(*args, cwd=home, env=env, timeout=BOUND)
        assert "Traceback" not in result.stderr and result.returncode in (0, 1), (args, result.stderr)
        said = result.stderr
    if build:
        assert list((home / "site" / "sessions").rglob("*.html")), "the Gemini chat was built"
    return said


def test_a_named_pipe_as_a_session_file_is_named_and_skipped(tmp_path: Path) -> None:
    home, env = _home(tmp_path)
    chats = GEMINI.name
    folder = home / ".gemini" / "tmp" / "9a7c" / "chats"
    os.mkfifo(folder / "session-2025-09-02T10-00-pipe.json")
    amp = home / ".local" / "share" / "amp" / "threads"
    amp.mkdir(parents=True)
    os.mkfifo(amp / "T-00000000-0000-4000-8000-000000000000.json")
    with socket.socket(socket.AF_UNIX) as listening:  # a socket where a chat is: refused as a pipe is
        short = Path(tempfile.mkdtemp(prefix="st-", dir="/tmp")) / "s"  # a socket's path: 107 bytes at most
        listening.bind(str(short))
        short.rename(folder / "session-2025-09-03T10-00-sock.json")
        short.parent.rmdir()
        agents, _ = _listed(home, env)
    assert "gemini" in agents, chats
    inspected = run_cli(
        "inspect", str(folder / "session-2025-09-02T10-00-pipe.json"), cwd=home, env=env, timeout=BOUND
    )
    assert inspected.returncode == 1 and inspected.stderr.count("\n") == 1, inspected.stderr
    assert "it is a named pipe" in inspected.stderr
    sock = run_cli(
        "inspect", str(folder / "session-2025-09-03T10-00-sock.json"), cwd=home, env=env, timeout=BOUND
    )
    assert sock.returncode == 1 and "it is a socket" in sock.stderr, sock.stderr
    built = _every_command_finishes(home, env)
    for name, kind in (("pipe", "a named pipe"), ("sock", "a socket")):  # one line each, by name
        assert (
            f"chats/session-2025-09-0{2 if name == 'pipe' else 3}T10-00-{name}.json: unreadable: it is {kind}"
            in built
        )


@pytest.mark.parametrize("where", ["db", "-wal", "-shm", "-journal"])
def test_a_named_pipe_as_a_database_or_a_companion_hides_no_other_session(tmp_path: Path, where: str) -> None:
    home, env = _home(tmp_path)
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    db = data / "opencode.db"
    if where == "db":
        os.mkfifo(db)
    else:
        make_database(db, wal=False)
        os.mkfifo(f"{db}{where}")
    agents, said = _listed(home, env)
    assert "gemini" in agents
    if where in ("-shm", "-journal"):  # never opened: the database is read from a copy of it and its WAL
        assert "opencode" in agents and "Traceback" not in said, said
        return
    assert "opencode" not in agents
    line = "it is not a regular file" if where == "db" else "its -wal file: it is a named pipe"
    assert line in said and said.count(str(db)) == 1, said
    _every_command_finishes(home, env, build=where == "-wal")
    if where == "-wal":
        inspected = run_cli("inspect", str(db), cwd=home, env=env, timeout=BOUND)
        assert inspected.returncode == 1 and inspected.stderr.count("\n") == 1, inspected.stderr
        assert f"Cannot read {db}: its -wal file: it is a named pipe" in inspected.stderr, inspected.stderr


def test_a_damaged_database_hides_no_other_agents_sessions(tmp_path: Path) -> None:
    home, env = _home(tmp_path)
    data = home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    db = data / "opencode.db"
    make_database(db, wal=False)
    raw = bytearray(db.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # the first page's schema: every table's root lost
    db.write_bytes(bytes(raw))
    agents, _ = _listed(home, env)
    assert "gemini" in agents
    _every_command_finishes(home, env, build=False)


def test_a_database_that_keeps_changing_is_copied_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "opencode.db"
    sqlite3.connect(db).close()
    made: list[Path] = []

    def changed_under_it(source: Path, copy: Path) -> bool:  # what a database written all along gives
        made.append(copy)
        return False

    monkeypatch.setattr(database_copy, "_copy_consistent", changed_under_it)
    with pytest.raises(InvalidSession, match="kept changing"), open_copy(db):
        pass
    assert len(made) == COPY_ATTEMPTS <= 16


def test_a_copy_broken_by_a_checkpoint_is_made_again_once_the_wal_restarts(tmp_path: Path) -> None:
    db = tmp_path / "live.db"
    agent = sqlite3.connect(db, isolation_level=None)
    agent.execute("PRAGMA journal_mode=WAL")
    agent.execute("CREATE TABLE t (v TEXT)")
    agent.execute("INSERT INTO t VALUES ('first')")
    wal = Path(f"{db}-wal")
    before = database_copy._wal_generation(wal)
    assert before is not None
    waiter = threading.Thread(target=database_copy._await_restart, args=(wal, 600.0))
    waiter.start()
    agent.execute("PRAGMA wal_checkpoint(RESTART)")  # every frame written back: the next write starts it over
    agent.execute("INSERT INTO t VALUES ('second')")
    waiter.join(timeout=120)
    assert database_copy._wal_generation(wal) not in (before, None)
    assert not waiter.is_alive()  # it began again on the restart, not at the end of its 600 s
    with open_copy(db) as copy:
        assert [v for (v,) in copy.execute("SELECT v FROM t")] == ["first", "second"]
    agent.close()


def test_a_data_folder_not_ours_to_search_hides_no_other_agents_sessions(stranger_dir: Path) -> None:  # noqa: F811
    """As a user who owns neither OpenCode's data folder nor a Crush project's ``.crush`` (root
    reads everything, so the command runs as nobody through setpriv)."""
    from tests.readers.test_crush import make_db

    home = stranger_dir / "home"
    give(home)
    chats = home / ".gemini" / "tmp" / "9a7c" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(GEMINI, chats / GEMINI.name)
    for folder in (home / ".gemini", home / ".gemini" / "tmp", chats.parent, chats):
        give(folder)
    data = stranger_dir / "data"
    opencode = data / "opencode"
    opencode.mkdir(parents=True)
    make_database(opencode / "opencode.db", wal=False)
    restrict(opencode, 0o700)  # someone else's: not ours to search
    project = stranger_dir / "project"
    crush_db = make_db(project)
    restrict(crush_db.parent, 0o700)
    (data / "crush").mkdir()
    listed = {"projects": [{"path": str(project), "data_dir": ".crush"}]}
    (data / "crush" / "projects.json").write_text(json.dumps(listed), encoding="utf-8")
    env = {"XDG_DATA_HOME": str(data), "SESSIONTREE_AGENT_DIR": str(home / "agent")}
    listed_out = run_as_stranger("list", "--all", "--json", cwd=home, home=home, env=env, timeout=BOUND)
    assert listed_out.returncode == 0, listed_out.stderr
    assert "gemini" in {s.get("agent") for s in json.loads(listed_out.stdout)}
    assert f"Skipping {opencode / 'opencode.db'}: permission denied" in listed_out.stderr
    assert f"Skipping {crush_db}: permission denied" in listed_out.stderr
    for args in (["search", "the"], ["stats"]):
        result = run_as_stranger(*args, cwd=home, home=home, env=env, timeout=BOUND)
        assert result.returncode == 0, (args, result.stderr)
    with (
        serve_process(
            None, home / "agent", home / "cache", python=stranger_python(), env=stranger_env(home, **env)
        ) as served,
        httpx.Client(base_url=served.url, timeout=BOUND) as client,
    ):
        index = client.get("/")
        assert index.status_code == 200 and "/s/" in index.text  # the Gemini chat is served
        assert served.stop() == 0


def test_an_opencode_message_folder_that_cannot_be_read_is_said_not_shown_empty(tmp_path: Path) -> None:
    from tests.readers.opencode_db import STORAGE

    root = tmp_path / "storage"
    shutil.copytree(STORAGE, root)
    (session,) = (root / "session").rglob("ses_*.json")
    messages = root / "message" / session.stem
    shutil.rmtree(messages)
    messages.write_text("not a folder")  # listing it fails as a folder not ours to read does (an OSError)
    result = run_cli("export", str(session), str(tmp_path / "page.html"), cwd=tmp_path, timeout=BOUND)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "unreadable line" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    inspected = run_cli("inspect", str(session), cwd=tmp_path, timeout=BOUND)
    assert f"{session.stem}: unreadable: a part of its path is not a folder" in inspected.stdout, (
        inspected.stdout
    )


def test_a_mirror_that_cannot_be_read_is_said_once_and_tried_again_when_it_changes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from sessiontree.readers.db_mirror import prepare_mirror, sync_mirror

    db = tmp_path / "opencode.db"
    info = make_database(db, wal=False)
    os.mkfifo(f"{db}-wal")
    folder = prepare_mirror(db, "opencode", tmp_path / "cache")
    with caplog.at_level("WARNING"):
        for _ in range(3):  # serve asks at every tick
            sync_mirror(folder)
    said = [r.getMessage() for r in caplog.records]
    assert said == [f"Cannot read the opencode database {db}: its -wal file: it is a named pipe"], said
    assert not list(folder.glob("ses_*.json"))
    os.remove(f"{db}-wal")  # the WAL as it should be: gone once checkpointed
    sync_mirror(folder)
    assert [p.stem for p in folder.glob("ses_*.json")] == [info["id"]]


def test_an_opencode_message_folder_not_ours_to_read_is_said(stranger_dir: Path) -> None:  # noqa: F811
    """The same as a user who may not list the session's message folder (run as nobody)."""
    from tests.readers.opencode_db import STORAGE

    home = stranger_dir / "home"
    give(home)
    root = stranger_dir / "storage"
    shutil.copytree(STORAGE, root)
    (session,) = (root / "session").rglob("ses_*.json")
    restrict(root / "message" / session.stem, 0o700)  # someone else's
    out = home / "page.html"
    result = run_as_stranger("export", str(session), str(out), cwd=home, home=home, timeout=BOUND)
    assert result.returncode == 0, result.stderr
    assert "unreadable line" in result.stderr and result.stderr.count("\n") == 1, result.stderr
    inspected = run_as_stranger("inspect", str(session), cwd=home, home=home, timeout=BOUND)
    assert f"{session.stem}: unreadable: permission denied" in inspected.stdout, inspected.stdout
