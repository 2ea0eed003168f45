"""SessionManager: appends, leaf moves, labels, names, rewrites and the persistence timeline."""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessiontree.errors import EntryNotFound, SessiontreeError
from sessiontree.store.load import load_session
from sessiontree.store.manager import SessionManager
from sessiontree.store.persist import MAX_PERSIST_CHARS, TRUNCATION_NOTICE
from sessiontree.store.storage import MemorySessionStorage


def user(text: str = "hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str = "ok") -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}], "provider": "p", "model": "m"}


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    return tmp_path / "agent"


@pytest.fixture
def manager(tmp_path: Path, agent: Path) -> Iterator[SessionManager]:
    with SessionManager.create(tmp_path / "proj", agent_dir=agent, term="test-term") as opened:
        yield opened


def file_lines(manager: SessionManager) -> list[dict[str, Any]]:
    assert manager.session_file is not None
    return [json.loads(line) for line in manager.session_file.read_text().splitlines()]


def test_new_session_ids_and_file_name(manager: SessionManager, tmp_path: Path, agent: Path) -> None:
    assert re.fullmatch(r"[0-9a-f]{16}", manager.session_id)
    assert manager.session_file is not None
    assert (
        manager.session_file.parent
        == agent / "sessions" / f"--{str(tmp_path / 'proj').lstrip('/').replace('/', '-')}--"
    )
    name = manager.session_file.name
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f]{16}\.jsonl", name)
    assert name.endswith(f"_{manager.session_id}.jsonl")
    assert manager.header["timestamp"].replace(":", "-").replace(".", "-") == name.split("_")[0]
    assert manager.header["cwd"] == str(tmp_path / "proj") and manager.header["version"] == 3


def test_nothing_is_written_before_the_first_assistant_message(manager: SessionManager) -> None:
    manager.append_session_init("system prompt", tools=["read"])
    manager.append_model_change("p/m")
    manager.append_message(user())
    manager.flush()
    assert manager.session_file is not None and not manager.session_file.exists()
    manager.append_message(assistant())
    lines = file_lines(manager)
    assert [line["type"] for line in lines] == [
        "session",
        "session_init",
        "model_change",
        "message",
        "message",
    ]
    assert lines[0]["id"] == manager.session_id


def test_after_the_first_flush_each_append_adds_one_line(manager: SessionManager) -> None:
    manager.append_message(user())
    manager.append_message(assistant())
    before = manager.session_file.read_bytes() if manager.session_file else b""
    entry_id = manager.append_message(user("next"))
    after = manager.session_file.read_bytes() if manager.session_file else b""
    assert after.startswith(before)  # appended, not rewritten
    added = after[len(before) :].decode().splitlines()
    assert len(added) == 1 and json.loads(added[0])["id"] == entry_id
    manager.close()


def test_every_append_method_makes_one_child_of_the_leaf(manager: SessionManager) -> None:
    first = manager.append_message(user())
    appends = [
        lambda: manager.append_message(assistant()),
        lambda: manager.append_thinking_level_change("high"),
        lambda: manager.append_model_change("openai/gpt-4o", role="default"),
        lambda: manager.append_compaction("sum", first, 42000, short_summary="s", details={"readFiles": []}),
        lambda: manager.append_custom_entry("ext", {"state": 1}),
        lambda: manager.append_custom_message_entry("ext", "Injected", True, {"debug": False}),
        lambda: manager.append_label_change(first, "checkpoint"),
        lambda: manager.append_ttsr_injection(["ruleA", "ruleB"]),
        lambda: manager.append_session_init(
            "prompt", task="t", tools=["read"], output_schema={"type": "object"}
        ),
        lambda: manager.append_mode_change("plan", {"planFile": "/tmp/plan.md"}),
    ]
    for append in appends:
        leaf = manager.leaf_id
        count = len(manager.get_entries())
        new_id = append()
        assert len(manager.get_entries()) == count + 1
        entry = manager.get_entries()[-1]
        assert entry["id"] == new_id == manager.leaf_id and entry["parentId"] == leaf
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry["timestamp"])
    types = [e["type"] for e in manager.get_entries()]
    assert types == [
        *("message", "message", "thinking_level_change", "model_change", "compaction", "custom"),
        *("custom_message", "label", "ttsr_injection", "session_init", "mode_change"),
    ]
    manager.close()
    loaded = load_session(manager.session_file or "")
    assert loaded.entries == manager.get_entries()
    ctx = loaded.context()
    assert (
        ctx.thinking_level == "high" and ctx.mode == "plan" and ctx.injected_ttsr_rules == ["ruleA", "ruleB"]
    )
    assert ctx.models["default"] == "openai/gpt-4o"


