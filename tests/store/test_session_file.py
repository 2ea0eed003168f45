"""The one write state of a session file, temp files cleaned on open, relocation with copy_tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sessiontree.store.discovery import breadcrumb_path
from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager
from sessiontree.store.paths import artifacts_dir_for
from sessiontree.store.relocate import copy_artifacts
from sessiontree.store.session_file import WriteState
from sessiontree.store.storage import FileSessionStorage, MemorySessionStorage
from tests.store.helpers import assistant, header, msg, write_jsonl

ASSISTANT = {"role": "assistant", "content": [{"type": "text", "text": "ok"}], "model": "m"}
USER = {"role": "user", "content": "hi"}


def dead_pid() -> int:
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(done.stdout)


def written_session(tmp_path: Path) -> tuple[Path, Path]:
    """A session written to its file (a question and an answer), and its agent dir."""
    agent = tmp_path / "agent"
    with SessionManager.create(tmp_path / "proj", agent_dir=agent, term="t") as manager:
        manager.append_message(USER)
        manager.append_message(ASSISTANT)
    assert manager.session_file is not None
    return manager.session_file, agent


def test_write_state_from_behind_to_in_step(tmp_path: Path) -> None:
    manager = SessionManager.create(tmp_path / "proj", agent_dir=tmp_path / "agent", term="t")
    assert manager.write_state is WriteState.BEHIND
    manager.append_message(USER)
    assert manager.write_state is WriteState.BEHIND and manager.session_file is not None
    assert not manager.session_file.exists()  # nothing before the first answer
    manager.append_message(ASSISTANT)
    assert manager.write_state is WriteState.IN_STEP
    manager.set_session_name("named")
    assert manager.write_state is WriteState.IN_STEP
    manager.close()
    assert load_session(manager.session_file).title == "named"


def test_a_loaded_file_without_an_answer_falls_behind_then_is_written_whole(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header(), msg("u1", None, "user")])
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        assert manager.write_state is WriteState.IN_STEP
        manager.append_message(USER)
        assert manager.write_state is WriteState.BEHIND
        manager.append_message(ASSISTANT)
        assert manager.write_state is WriteState.IN_STEP
    assert [e["type"] for e in load_session(path).entries] == ["message"] * 3


def test_a_torn_last_line_is_ended_before_the_next_append(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [header(), msg("u1", None, "user"), assistant("a1", "u1")])
    path.write_bytes(path.read_bytes() + b'{"type":"message","id":"half')  # a writer died mid-line
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        assert manager.write_state is WriteState.TORN
        new_id = manager.append_message(ASSISTANT)
        assert manager.write_state is WriteState.IN_STEP
    session = load_session(path)
    assert session.entries[-1]["id"] == new_id and len(session.bad_lines) == 1


def test_a_failed_write_is_the_failed_state(tmp_path: Path) -> None:
    storage = MemorySessionStorage()
    manager = SessionManager.create(tmp_path / "p", agent_dir=tmp_path / "a", storage=storage, term="t")
    manager.append_message(USER)

    def refuse(path: Path) -> None:
        raise OSError(28, "No space left on device", str(path))

    storage.open_writer_sync = refuse  # type: ignore[method-assign,assignment]
    try:
        manager.append_message(ASSISTANT)
    except Exception as exc:
        assert "No space left" in str(exc)
    assert manager.write_state is WriteState.FAILED and manager.persist_error is not None


def test_opening_removes_what_killed_writers_left_in_the_folder(tmp_path: Path) -> None:
    path, agent = written_session(tmp_path)
    dead = dead_pid()
    fork_copy = path.parent / f".2026-01-01T00-00-00-000Z_f0.jsonl.sessiontree-{dead}-12345678.tmp"
    fork_copy.write_bytes(b"x" * 100_000)  # a fork's rewrite cut short: another file's temp
    half_artifacts = path.parent / f".2026-01-01T00-00-00-000Z_f0.sessiontree-{dead}-9abcdef0.tmp"
    (half_artifacts / "nested").mkdir(parents=True)
    (half_artifacts / "nested" / "3.bash.log").write_text("half")
    crumbs = breadcrumb_path(agent, "t").parent
    crumb_tmp = crumbs / f".t.sessiontree-{dead}-0f0f0f0f.tmp"
    crumb_tmp.write_text("/proj\n")
    alive = path.parent / f".{path.name}.sessiontree-{os.getpid()}-00000000.tmp"
    alive.write_text("mine, still being written")
    with SessionManager.open(path, agent_dir=agent, term="t"):
        pass
    assert not fork_copy.exists() and not half_artifacts.exists() and not crumb_tmp.exists()
    assert alive.exists()


def test_a_real_writer_killed_mid_rewrite_leaves_a_temp_file_the_next_open_removes(tmp_path: Path) -> None:
    path, agent = written_session(tmp_path)
    # The child stops for good inside a rewrite, after its temp file is written: then it is killed.
    code = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "import sessiontree.store.persist as persist\n"
        "from sessiontree.store.manager import SessionManager\n"
        "real_lock = persist.FileSessionStorage.lock_sync\n"
        "def lock_then_stop(self, path):\n"
        "    print('stopping', flush=True); os.kill(os.getpid(), signal.SIGSTOP)\n"
        "    return real_lock(self, path)\n"
        "persist.FileSessionStorage.lock_sync = lock_then_stop\n"
        "m = SessionManager.open(Path(sys.argv[1]), agent_dir=Path(sys.argv[2]), term='')  # no breadcrumb\n"
        "m.set_session_name('never')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path), str(agent)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert child.stdout is not None and child.stdout.readline() == "stopping\n"
    child.kill()
    child.communicate(timeout=60)
    left = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and f"sessiontree-{child.pid}-" in left[0].name
    with SessionManager.open(path, agent_dir=agent, term="t"):
        pass
    assert [p for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
    assert load_session(path).title is None  # the killed rewrite changed nothing


def test_fork_copies_artifacts_through_the_storage(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    with SessionManager.create(tmp_path / "proj", agent_dir=agent, term="t") as manager:
        manager.append_message(USER)
        manager.append_message(ASSISTANT)
        assert manager.session_file is not None
        artifacts = artifacts_dir_for(manager.session_file)
        (artifacts / "deep").mkdir(parents=True)
        (artifacts / "deep" / "0.bash.log").write_text("output")
        copies: list[tuple[Path, Path]] = []
        real_copy = FileSessionStorage.copy_tree_sync

        def spy(self: FileSessionStorage, src: Path, dst: Path) -> None:
            copies.append((src, dst))
            real_copy(self, src, dst)

        FileSessionStorage.copy_tree_sync = spy  # type: ignore[method-assign]
        try:
            new_file = manager.fork()
        finally:
            FileSessionStorage.copy_tree_sync = real_copy  # type: ignore[method-assign]
    assert new_file is not None
    assert (artifacts_dir_for(new_file) / "deep" / "0.bash.log").read_text() == "output"
    assert len(copies) == 1 and copies[0][0] == artifacts and copies[0][1].name.endswith(".tmp")
    assert (
        json.loads(new_file.read_text().splitlines()[0])["parentSession"] == manager.header["parentSession"]
    )


def test_copy_artifacts_never_merges_into_an_existing_folder(tmp_path: Path) -> None:
    source, target = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "0.bash.log").write_text("new")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "0.bash.log").write_text("theirs")
    copy_artifacts(FileSessionStorage(), source, target)
    assert (tmp_path / "b" / "0.bash.log").read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
