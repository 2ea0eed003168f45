"""OpenCode's database and ``opencode export`` files: read like its storage folder, and never
touched while a live OpenCode process writes the database."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sessiontree.exporter.fragments import unpack_fragments
from sessiontree.readers import detect_agent, load_any
from sessiontree.store.kinds import summarize
from tests.conftest import ROOT
from tests.readers.helpers import run, st_data
from tests.readers.opencode_db import (
    STORAGE,
    export_document,
    fixture_messages,
    fixture_session,
    insert_message,
    insert_session,
    make_database,
)
from tests.readers.opencode_writer import KEPT
from tests.serve.process import EventReader, page_settings, serve_process

(SESSION_FILE,) = sorted((STORAGE / "session").glob("*/ses_*.json"))


def folder_state(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_the_database_and_an_export_read_as_the_storage_folder(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    info = make_database(db)
    export = tmp_path / "export.json"
    export.write_text(json.dumps(export_document(info), indent=2), encoding="utf-8")
    assert detect_agent(db) == detect_agent(export) == "opencode"
    stored = load_any(SESSION_FILE)
    typed = [m for m, _ in fixture_messages(info["id"]) if m["role"] == "user"]
    for other in (load_any(db), load_any(export)):
        assert summarize(other).prompts == summarize(stored).prompts == len(typed)
        assert [e.get("message", {}).get("role") for e in other.entries] == [
            e.get("message", {}).get("role") for e in stored.entries
        ]
        assert other.entries == stored.entries  # the same parts, the same order, the same usage
        assert other.header["title"] == info["title"] and other.header["cwd"] == info["directory"]


def test_inspect_of_a_database_counts_its_rows(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    info = make_database(db)
    code, out, err = run("inspect", "--json", str(db))
    assert code == 0, err
    summary = json.loads(out)
    replies = [m for m, _ in fixture_messages(info["id"]) if m["role"] == "assistant"]
    assert summary["cost"] == pytest.approx(sum(m["cost"] for m in replies))
    assert summary["tokens"]["input"] == sum(m["tokens"]["input"] for m in replies)
    assert summary["agent"] == "opencode" and summary["title"] == info["title"]


def test_a_large_export_is_told_by_its_first_members(tmp_path: Path) -> None:
    document = export_document(fixture_session())
    filler = {"type": "text", "text": "y" * 4096, "id": "prt_zz", "sessionID": "s", "messageID": "m"}
    document["messages"][-1]["parts"] += [dict(filler, id=f"prt_zz{i:05d}") for i in range(400)]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    assert path.stat().st_size > 1 << 20  # more than detection reads
    assert detect_agent(path) == "opencode"
    assert sum("y" * 4096 in json.dumps(e) for e in load_any(path).entries) >= 1


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[tuple[Path, Path, subprocess.Popen[bytes]]]:
    data = tmp_path / "data"
    data.mkdir()
    control = tmp_path / "control"
    control.mkdir()
    db = data / "opencode.db"
    make_database(db)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.readers.opencode_writer", str(db), str(control)], cwd=ROOT
    )
    try:
        yield db, control, proc
    finally:
        (control / "pause").touch()
        (control / "stop").touch()
        proc.wait(timeout=60)
        data.chmod(0o755)


def wait_for(path: Path, proc: subprocess.Popen[bytes], *, at_least: int = 0) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the writer died"
        try:
            value = int(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            value = -1
        if value >= at_least and value >= 0:
            return value
        os.sched_yield()
    raise AssertionError(f"{path.name} never reached {at_least}")


def ticks_in(db: Path) -> tuple[int, list[int]]:
    session = load_any(db)
    title = int(re.match(r"(\d+) ticks", session.header.get("title", "0 ticks"))[1])  # type: ignore[index]
    text = json.dumps(session.entries)
    return title, sorted(int(n) for n in re.findall(r"tick (\d+) ", text))


def kept_ticks(title: int) -> list[int]:
    """The tick parts a committed state whose title counts ``title`` ticks holds."""
    return list(range(max(1, title - KEPT + 1), title + 1))


def test_a_database_opencode_is_writing_reads_whole_and_its_folder_is_untouched(
    writer: tuple[Path, Path, subprocess.Popen[bytes]],
) -> None:
    db, control, proc = writer
    wait_for(control / "ticks", proc, at_least=1)
    for _ in range(5):  # while it writes (and checkpoints): every read is one committed state
        title, ticks = ticks_in(db)
        assert title >= 1 and ticks == kept_ticks(title)
    (control / "pause").touch()
    written = wait_for(control / "paused", proc)
    assert Path(f"{db}-wal").exists() and Path(f"{db}-shm").exists()  # OpenCode holds it open in WAL mode
    before = folder_state(db.parent)
    db.parent.chmod(stat.S_IRUSR | stat.S_IXUSR)  # a folder we could not write into anyway
    title, ticks = ticks_in(db)
    assert (title, ticks) == (written, kept_ticks(written))  # the WAL's last commit is read
    code, out, err = run("inspect", "--json", str(db))
    assert code == 0, err
    assert json.loads(out)["title"] == f"{written} ticks"
    db.parent.chmod(0o755)
    assert folder_state(db.parent) == before  # byte for byte, and no file made beside it


def test_list_and_stats_find_the_database_in_the_data_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "xdg-data"
    (data / "opencode").mkdir(parents=True)
    info = make_database(data / "opencode" / "opencode.db")
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    before = folder_state(data / "opencode")
    code, out, err = run("list", "--all", "--json")
    assert code == 0, err
    listed = [s for s in json.loads(out) if s.get("agent") == "opencode"]
    assert [s["id"] for s in listed] == [info["id"]] and listed[0]["title"] == info["title"]
    assert folder_state(data / "opencode") == before


def test_serve_shows_what_opencode_adds_to_an_open_session(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    (data / "opencode").mkdir(parents=True)
    home.mkdir()
    db = data / "opencode" / "opencode.db"
    info = make_database(db)
    env = {**os.environ, "XDG_DATA_HOME": str(data), "XDG_CACHE_HOME": str(tmp_path / "xdg-cache")}
    with (
        serve_process(None, tmp_path / "agent", tmp_path / "cache", home=home, env=env) as served,
        httpx.Client(timeout=30) as http,
    ):
        index = http.get(f"{served.url}/")
        (link,) = set(re.findall(r'href="(/s/[^"]*ses_[^"]*\.json)"', index.text))
        page = http.get(f"{served.url}{link}")
        assert page.status_code == 200 and info["title"] in page.text
        settings = page_settings(page.text)
        reader = EventReader(
            http, f"{served.url}{settings['events']}?g={settings['generation']}&n={settings['count']}"
        )
        opencode = sqlite3.connect(db, isolation_level=None)  # OpenCode, still running, adds a prompt
        opencode.execute("PRAGMA journal_mode=WAL")
        message = {"role": "user", "time": {"created": 1763630300000}}
        part = {"type": "text", "text": "and now the humidity too"}
        opencode.execute("INSERT INTO message VALUES ('msg_z1', ?, 1763630300000, 1763630300000, ?)",
                         (info["id"], json.dumps(message)))  # fmt: skip
        opencode.execute("INSERT INTO part VALUES ('prt_z1', 'msg_z1', ?, 1763630300000, 1763630300000, ?)",
                         (info["id"], json.dumps(part)))  # fmt: skip
        event = reader.next_named("append", "replaced")
        assert event.name == "replaced"
        assert "and now the humidity too" in http.get(f"{served.url}{link}").text
        reader.close()
        opencode.close()


def test_every_part_type_of_an_export_is_shown(tmp_path: Path) -> None:
    info = fixture_session()
    sid, t = info["id"], info["time"]["created"]

    def message(mid: str, role: str, agent: str | None = None) -> dict[str, object]:
        body: dict[str, object] = {"id": mid, "sessionID": sid, "role": role, "time": {"created": t}}
        return body | ({"agent": agent, "modelID": "m", "providerID": "p"} if agent else {})

    def part(pid: str, kind: str, **fields: object) -> dict[str, object]:
        return {"id": pid, "sessionID": sid, "messageID": "m", "type": kind, **fields}

    running = {
        "status": "running",
        "input": {"command": "make test"},
        "title": "make test",
        "time": {"start": t},
    }
    messages = [
        {"info": message("msg_1", "user"), "parts": [
            part("p1", "text", text="plan it"), part("p2", "agent", name="plan"),
        ]},
        {"info": message("msg_2", "assistant", "plan"), "parts": [
            part("p3", "reasoning", text="thinking"),
            part("p4", "tool", tool="bash", callID="c1", state=running),
            part("p5", "tool", tool="read", callID="c2", state={"status": "pending", "input": {}}),
        ]},
        {"info": message("msg_3", "assistant", "build"), "parts": [
            part("p6", "subtask", agent="explore", description="find the cache", prompt="look"),
            part("p7", "patch", hash="h", files=["/w/a.py"]), part("p8", "step-finish", cost=0, tokens={}),
            part("p9", "text", text="done"),
        ]},
    ]  # fmt: skip
    path = tmp_path / "export.json"
    path.write_text(json.dumps({"info": info, "messages": messages}), encoding="utf-8")
    shown = {(e.get("customType"), e.get("content")) for e in load_any(path).entries if "customType" in e}
    assert shown == {
        ("opencode:agent", "@plan"),
        ("opencode:running", "running: make test"),
        ("opencode:running", "pending: read"),
        ("opencode:agent", "plan → build"),
        ("opencode:subtask", "explore: find the cache"),
        ("opencode:patch", "/w/a.py"),
    }
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    assert json.loads(out)["prompts"] == 1 and json.loads(out)["message_roles"]["assistant"] == 2


def test_a_subtask_session_hangs_under_the_session_that_ran_it(tmp_path: Path) -> None:
    data = tmp_path / "xdg-data"
    (data / "opencode").mkdir(parents=True)
    db_path = data / "opencode" / "opencode.db"
    info = make_database(db_path)
    child = {
        **info,
        "id": "ses_child0001",
        "title": "Find the cache's callers",
        "time": {"created": 1763630100000, "updated": 1763630101000},
    }
    db = sqlite3.connect(db_path)
    insert_session(db, child, parent=info["id"])
    db.commit()
    db.close()
    from sessiontree.archive.catalog import Catalog
    from sessiontree.readers.discovery import opencode_roots

    [(_, root)] = opencode_roots(data)
    entries = {e.id: e for e in Catalog(root).scan()}
    assert entries["ses_child0001"].parent_session == info["id"]
    assert entries["ses_child0001"].parent_key == entries[info["id"]].key
    code, out, err = run("inspect", "--json", str(entries["ses_child0001"].path))
    assert code == 0, err
    assert json.loads(out)["parent_session"] == info["id"]


def test_the_built_pages_link_a_subtask_session_and_the_session_that_ran_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "xdg-data"
    (data / "opencode").mkdir(parents=True)
    db_path = data / "opencode" / "opencode.db"
    info = make_database(db_path)
    child = {**info, "id": "ses_child0001", "title": "Find the cache's callers",
             "time": {"created": 1763630100000, "updated": 1763630101000}}  # fmt: skip
    t = 1763630200000
    task = {"id": "msg_zz_task", "sessionID": info["id"], "role": "assistant", "agent": "build",
            "modelID": "m", "providerID": "p", "time": {"created": t}}  # fmt: skip
    ran = {"status": "completed", "input": {"description": "find the callers", "prompt": "look"},
           "output": "They are in api.py.", "title": "find the callers",
           "metadata": {"sessionId": "ses_child0001"}, "time": {"start": t, "end": t}}  # fmt: skip
    parts: list[dict[str, Any]] = [
        {"id": "prt_zz_1", "type": "subtask", "agent": "explore", "description": "find the callers",
         "prompt": "look"},
        {"id": "prt_zz_2", "type": "tool", "tool": "task", "callID": "call_task", "state": ran},
    ]  # fmt: skip
    db = sqlite3.connect(db_path)
    insert_session(db, child, parent=info["id"])
    insert_message(db, task, parts)
    db.commit()
    db.close()
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    site = tmp_path / "site"
    code, _, err = run("build", "--agent", "opencode", "-o", str(site), "--no-search", "-q")
    assert code == 0, err
    [parent_page] = site.rglob(f"{info['id']}.json.html")
    [child_page] = site.rglob("ses_child0001.json.html")
    parent_html = parent_page.read_text(encoding="utf-8")
    down = re.search(r'<dd class="st-children">(.*?)</dd>', parent_html)
    up = re.search(r'<dd class="st-parent">(.*?)</dd>', child_page.read_text(encoding="utf-8"))
    assert down is not None and up is not None
    assert [(parent_page.parent / h).resolve() for h in re.findall(r'href="([^"]*)"', down[1])] == [
        child_page.resolve()
    ]
    assert [(child_page.parent / h).resolve() for h in re.findall(r'href="([^"]*)"', up[1])] == [
        parent_page.resolve()
    ]
    assert "Find the cache&#39;s callers" in down[1]
    # The task that ran the subtask links to the session it ran in, at its result.
    fragments = "".join(unpack_fragments(st_data(parent_html)["frags"]))
    task_links = re.findall(r'<a href="([^"]*)">Open the session this task ran in</a>', fragments)
    assert [(parent_page.parent / h).resolve() for h in task_links] == [child_page.resolve()]