def test_entry_fields_follow_the_spec(manager: SessionManager) -> None:
    first = manager.append_message(user())
    comp = manager.get_entry(manager.append_compaction("S", first, 10, from_extension=False))
    assert comp is not None
    assert {k: comp[k] for k in ("summary", "firstKeptEntryId", "tokensBefore", "fromExtension")} == {
        "summary": "S",
        "firstKeptEntryId": first,
        "tokensBefore": 10,
        "fromExtension": False,
    }
    assert "shortSummary" not in comp  # optional fields left out when not given
    change = manager.get_entry(manager.append_model_change("a/b"))
    assert change is not None and "role" not in change and change["model"] == "a/b"


def test_entry_ids_are_eight_hex_and_unique(manager: SessionManager) -> None:
    ids = [manager.append_custom_entry("x") for _ in range(3000)]
    assert all(re.fullmatch(r"[0-9a-f]{8}", i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_branch_moves_only_the_leaf(manager: SessionManager) -> None:
    a = manager.append_message(user("a"))
    manager.append_message(assistant("b"))
    entries_before = manager.get_entries()
    manager.branch(a)
    assert manager.leaf_id == a and manager.get_entries() == entries_before
    c = manager.append_message(user("c"))
    assert manager.get_entry(c)["parentId"] == a  # type: ignore[index]
    assert [e["id"] for e in manager.get_branch()] == [a, c]
    with pytest.raises(EntryNotFound, match="nope"):
        manager.branch("nope")


def test_reset_leaf_starts_a_new_root(manager: SessionManager) -> None:
    manager.append_message(user())
    manager.reset_leaf()
    assert manager.leaf_id is None and manager.build_context().messages == []
    root = manager.append_message(user("again"))
    assert manager.get_entry(root)["parentId"] is None  # type: ignore[index]


def test_branch_with_summary(manager: SessionManager) -> None:
    a = manager.append_message(user("a"))
    manager.append_message(assistant())
    summary_id = manager.branch_with_summary(a, "tried X", details={"n": 1}, from_extension=True)
    entry = manager.get_entry(summary_id)
    assert entry is not None
    assert entry["type"] == "branch_summary" and entry["parentId"] == a and entry["fromId"] == a
    assert entry["details"] == {"n": 1} and entry["fromExtension"] is True
    root_summary = manager.get_entry(manager.branch_with_summary(None, "from the top"))
    assert root_summary is not None and root_summary["fromId"] == "root" and root_summary["parentId"] is None
    with pytest.raises(EntryNotFound):
        manager.branch_with_summary("missing", "x")


def test_labels_set_and_clear(manager: SessionManager) -> None:
    a = manager.append_message(user())
    manager.append_label_change(a, "checkpoint")
    assert manager.get_label(a) == "checkpoint"
    manager.append_label_change(a, None)
    assert manager.get_label(a) is None
    cleared = manager.get_entries()[-1]
    assert cleared["type"] == "label" and "label" not in cleared
    with pytest.raises(EntryNotFound):
        manager.append_label_change("ghost", "x")


def test_set_session_name_before_and_after_the_first_flush(manager: SessionManager) -> None:
    manager.append_message(user())
    manager.set_session_name("early")
    assert manager.session_file is not None and not manager.session_file.exists()
    manager.append_message(assistant())
    assert file_lines(manager)[0]["title"] == "early"
    manager.set_session_name("later")
    lines = file_lines(manager)
    assert lines[0]["title"] == "later" and len(lines) == 3
    manager.append_message(user("after rename"))  # the writer reopens on the rewritten file
    manager.close()
    assert load_session(manager.session_file).title == "later"
    assert len(load_session(manager.session_file).entries) == 3


def test_rewrite_entries_persists_in_place_edits(manager: SessionManager) -> None:
    manager.append_message(user())
    call = manager.append_message(
        {**assistant(), "content": [{"type": "toolCall", "id": "t1", "name": "x", "arguments": {"a": 1}}]}
    )
    entry = manager.get_entry(call)
    assert entry is not None
    entry["message"]["content"][0]["arguments"] = {"a": 2}
    manager.rewrite_entries()
    manager.close()
    loaded = load_session(manager.session_file or "")
    assert loaded.tree.by_id[call]["message"]["content"][0]["arguments"] == {"a": 2}
    assert loaded.leaf_id == manager.leaf_id


def test_images_are_refs_on_disk_and_inline_in_memory(manager: SessionManager, agent: Path) -> None:
    data = base64.b64encode(b"\x89PNG" + bytes(2000)).decode()
    manager.append_message(
        {"role": "user", "content": [{"type": "image", "data": data, "mimeType": "image/png"}]}
    )
    manager.append_message(assistant())
    on_disk = file_lines(manager)[1]["message"]["content"][0]["data"]
    assert on_disk.startswith("blob:sha256:")
    assert (agent / "blobs" / on_disk.removeprefix("blob:sha256:")).exists()
    assert manager.get_entries()[0]["message"]["content"][0]["data"] == data
    loaded = load_session(manager.session_file or "", agent_dir=agent)
    assert loaded.entries[0]["message"]["content"][0]["data"] == data and loaded.missing_blobs == []


def test_large_strings_are_truncated_on_disk_only(manager: SessionManager) -> None:
    big = "q" * (MAX_PERSIST_CHARS + 5)
    manager.append_message(assistant())
    manager.append_message({"role": "toolResult", "toolCallId": "t", "content": big, "partialJson": "{"})
    stored = file_lines(manager)[-1]["message"]
    assert len(stored["content"]) == MAX_PERSIST_CHARS and stored["content"].endswith(TRUNCATION_NOTICE)
    assert "partialJson" not in stored
    assert manager.get_entries()[-1]["message"]["content"] == big


def test_append_message_needs_a_role(manager: SessionManager) -> None:
    with pytest.raises(SessiontreeError, match="role"):
        manager.append_message({"content": "x"})


def test_in_memory_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_agent_dir: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    manager = SessionManager.in_memory(tmp_path)
    manager.append_message(user())
    manager.append_message(assistant())
    manager.set_session_name("n")
    manager.flush()
    assert manager.session_file is None and manager.fork() is None
    assert isinstance(manager.storage, MemorySessionStorage) and manager.storage.files == {}
    assert list(tmp_path.iterdir()) == [] and not isolated_agent_dir.exists()
    assert len(manager.build_context().messages) == 2
    manager.close()


def test_memory_storage_with_persistence_on(tmp_path: Path) -> None:
    storage = MemorySessionStorage()
    manager = SessionManager.create(tmp_path / "p", agent_dir=tmp_path / "a", storage=storage, term="t")
    manager.append_message(user())
    manager.append_message(assistant())
    manager.append_message(user("3"))
    assert manager.session_file is not None
    text = storage.files[manager.session_file].decode()
    assert len(text.splitlines()) == 4
    assert not (tmp_path / "a").exists()  # breadcrumbs went to the storage too


def test_appends_from_many_threads_are_serialised(manager: SessionManager) -> None:
    manager.append_message(assistant())

    def work(n: int) -> None:
        for i in range(150):
            manager.append_message(user(f"thread {n} message {i} " + "x" * (i * 37 % 3000)))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    manager.flush()
    loaded = load_session(manager.session_file or "")
    assert loaded.bad_lines == [] and len(loaded.entries) == 1 + 6 * 150
    assert loaded.entries == manager.get_entries()
    # Every entry's parent is the entry appended just before it: one chain, no interleaving.
    ids = [e["id"] for e in loaded.entries]
    assert [e["parentId"] for e in loaded.entries] == [None, *ids[:-1]]
