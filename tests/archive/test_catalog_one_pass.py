"""A cold listing reads each small pi file in one pass (one open, each line parsed at most once)
and lists what the header read (``read_session_info``) and the line pass (``scan_file``), each
made on its own, give together; another agent's files and damaged ones as before."""

from __future__ import annotations

import builtins
import io
import json
import os
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sessiontree.archive import catalog as catalog_module
from sessiontree.archive.catalog import Catalog
from sessiontree.archive.line_scan import scan_file
from sessiontree.readers.agent_info import agent_info_and_entries
from sessiontree.store.discovery import CHEAP_COUNT_BYTES, SessionInfo, one_line, read_session_info
from tests.conftest import real_file
from tests.store.helpers import assistant, entry, header, msg, write_jsonl

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BOM = b"\xef\xbb\xbf"


def _lines(*values: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(v).encode() + b"\n" for v in values)


def mixed_folder(root: Path) -> Path:
    """pi files of every shape a header read meets, Claude Code's and Codex's, a damaged one."""
    root.mkdir()
    for name in ("omp-newer-entries.jsonl", "pi-roles-and-blocks.jsonl", "damaged-lost-line.jsonl"):
        shutil.copy(FIXTURES / name, root / name)
    shutil.copy(FIXTURES / "claude" / "sample_session.jsonl", root / "claude.jsonl")
    shutil.copy(next((FIXTURES / "codex").glob("rollout-2026-*.jsonl")), root / "codex.jsonl")
    shutil.copy(real_file("pi/pi-mono--session.jsonl"), root / "real-pi.jsonl")
    turns = [
        msg("u1", None, "user", "first **prompt**"),
        assistant("a1", "u1"),
        entry("session_info", "n1", "a1", name="Named later"),
        msg("u2", "n1", "user", "second"),
    ]
    write_jsonl(root / "plain.jsonl", [header("plain", cwd="/work/a"), *turns])
    late = [entry("model_change", f"c{i}", None, model="m") for i in range(60)]
    write_jsonl(root / "late-prompt.jsonl", [header("late", cwd="/work/b"), *late, *turns])
    untimed = [{k: v for k, v in e.items() if k != "timestamp"} for e in late[:55]]
    later = "2026-02-16T11:00:00.000Z"  # a header rewritten after its first entries
    write_jsonl(root / "untimed-head.jsonl", [header("untimed", timestamp=later), *untimed, *turns])
    write_jsonl(root / "untimed-few.jsonl", [header("few", timestamp=later), *untimed[:10], *turns])
    (root / "bom.jsonl").write_bytes(
        BOM + _lines(header("bom"), *turns) + BOM + _lines(msg("u9", None, "user", "x"))
    )
    (root / "half-written.jsonl").write_bytes(_lines(header("half"), *turns)[:-1])
    (root / "header-only-half.jsonl").write_bytes(_lines(header("alone"))[:-1])
    (root / "blank-lines.jsonl").write_bytes(b"\n \n" + _lines(header("blank")) + b"\n\n" + _lines(*turns))
    reordered = json.dumps(
        {"id": "u0", "message": {"content": "reordered", "role": "user"}, "type": "message"}
    )
    (root / "reordered.jsonl").write_bytes(_lines(header("reord")) + reordered.encode() + b"\n")
    (root / "not-pi.jsonl").write_bytes(_lines({"type": "other"}, {"type": "session", "id": "x"}))
    (root / "empty.jsonl").write_bytes(b"")
    return root


def expected_pi(path: Path) -> tuple[SessionInfo, list[list[Any]]] | None:
    """A pi file's record from the header read and the line pass made apart (as before the one pass)."""
    info = read_session_info(path)
    if info is None:
        return None
    scan = scan_file(path, None)
    title = scan.rename or info.title
    found = replace(
        info,
        title=one_line(title or "") or None,
        message_count=scan.messages,
        prompt_count=scan.prompts,
        last_activity=scan.last,
    )
    return found, scan.usage


SHOWN = ("id", "cwd", "title", "first_message", "created", "message_count", "prompt_count")
SHOWN_TOO = ("last_activity", "parent_session", "agent", "error")


def shown(info: SessionInfo) -> dict[str, Any]:
    return {name: getattr(info, name) for name in SHOWN + SHOWN_TOO}


