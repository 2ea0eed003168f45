"""A Codex subagent thread (a rollout whose ``session_meta`` says another thread spawned it) names
its parent in inspect, dump and its page, and the listing hangs it under the parent's rollout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sessiontree.archive.catalog import Catalog, group_by_project
from sessiontree.pages.export import export_to_file
from tests.readers.helpers import CODEX_NEW, raw_objects, run

CHILD = "019b0000-aaaa-7bbb-8ccc-0000000000c1"


def line(ts: str, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}) + "\n"


def write_child(folder: Path, parent: str) -> Path:
    """A rollout as Codex writes a spawned thread: its own meta (source: subagent thread_spawn),
    then the meta of the thread it was forked from, then its task and reply."""
    spawn = {"thread_spawn": {"parent_thread_id": parent, "depth": 1, "agent_nickname": "Euler",
                              "agent_role": "worker"}}  # fmt: skip
    meta = {"id": CHILD, "timestamp": "2026-01-06T10:05:00.000Z", "cwd": "/home/dev/chess",
            "originator": "codex_cli_rs", "cli_version": "0.80.0", "source": {"subagent": spawn},
            "model_provider": "openai"}  # fmt: skip
    parent_meta = next(o["payload"] for o in raw_objects(CODEX_NEW) if o["type"] == "session_meta")
    task = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "Check the pawn moves"}],
    }
    reply = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "They are fine."}],
    }
    path = folder / f"rollout-2026-01-06T10-05-00-{CHILD}.jsonl"
    path.write_text(
        line("2026-01-06T10:05:00.000Z", "session_meta", meta)
        + line("2026-01-06T10:05:00.000Z", "session_meta", parent_meta)
        + line("2026-01-06T10:05:01.000Z", "response_item", task)
        + line("2026-01-06T10:05:02.000Z", "response_item", reply),
        encoding="utf-8",
    )
    return path


def test_the_thread_names_its_parent_and_the_listing_nests_it(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    shutil.copy(CODEX_NEW, day / CODEX_NEW.name)
    parent = next(o["payload"]["id"] for o in raw_objects(CODEX_NEW) if o["type"] == "session_meta")
    child = write_child(day, parent)
    code, out, err = run("inspect", "--json", str(child))
    assert code == 0, err
    assert json.loads(out)["parent_session"] == parent and json.loads(out)["id"] == CHILD
    code, out, err = run("inspect", str(child))
    assert f"Parent    {parent}" in out
    code, out, err = run("dump", "--stdout", str(child))
    assert code == 0, err
    assert f"Spawned by: {parent}" in out
    page = export_to_file(child, tmp_path / "child.html").read_text(encoding="utf-8")
    assert "Spawned by" in page and parent in page
    entries = Catalog(tmp_path / "sessions").scan()
    by_id = {e.id: e for e in entries}
    assert by_id[CHILD].parent_key == by_id[parent].key
    (group,) = group_by_project(entries)
    [node] = group.nodes
    assert node.entry.id == parent and [c.entry.id for c in node.children] == [CHILD]
