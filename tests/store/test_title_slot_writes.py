"""oh-my-pi's 256-byte title slot survives the write path: appends, renames and rewrites."""

from __future__ import annotations

import shutil
from pathlib import Path

from sessiontree.store import load_session
from sessiontree.store.entries import TITLE_SLOT_BYTES, title_slot_line
from sessiontree.store.manager import SessionManager

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def omp_copy(tmp_path: Path) -> Path:
    path = tmp_path / "omp.jsonl"
    shutil.copyfile(FIXTURES / "omp-newer-entries.jsonl", path)
    return path


def user(text: str) -> dict:  # type: ignore[type-arg]
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def test_appends_leave_the_slot_line_byte_identical(tmp_path: Path) -> None:
    path = omp_copy(tmp_path)
    slot = path.read_bytes()[:TITLE_SLOT_BYTES]
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        assert manager.title_slot is not None
        manager.append_message(user("one more"))
    data = path.read_bytes()
    assert data[:TITLE_SLOT_BYTES] == slot
    assert load_session(path).entries[-1]["message"]["content"][0]["text"] == "one more"


def test_a_rewrite_keeps_the_slot_first_and_fixed_width(tmp_path: Path) -> None:
    path = omp_copy(tmp_path)
    slot = path.read_bytes()[:TITLE_SLOT_BYTES]
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        manager.rewrite_entries()
    assert path.read_bytes()[:TITLE_SLOT_BYTES] == slot
    session = load_session(path)
    assert session.id == "019f0a00-0000-7000-8000-000000000001" and len(session.entries) == 14


def test_a_rename_rewrites_the_slot_title_in_its_256_bytes(tmp_path: Path) -> None:
    path = omp_copy(tmp_path)
    with SessionManager.open(path, agent_dir=tmp_path / "agent", term="t") as manager:
        manager.set_session_name("Widget: flaky snapshot test fixed")
    first = path.read_bytes().split(b"\n", 1)[0]
    assert len(first) + 1 == TITLE_SLOT_BYTES
    session = load_session(path)
    assert session.title_slot is not None
    assert session.title_slot["title"] == "Widget: flaky snapshot test fixed"
    assert session.title_slot["source"] == "user"


def test_a_title_too_long_for_the_slot_is_shortened_to_fit() -> None:
    line = title_slot_line({"type": "title", "v": 1, "title": "x" * 400, "source": "auto", "updatedAt": "t"})
    assert len(line.encode()) + 1 == TITLE_SLOT_BYTES
    assert '"title":"xxx' in line
    wide = title_slot_line({"type": "title", "v": 1, "title": "é" * 200, "updatedAt": "t"})
    assert len(wide.encode()) + 1 == TITLE_SLOT_BYTES
