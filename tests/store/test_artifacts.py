"""ArtifactManager, AgentOutputManager and the temporary-dir fallback, on real directories."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sessiontree.errors import ArtifactError
from sessiontree.store.artifacts import (
    AgentOutputManager,
    ArtifactManager,
    agent_output_ids,
    artifact_ids,
    artifacts_dir_for,
    task_artifacts_dir,
)


def test_artifacts_dir_is_the_session_path_without_jsonl(tmp_path: Path) -> None:
    session = tmp_path / "sessions" / "--work--" / "2026-01-01T00-00-00-000Z_abc123.jsonl"
    assert artifacts_dir_for(session) == session.parent / "2026-01-01T00-00-00-000Z_abc123"


@pytest.mark.parametrize("name", ["session.json", "notes.txt", ".jsonl", "x.jsonl.bak"])
def test_artifacts_dir_refuses_a_non_session_path(tmp_path: Path, name: str) -> None:
    with pytest.raises(ArtifactError, match="Not a session file"):
        artifacts_dir_for(tmp_path / name)


def test_missing_dir_starts_at_zero_and_counts_up(tmp_path: Path) -> None:
    manager = ArtifactManager(tmp_path / "missing")
    assert manager.list_files() == []
    slots = [manager.allocate("bash"), manager.allocate("python"), manager.allocate("bash")]
    assert [s.id for s in slots] == ["0", "1", "2"]
    assert slots[1].path == tmp_path / "missing" / "1.python.log"
    assert slots[2].url == "artifact://2"
    # Allocation alone creates nothing on disk.
    assert not (tmp_path / "missing").exists()


def test_resume_continues_after_the_highest_existing_id(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    first = ArtifactManager.for_session(session)
    for text in ("a", "b", "c"):
        first.save("bash", text)
    # A gap and unrelated files must not confuse the scan.
    (tmp_path / "s" / "7.ssh.log").write_text("seven")
    (tmp_path / "s" / "0-Agent.md").write_text("agent")
    (tmp_path / "s" / "notes.log").write_text("not an artifact")
    resumed = ArtifactManager.for_session(session)
    slot = resumed.save("python", "new")
    assert slot.id == "8"
    assert (tmp_path / "s" / "0.bash.log").read_text() == "a"
    assert (tmp_path / "s" / "7.ssh.log").read_text() == "seven"
    assert slot.path.read_text() == "new"


def test_forked_copy_continues_numbering(tmp_path: Path) -> None:
    old = ArtifactManager.for_session(tmp_path / "old.jsonl")
    old.save("bash", "zero")
    old.save("bash", "one")
    shutil.copytree(tmp_path / "old", tmp_path / "new")
    forked = ArtifactManager.for_session(tmp_path / "new.jsonl")
    assert forked.save("bash", "two").id == "2"
    assert (tmp_path / "new" / "1.bash.log").read_text() == "one"


def test_save_never_overwrites_a_file_created_behind_its_back(tmp_path: Path) -> None:
    manager = ArtifactManager(tmp_path)
    manager.allocate("bash")  # scanned: next is 1
    (tmp_path / "1.bash.log").write_text("someone else")
    with pytest.raises(FileExistsError):
        manager.save("bash", "mine")
    assert (tmp_path / "1.bash.log").read_text() == "someone else"


@pytest.mark.parametrize("tool_type", ["", "../x", "a/b", "a.b", "x" * 65, "bash\n"])
def test_bad_tool_type_is_refused(tmp_path: Path, tool_type: str) -> None:
    with pytest.raises(ArtifactError, match="Invalid tool type"):
        ArtifactManager(tmp_path).allocate(tool_type)


def test_id_helpers_read_names() -> None:
    names = ["0.bash.log", "12.python.log", "3.x.log", "a.bash.log", "4.md", "0-A.md", "1-B.2-C.md", "x.log"]
    assert artifact_ids(names) == [0, 3, 12]
    assert agent_output_ids(names) == ["0-A", "1-B.2-C", "4"]


def test_agent_ids_are_index_dash_requested_id(tmp_path: Path) -> None:
    manager = AgentOutputManager(tmp_path)
    assert manager.allocate("Explorer") == "0-Explorer"
    assert manager.allocate("Reviewer") == "1-Reviewer"


def test_agent_ids_nest_under_a_parent_prefix(tmp_path: Path) -> None:
    child = AgentOutputManager(tmp_path, parent_prefix="0-Parent")
    assert child.allocate("Child") == "0-Parent.0-Child"
    assert child.allocate("Other") == "0-Parent.1-Other"
    grandchild = AgentOutputManager(tmp_path, parent_prefix="0-Parent.1-Other")
    assert grandchild.allocate("Leaf") == "0-Parent.1-Other.0-Leaf"


def test_agent_ids_continue_after_existing_md_files(tmp_path: Path) -> None:
    for name in ("0-Parent.md", "1-Second.md", "0-Parent.0-Child.md", "0-Parent.4-Child.md", "notes.md"):
        (tmp_path / name).write_text("x")
    assert AgentOutputManager(tmp_path).allocate("Next") == "2-Next"
    assert AgentOutputManager(tmp_path, parent_prefix="0-Parent").allocate("C") == "0-Parent.5-C"
    assert AgentOutputManager(tmp_path, parent_prefix="1-Second").allocate("C") == "1-Second.0-C"


def test_agent_write_creates_the_md_file_and_resume_continues(tmp_path: Path) -> None:
    directory = tmp_path / "art"
    first = AgentOutputManager(directory)
    out = first.write("Explorer", "# Found\n")
    assert out == "0-Explorer"
    assert (directory / "0-Explorer.md").read_text() == "# Found\n"
    assert AgentOutputManager(directory).write("Explorer", "again") == "1-Explorer"


@pytest.mark.parametrize(
    ("requested", "expected"),
    [("../../etc/passwd", "0-______etc_passwd"), ("a.b", "0-a_b"), ("", "0-agent"), ("ok-id_1", "0-ok-id_1")],
)
def test_requested_ids_are_made_safe(tmp_path: Path, requested: str, expected: str) -> None:
    manager = AgentOutputManager(tmp_path)
    output_id = manager.allocate(requested)
    assert output_id == expected
    assert manager.path_for(output_id).parent == tmp_path


@pytest.mark.parametrize("prefix", ["..", "a/b", "0-A..1-B", ".0-A", "0-A.", "/abs"])
def test_bad_parent_prefix_is_refused(tmp_path: Path, prefix: str) -> None:
    with pytest.raises(ArtifactError, match="Invalid parent output id"):
        AgentOutputManager(tmp_path, parent_prefix=prefix)


def test_agent_manager_without_directory(tmp_path: Path) -> None:
    manager = AgentOutputManager(None)
    assert manager.allocate("A") == "0-A"
    with pytest.raises(ArtifactError, match="No artifacts directory found"):
        manager.path_for("0-A")


def test_task_without_session_gets_a_temporary_dir(tmp_path: Path) -> None:
    directory, temporary = task_artifacts_dir(None)
    try:
        assert temporary
        assert directory.is_dir()
        assert list(directory.iterdir()) == []
        out = AgentOutputManager(directory).write("Sub", "result")
        assert (directory / f"{out}.md").read_text() == "result"
        other, _ = task_artifacts_dir(None)
        assert other != directory
        other.rmdir()
    finally:
        shutil.rmtree(directory)


def test_task_with_session_uses_its_dir(tmp_path: Path) -> None:
    directory, temporary = task_artifacts_dir(tmp_path / "abc.jsonl")
    assert (directory, temporary) == (tmp_path / "abc", False)
    assert not directory.exists()