def check_listing(root: Path, catalog: Catalog) -> None:
    usage = {e.key: rows for e, rows in catalog.usage_listed()}
    listed = {e.key: e for e in catalog.entries()}
    assert len(listed) == len(list(root.glob("*.jsonl")))
    for key, got in listed.items():
        path = root / key
        want = expected_pi(path)
        if want is not None:
            assert shown(got) == shown(want[0]), key
            assert usage[key] == want[1], key
            continue
        other, _ = agent_info_and_entries(path)
        if other is None or other.agent == "pi":
            assert got.error == "not a session file", key
        else:
            assert (got.agent, got.id, got.message_count) == (other.agent, other.id, other.message_count), key


def test_cold_listing_is_what_the_header_read_and_the_line_pass_give(tmp_path: Path) -> None:
    root = mixed_folder(tmp_path / "mixed")
    catalog = Catalog(root, tmp_path / "cache")
    catalog.scan()
    check_listing(root, catalog)
    listed = {e.key: e for e in catalog.entries()}
    assert listed["plain.jsonl"].title == "Named later"
    assert listed["late-prompt.jsonl"].first_message == "first **prompt**"
    assert listed["untimed-head.jsonl"].created == "2026-02-16T11:00:00.000Z"  # its entries' come too late
    assert listed["untimed-few.jsonl"].created == "2026-02-16T10:21:00.000Z"
    assert listed["half-written.jsonl"].message_count == 2  # the last line, unfinished, not yet
    assert listed["bom.jsonl"].id == "bom" and listed["reordered.jsonl"].first_message == "reordered"
    assert listed["damaged-lost-line.jsonl"].error is None
    assert listed["claude.jsonl"].agent == "claude" and listed["codex.jsonl"].agent == "codex"


def test_a_growing_file_lists_as_a_cold_read_of_it(tmp_path: Path) -> None:
    root = mixed_folder(tmp_path / "mixed")
    catalog = Catalog(root, tmp_path / "cache")
    catalog.scan()
    more = _lines(entry("session_info", "n2", None, name="Grown"), msg("u5", None, "user", "grown"))
    for name in ("plain.jsonl", "half-written.jsonl", "header-only-half.jsonl"):
        with open(root / name, "ab") as fh:
            fh.write(more if name == "plain.jsonl" else b"\n" + more)  # the half-written line ends
    catalog.scan()
    check_listing(root, catalog)
    cold = Catalog(root)
    cold.scan()
    assert [shown(e) for e in cold.entries()] == [shown(e) for e in catalog.entries()]
    assert cold.usage_listed() == catalog.usage_listed()
    grown = {e.key: e for e in catalog.entries()}
    assert grown["plain.jsonl"].title == "Grown" and grown["plain.jsonl"].message_count == 4
    assert grown["header-only-half.jsonl"].message_count == 1
    assert grown["half-written.jsonl"].message_count == 4


def test_a_cold_listing_opens_each_small_pi_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = mixed_folder(tmp_path / "mixed")
    small = [p for p in root.glob("*.jsonl") if p.stat().st_size <= CHEAP_COUNT_BYTES]
    pi = {p.name for p in small if read_session_info(p) is not None}
    opened: Counter[str] = Counter()
    os_open, io_open, read_entry = os.open, io.open, catalog_module.read_entry
    reading: list[Path] = []

    def counted_os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        opened[Path(path).name] += bool(reading)
        return os_open(path, *args, **kwargs)

    def counted_io_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(file, int):
            opened[Path(file).name] += bool(reading)
        return io_open(file, *args, **kwargs)

    def counted_read_entry(root: Path, path: Path, *args: Any, **kwargs: Any) -> Any:
        reading.append(path)  # the folder's agent is judged from its first files before: not counted
        try:
            return read_entry(root, path, *args, **kwargs)
        finally:
            reading.pop()

    monkeypatch.setattr(os, "open", counted_os_open)
    monkeypatch.setattr(io, "open", counted_io_open)
    monkeypatch.setattr(builtins, "open", counted_io_open)
    monkeypatch.setattr(catalog_module, "read_entry", counted_read_entry)
    Catalog(root).scan()
    monkeypatch.undo()
    assert len(pi) >= 10
    assert {name: opened[name] for name in pi} == dict.fromkeys(pi, 1)
    assert opened["claude.jsonl"] >= 1  # the count sees what read_entry opens
