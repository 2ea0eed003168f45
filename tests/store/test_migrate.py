from __future__ import annotations

from typing import Any

from sessiontree.store.migrate import migrate_to_current


def test_v1_gets_ids_linear_chain_and_compaction_id() -> None:
    header = {"type": "session", "id": "s1"}
    entries: list[dict[str, Any]] = [
        {"type": "message", "message": {"role": "user", "content": "a"}},
        {"type": "message", "message": {"role": "hookMessage", "content": "h"}},
        {"type": "compaction", "summary": "S", "firstKeptEntryIndex": 2, "tokensBefore": 5},
        {"type": "model_change", "provider": "anthropic", "modelId": "claude"},
    ]
    applied = migrate_to_current(header, entries)
    assert applied == ["v1->v2", "v2->v3", "model_change provider/modelId->model"]
    assert header["version"] == 3
    ids = [e["id"] for e in entries]
    assert len(set(ids)) == 4 and all(len(i) == 8 and int(i, 16) >= 0 for i in ids)
    assert [e["parentId"] for e in entries] == [None, ids[0], ids[1], ids[2]]
    # index 0 is the header line, so index 2 is the second entry
    assert entries[2]["firstKeptEntryId"] == ids[1] and "firstKeptEntryIndex" not in entries[2]
    assert entries[1]["message"]["role"] == "custom"
    assert entries[3] == {
        "type": "model_change",
        "model": "anthropic/claude",
        "id": ids[3],
        "parentId": ids[2],
    }


def test_v1_compaction_index_out_of_range_or_header_is_dropped() -> None:
    for index in (0, 99, "2", True):
        entries = [{"type": "compaction", "summary": "S", "firstKeptEntryIndex": index}]
        migrate_to_current({"type": "session", "id": "s"}, entries)
        assert "firstKeptEntryId" not in entries[0] and "firstKeptEntryIndex" not in entries[0]


def test_v2_only_renames_hook_messages() -> None:
    header = {"type": "session", "id": "s", "version": 2}
    entries = [{"type": "message", "id": "x", "parentId": None, "message": {"role": "hookMessage"}}]
    assert migrate_to_current(header, entries) == ["v2->v3"]
    assert entries[0] == {"type": "message", "id": "x", "parentId": None, "message": {"role": "custom"}}


def test_v3_is_untouched() -> None:
    header: dict[str, Any] = {"type": "session", "id": "s", "version": 3}
    entries: list[dict[str, Any]] = [
        {"type": "message", "id": "x", "parentId": None, "message": {"role": "hookMessage"}}
    ]
    assert migrate_to_current(header, entries) == []
    assert entries[0]["message"]["role"] == "hookMessage"


def test_ids_are_deterministic_per_session() -> None:
    def ids(session_id: str) -> list[str]:
        entries: list[dict[str, Any]] = [{"type": "message", "message": {}} for _ in range(50)]
        migrate_to_current({"type": "session", "id": session_id}, entries)
        return [e["id"] for e in entries]

    assert ids("s") == ids("s") and ids("s") != ids("t")
