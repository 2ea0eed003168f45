"""SessionManager on existing files: open (setSessionFile), continue_recent, fork, fork_from, move_to."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest

from sessiontree.errors import InvalidSession, PersistError, SessiontreeError
from sessiontree.store.discovery import read_terminal_breadcrumb, session_dir_for, write_terminal_breadcrumb
from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager
from sessiontree.store.paths import artifacts_dir_for
from sessiontree.store.persist import prepare_entry_for_persistence
from tests.conftest import GenSession
from tests.store.helpers import assistant, header, msg, write_jsonl
from tests.store.test_persist_faults import FaultyStorage


def user_msg(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def answer(text: str = "ok") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"}


def written_session(agent: Path, cwd: Path, *, turns: int = 2, term: str = "t") -> SessionManager:
    manager = SessionManager.create(cwd, agent_dir=agent, term=term)
    for i in range(turns):
        manager.append_message(user_msg(f"q{i}"))
        manager.append_message(answer(f"a{i}"))
    manager.close()
    return manager


def test_open_loads_entries_and_appends_incrementally(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl", [header(cwd="/work/x"), msg("a1", None, "user"), assistant("a2", "a1")]
    )
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        assert manager.leaf_id == "a2" and manager.cwd == "/work/x" and len(manager.get_entries()) == 2
        before = path.read_bytes()
        new_id = manager.append_message(user_msg("next"))
    after = path.read_bytes()
    assert after.startswith(before)
    assert json.loads(after.decode().splitlines()[-1])["parentId"] == "a2"
    assert load_session(path).leaf_id == new_id


def test_open_missing_file_starts_a_session_there(tmp_path: Path) -> None:
    path = tmp_path / "new" / "s.jsonl"
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        assert manager.session_file == path and manager.get_entries() == []
        manager.append_message(user_msg())
        assert not path.exists()
        manager.append_message(answer())
    loaded = load_session(path)
    assert loaded.id == manager.session_id and len(loaded.entries) == 2


@pytest.mark.parametrize("content", ["", "not json at all\n", '{"type":"message","id":"x"}\n'])
def test_open_empty_or_invalid_file_writes_a_fresh_header(tmp_path: Path, content: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(content)
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        lines = path.read_text().splitlines()
        assert len(lines) == 1 and json.loads(lines[0])["id"] == manager.session_id
        assert json.loads(lines[0])["type"] == "session"


def test_open_migrates_and_rewrites_at_once(tmp_path: Path) -> None:
    v1 = [
        header(version=None),
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
        {"type": "message", "timestamp": "t", "message": {"role": "hookMessage", "content": "h"}},
    ]
    path = write_jsonl(tmp_path / "s.jsonl", v1)
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t"):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["version"] == 3
    assert all(len(line["id"]) == 8 for line in lines[1:]) and lines[2]["parentId"] == lines[1]["id"]
    assert lines[2]["message"]["role"] == "custom"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent", "s.jsonl"]  # no temp file left


def test_open_without_rewrite_leaves_a_v1_file_alone(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "s.jsonl", [header(version=None), {"type": "message", "message": user_msg()}]
    )
    before = path.read_bytes()
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t", rewrite_migrated=False) as manager:
        assert manager.header["version"] == 3
    assert path.read_bytes() == before


def test_open_real_v1_session(real_v1: Path, tmp_path: Path) -> None:
    copy = tmp_path / "real.jsonl"
    copy.write_bytes(real_v1.read_bytes())
    expected = load_session(real_v1)
    with SessionManager.open(copy, agent_dir=tmp_path / "agent", term="t") as manager:
        assert len(manager.get_entries()) == len(expected.entries)
    again = load_session(copy, agent_dir=tmp_path / "agent")
    assert again.version_found == 3 and again.migrations == [] and again.missing_blobs == []
    # Every entry survives the rewrite, less the streaming leftovers (partialJson) the spec drops.
    assert again.entries == [prepare_entry_for_persistence(e) for e in expected.entries]
    assert "partialJson" in real_v1.read_text() and "partialJson" not in copy.read_text()


def test_torn_last_line_does_not_swallow_the_next_entry(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header(), msg("a1", None, "user"), assistant("a2", "a1")])
    with open(path, "a") as fh:
        fh.write('{"type":"message","id":"to')  # a crash mid-line
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        new_id = manager.append_message(user_msg("after crash"))
    loaded = load_session(path)
    assert [e["id"] for e in loaded.entries] == ["a1", "a2", new_id]
    assert len(loaded.bad_lines) == 1


def test_user_only_file_waits_for_the_assistant_then_writes_everything(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header(), msg("a1", None, "user")])
    before = path.read_bytes()
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        second = manager.append_message(user_msg("still no answer"))
        assert path.read_bytes() == before
        third = manager.append_message(answer())
    assert [e["id"] for e in load_session(path).entries] == ["a1", second, third]


def test_open_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InvalidSession, match="directory"):
        SessionManager.open(tmp_path, agent_dir=tmp_path / "agent", term="t")


def test_continue_recent_prefers_the_breadcrumb(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    older = written_session(agent, cwd, term="term-a")
    newer = written_session(agent, cwd, term="term-b")
    assert older.session_file and newer.session_file
    os.utime(older.session_file, (1_000, 1_000))
    with SessionManager.continue_recent(cwd, agent_dir=agent, term="term-a") as manager:
        assert manager.session_file == older.session_file
    with SessionManager.continue_recent(cwd, agent_dir=agent, term="term-other") as manager:
        assert manager.session_file == newer.session_file  # no breadcrumb: newest by mtime


def test_continue_recent_ignores_a_breadcrumb_for_another_cwd_or_a_missing_file(tmp_path: Path) -> None:
    agent, cwd = tmp_path / "agent", tmp_path / "proj"
    mine = written_session(agent, cwd, term="x")
    other = written_session(agent, tmp_path / "elsewhere", term="x")
    assert mine.session_file and other.session_file
    write_terminal_breadcrumb(agent, "x", str(tmp_path / "elsewhere"), other.session_file)
    with SessionManager.continue_recent(cwd, agent_dir=agent, term="x") as manager:
        assert manager.session_file == mine.session_file
    write_terminal_breadcrumb(agent, "x", str(cwd), tmp_path / "gone.jsonl")
    with SessionManager.continue_recent(cwd, agent_dir=agent, term="x") as manager:
        assert manager.session_file == mine.session_file


def test_continue_recent_with_nothing_creates_a_session(tmp_path: Path) -> None:
    with SessionManager.continue_recent(
        tmp_path / "empty", agent_dir=tmp_path / "agent", term="t"
    ) as manager:
        assert manager.get_entries() == [] and manager.session_file is not None
        assert not manager.session_file.exists()
        assert manager.session_file.parent == session_dir_for(tmp_path / "empty", tmp_path / "agent")


def test_breadcrumb_is_left_for_the_terminal(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    manager = written_session(agent, tmp_path / "proj", term="pts-3")
    crumb = read_terminal_breadcrumb(agent, "pts-3")
    assert crumb is not None and crumb.session_file == manager.session_file
    assert crumb.cwd == str(tmp_path / "proj")
    assert (agent / "terminal-sessions" / "pts-3").read_text().splitlines() == [
        crumb.cwd,
        str(crumb.session_file),
    ]


def test_fork_makes_a_new_file_with_the_same_entries(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    original = written_session(agent, tmp_path / "proj")
    assert original.session_file is not None
    artifacts = artifacts_dir_for(original.session_file)
    (artifacts / "sub").mkdir(parents=True)
    (artifacts / "0.bash.log").write_text("output")
    (artifacts / "sub" / "x.md").write_text("nested")
    with SessionManager.open(original.session_file, agent_dir=agent, term="t") as manager:
        old_id = manager.session_id
        new_path = manager.fork()
        assert new_path is not None and manager.session_file == new_path and manager.session_id != old_id
        manager.append_message(user_msg("only in the fork"))
    forked, source = load_session(new_path), load_session(original.session_file)
    assert forked.header["parentSession"] == old_id and forked.cwd == source.cwd
    assert forked.entries[:-1] == source.entries and len(source.entries) == 4
    assert new_path.parent == original.session_file.parent and new_path.name.endswith(f"_{forked.id}.jsonl")
    copied = artifacts_dir_for(new_path)
    assert (copied / "0.bash.log").read_text() == "output" and (
        copied / "sub" / "x.md"
    ).read_text() == "nested"
    assert (artifacts / "0.bash.log").exists()


def test_fork_without_artifacts_is_fine(tmp_path: Path) -> None:
    original = written_session(tmp_path / "agent", tmp_path / "proj")
    assert original.session_file is not None
    with SessionManager.open(original.session_file, agent_dir=tmp_path / "agent", term="t") as manager:
        new_path = manager.fork()
    assert new_path is not None and not artifacts_dir_for(new_path).exists()


def test_fork_artifact_copy_error_is_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = written_session(tmp_path / "agent", tmp_path / "proj")
    assert original.session_file is not None
    artifacts = artifacts_dir_for(original.session_file)
    artifacts.mkdir()
    (artifacts / "ok.log").write_text("fine")
    with socket.socket(socket.AF_UNIX) as sock:  # a socket file cannot be copied: a real copy error
        monkeypatch.chdir(artifacts)  # a relative name keeps the socket path under the AF_UNIX limit
        sock.bind("agent.sock")
        manager = SessionManager.open(original.session_file, agent_dir=tmp_path / "agent", term="t")
        with manager, caplog.at_level(logging.WARNING):
            new_path = manager.fork()
    assert (
        new_path is not None and load_session(new_path).entries == load_session(original.session_file).entries
    )
    assert "could not copy artifacts" in caplog.text
    assert (artifacts_dir_for(new_path) / "ok.log").read_text() == "fine"


def test_fork_of_an_unwritten_session_is_none(tmp_path: Path) -> None:
    with SessionManager.create(tmp_path / "p", agent_dir=tmp_path / "a", term="t") as manager:
        manager.append_message(user_msg())
        assert manager.fork() is None


def test_fork_from_copies_into_another_project(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    source = written_session(agent, tmp_path / "theirs")
    assert source.session_file is not None
    artifacts_dir_for(source.session_file).mkdir()
    (artifacts_dir_for(source.session_file) / "1.read.log").write_text("a")
    with SessionManager.fork_from(
        source.session_file, tmp_path / "mine", agent_dir=agent, term="t"
    ) as forked:
        assert forked.session_file is not None and forked.session_file.exists()  # written at once
        assert forked.session_file.parent == session_dir_for(tmp_path / "mine", agent)
        assert forked.leaf_id == source.leaf_id
    loaded = load_session(forked.session_file)
    assert loaded.header["parentSession"] == str(source.session_file) and loaded.cwd == str(tmp_path / "mine")
    assert loaded.entries == load_session(source.session_file).entries
    assert (artifacts_dir_for(forked.session_file) / "1.read.log").read_text() == "a"


def test_fork_from_a_non_session_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("hello\n")
    with pytest.raises(InvalidSession, match="Not a session file"):
        SessionManager.fork_from(bad, tmp_path, agent_dir=tmp_path / "agent", term="t")


def test_move_to_moves_file_and_artifacts_and_updates_cwd(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    session = written_session(agent, tmp_path / "old")
    assert session.session_file is not None
    (artifacts_dir_for(session.session_file)).mkdir()
    (artifacts_dir_for(session.session_file) / "0.bash.log").write_text("log")
    with SessionManager.open(session.session_file, agent_dir=agent, term="t") as manager:
        new_path = manager.move_to(tmp_path / "new")
        assert new_path is not None and manager.session_file == new_path
        manager.append_message(user_msg("after the move"))
    assert (
        new_path.parent == session_dir_for(tmp_path / "new", agent)
        and new_path.name == session.session_file.name
    )
    assert not session.session_file.exists() and not artifacts_dir_for(session.session_file).exists()
    assert (artifacts_dir_for(new_path) / "0.bash.log").read_text() == "log"
    loaded = load_session(new_path)
    assert loaded.cwd == str(tmp_path / "new") and len(loaded.entries) == 5


def test_move_rolls_back_when_the_rewrite_fails(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    session = written_session(agent, tmp_path / "old")
    assert session.session_file is not None
    artifacts = artifacts_dir_for(session.session_file)
    artifacts.mkdir()
    (artifacts / "0.bash.log").write_text("log")
    before = session.session_file.read_bytes()
    storage = FaultyStorage()
    with SessionManager.open(session.session_file, agent_dir=agent, storage=storage, term="t") as manager:
        storage.refuse_open = lambda path: path.name.endswith(".tmp")
        with pytest.raises(PersistError, match="left in place"):
            manager.move_to(tmp_path / "new")
        assert manager.session_file == session.session_file and manager.header["cwd"] == str(tmp_path / "old")
        storage.refuse_open = lambda path: False
        manager.append_message(user_msg("still works"))  # a rolled-back move is not a sticky error
    assert session.session_file.read_bytes().startswith(before)
    assert (artifacts / "0.bash.log").read_text() == "log"
    new_dir = session_dir_for(tmp_path / "new", agent)
    assert not new_dir.exists() or list(new_dir.iterdir()) == []


def test_move_rolls_back_when_the_artifact_folder_cannot_move(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    session = written_session(agent, tmp_path / "old")
    assert session.session_file is not None
    artifacts = artifacts_dir_for(session.session_file)
    artifacts.mkdir()
    (artifacts / "0.bash.log").write_text("log")
    before = session.session_file.read_bytes()
    storage = FaultyStorage()
    storage.refuse_rename = lambda path: path == artifacts  # e.g. another filesystem
    with SessionManager.open(session.session_file, agent_dir=agent, storage=storage, term="t") as manager:
        with pytest.raises(PersistError, match="Invalid cross-device link; it was left in place"):
            manager.move_to(tmp_path / "new")
        assert manager.session_file == session.session_file
    assert session.session_file.read_bytes() == before  # the file came back, untouched
    assert (artifacts / "0.bash.log").read_text() == "log"
    assert list(session_dir_for(tmp_path / "new", agent).iterdir()) == []


def test_move_refuses_to_overwrite(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    session = written_session(agent, tmp_path / "old")
    assert session.session_file is not None
    target = session_dir_for(tmp_path / "new", agent) / session.session_file.name
    target.parent.mkdir(parents=True)
    target.write_text("someone else's\n")
    manager = SessionManager.open(session.session_file, agent_dir=agent, term="t")
    with manager, pytest.raises(SessiontreeError, match="already exists"):
        manager.move_to(tmp_path / "new")
    assert target.read_text() == "someone else's\n" and session.session_file.exists()


def test_move_of_an_unwritten_session_changes_only_the_cwd(tmp_path: Path) -> None:
    with SessionManager.create(tmp_path / "a", agent_dir=tmp_path / "agent", term="t") as manager:
        manager.append_message(user_msg())
        manager.move_to(tmp_path / "b")
        assert manager.header["cwd"] == str(tmp_path / "b")
        manager.append_message(answer())
        assert manager.session_file is not None and manager.session_file.exists()
        assert manager.session_file.parent == session_dir_for(tmp_path / "b", tmp_path / "agent")


def test_fork_of_a_generated_session_with_blobs(gen_session: GenSession, tmp_path: Path) -> None:
    generated = gen_session(30, blobs=True)
    work = tmp_path / "work"
    shutil.copytree(generated.parent, work)
    source = work / generated.name
    expected = load_session(source)
    assert expected.missing_blobs == [] and "blob:sha256:" in source.read_text()
    agent = tmp_path / "agent"
    with SessionManager.open(source, agent_dir=agent, term="t") as manager:
        new_path = manager.fork()
    assert new_path is not None
    forked = load_session(new_path, agent_dir=agent)
    assert forked.missing_blobs == [] and forked.entries == [
        prepare_entry_for_persistence(e) for e in expected.entries
    ]
    assert any(agent.glob("blobs/*"))  # the images went to the agent's blob store as refs


@pytest.mark.parametrize(
    ("content", "rewrite_reason"),
    [
        ("not json at all\n", "invalid header"),
        ('{"type":"message","id":"x","parentId":null}\n', "invalid header"),
    ],
)
def test_replacing_an_unreadable_file_keeps_the_original(
    tmp_path: Path, content: str, rewrite_reason: str
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(content)
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t"):
        pass
    backups = sorted(tmp_path.glob("s.jsonl.*.bak"))
    assert len(backups) == 1, rewrite_reason
    assert backups[0].read_text() == content
    assert json.loads(path.read_text().splitlines()[0])["type"] == "session"


def test_migration_rewrite_keeps_a_copy_when_lines_were_unreadable(tmp_path: Path) -> None:
    v1 = [
        header(version=None),
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
        "{corrupt line that holds the only copy of something",
        {"type": "message", "timestamp": "t", "message": {"role": "assistant", "content": "a"}},
    ]
    path = write_jsonl(tmp_path / "s.jsonl", v1)
    original = path.read_bytes()
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        manager.set_session_name("renamed")  # a second rewrite makes no second copy
    backups = sorted(tmp_path.glob("s.jsonl.*.bak"))
    assert len(backups) == 1 and backups[0].read_bytes() == original
    assert "corrupt line" not in path.read_text()
    assert len(load_session(path).entries) == 2


def test_clean_files_get_no_backup(tmp_path: Path) -> None:
    v1 = [
        header(version=None),
        {"type": "message", "timestamp": "t", "message": {"role": "user", "content": "q"}},
    ]
    path = write_jsonl(tmp_path / "s.jsonl", v1)
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t"):
        pass
    assert list(tmp_path.glob("*.bak")) == []
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    with SessionManager.open(empty, agent_dir=tmp_path / "agent", term="t"):
        pass
    assert list(tmp_path.glob("*.bak")) == []
