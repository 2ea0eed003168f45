"""A Codex subagent thread (a rollout whose ``session_meta`` says another thread spawned it) names
its parent in inspect, dump and its page, and the listing hangs it under the parent's rollout."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

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


def _day_with_both(tmp_path: Path) -> tuple[Path, str]:
    day = tmp_path / "sessions" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    shutil.copy(CODEX_NEW, day / CODEX_NEW.name)
    parent = next(o["payload"]["id"] for o in raw_objects(CODEX_NEW) if o["type"] == "session_meta")
    write_child(day, parent)
    return day, parent


def _hrefs(page: str, css: str) -> list[str]:
    found = re.search(rf'<dd class="{css}">(.*?)</dd>', page)
    return re.findall(r'href="([^"]*)"', found[1]) if found else []


def test_the_built_pages_link_the_parent_and_its_thread_both_ways(tmp_path: Path) -> None:
    _day_with_both(tmp_path)
    site = tmp_path / "site"
    code, _, err = run("build", "--root", str(tmp_path / "sessions"), "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    [parent_page] = site.rglob(CODEX_NEW.with_suffix(".html").name)
    [child_page] = site.rglob(f"*{CHILD}.html")
    down = _hrefs(parent_page.read_text(encoding="utf-8"), "st-children")
    up = _hrefs(child_page.read_text(encoding="utf-8"), "st-parent")
    assert [(parent_page.parent / h).resolve() for h in down] == [child_page.resolve()]
    assert [(child_page.parent / h).resolve() for h in up] == [parent_page.resolve()]
    assert "Check the pawn moves" in parent_page.read_text(encoding="utf-8")  # the child's first prompt


@pytest.mark.anyio
async def test_the_served_pages_link_the_parent_and_its_thread_both_ways(tmp_path: Path) -> None:
    from sessiontree.serve.config import ServeConfig
    from tests.serve.conftest import make_client

    _day_with_both(tmp_path)
    config = ServeConfig(roots=(tmp_path / "sessions",), cache_dir=tmp_path / "cache", watch=False)
    parent_key = f"2026/01/06/{CODEX_NEW.name}"
    child_key = f"2026/01/06/rollout-2026-01-06T10-05-00-{CHILD}.jsonl"
    async with make_client(config) as client:
        assert (await client.get("/")).status_code == 200  # the listing is scanned
        parent_page = (await client.get(f"/s/{parent_key}")).text
        child_page = (await client.get(f"/s/{child_key}")).text
    assert [h.endswith(child_key) for h in _hrefs(parent_page, "st-children")] == [True]
    assert [h.endswith(parent_key) for h in _hrefs(child_page, "st-parent")] == [True]


def test_an_export_alone_names_the_parent_without_a_link(tmp_path: Path) -> None:
    day, parent = _day_with_both(tmp_path)
    child = next(day.glob(f"*{CHILD}.jsonl"))
    page = export_to_file(child, tmp_path / "child.html").read_text(encoding="utf-8")
    assert parent in page and _hrefs(page, "st-parent") == []


def test_a_thread_that_appears_later_renders_its_parent_page_again(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    shutil.copy(CODEX_NEW, day / CODEX_NEW.name)
    site = tmp_path / "site"
    build = ("build", "--root", str(tmp_path / "sessions"), "-o", str(site), "--no-search")
    code, out, err = run(*build)
    assert code == 0 and "1 rendered" in out, err
    [parent_page] = site.rglob(CODEX_NEW.with_suffix(".html").name)
    assert _hrefs(parent_page.read_text(encoding="utf-8"), "st-children") == []
    parent = next(o["payload"]["id"] for o in raw_objects(CODEX_NEW) if o["type"] == "session_meta")
    write_child(day, parent)
    code, out, err = run(*build)
    assert code == 0 and "2 rendered, 0 unchanged" in out, (out, err)
    assert len(_hrefs(parent_page.read_text(encoding="utf-8"), "st-children")) == 1
    code, out, err = run(*build)
    assert code == 0 and "0 rendered, 2 unchanged" in out, (out, err)
