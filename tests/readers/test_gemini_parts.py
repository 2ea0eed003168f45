"""A Gemini CLI file that holds several sessions (its a2a server's): each one listed, searched,
exported, dumped, served, built and kept on its own (issue 50 item 3, ``store.parts``)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.readers.gemini import GeminiReader
from sessiontree.serve.config import ServeConfig
from sessiontree.store.parts import part_path, split_part
from tests.readers.helpers import run
from tests.serve.conftest import make_client

IDS = ["sess-0", "sess-1", "sess-2"]


def write_chat(folder: Path) -> Path:
    """A chat file of three sessions, a prompt (with a word of its own) and a reply each."""
    path = folder / ".gemini" / "tmp" / "abc" / "chats" / "session-2026-03-01T10-00-abc.jsonl"
    path.parent.mkdir(parents=True)
    lines: list[dict[str, Any]] = []
    for n, sid in enumerate(IDS):
        day = f"2026-03-0{n + 1}T10:00"
        lines.append(
            {"sessionId": sid, "projectHash": "abc", "startTime": f"{day}:00.000Z", "directories": [f"/p{n}"]}
        )
        lines.append({"id": "1", "timestamp": f"{day}:01.000Z", "type": "user", "content": f"ask zebra{n}"})
        reply = {"id": "2", "timestamp": f"{day}:02.000Z", "type": "gemini", "content": f"answer {n}"}
        lines.append({**reply, "model": "gemini-2.5-pro", "tokens": {"input": 10, "output": 5}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def chat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return write_chat(tmp_path)


def _run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_each_session_reads_alone_and_the_file_whole(chat: Path) -> None:
    for n, sid in enumerate(IDS):
        session = load_any(part_path(chat, sid))
        texts = [e["message"]["content"][0]["text"] for e in session.entries]
        assert texts == [f"ask zebra{n}", f"answer {n}"]
        assert session.header["id"] == sid and session.header["cwd"] == f"/p{n}"
        assert split_part(part_path(chat, sid)) == (chat, sid)
    assert len([e for e in load_any(chat).entries if e.get("type") == "message"]) == 6
    code, out, err = run("dump", "--stdout", str(chat))  # the whole file, and how to take one alone
    assert code == 0 and out.count("## User") == 3
    assert f"holds 3 sessions (sess-0, sess-1, sess-2); one alone: {chat}#<id>" in err
    code, out, err = run("inspect", "--json", str(chat))
    assert code == 0 and json.loads(out)["prompts"] == 3 and "holds 3 sessions" in err
    bad = CliRunner().invoke(cli, ["dump", "--stdout", f"{chat}#sess-9"])
    assert bad.exit_code != 0 and "holds no session 'sess-9'" in bad.output and "Traceback" not in bad.output


def test_list_search_export_and_dump_each_session(chat: Path) -> None:
    listed = json.loads(_run("list", "--all", "--json"))
    assert sorted((row["id"], row["path"], row["messageCount"]) for row in listed) == [
        (sid, f"{chat}#{sid}", 2) for sid in IDS
    ]
    out = _run("search", "zebra1")
    assert f"{chat}#sess-1 --leaf sess-1:1" in out and "zebra0" not in out
    assert "\nask zebra1\t" in out  # titled by its own first prompt, not the first session's
    code, out, err = run("stats", "--json")  # each session's usage on its own day, counted once
    assert code == 0, err
    stats = json.loads(out)
    assert stats["total"]["tokens"] == 3 * 15 and len(stats["groups"]) == 3
    assert "answer 1" in _run("dump", "--stdout", "sess-1")  # by its id
    many = CliRunner().invoke(cli, ["dump", "--stdout", "sess-"])
    assert (
        many.exit_code != 0 and "matches 3 sessions: sess-0 (gemini), sess-1 (gemini), sess-2" in many.output
    )
    text = _run("dump", "--stdout", f"{chat}#sess-2")  # by the path the listing gives
    assert "answer 2" in text and "answer 1" not in text
    _run("export", "sess-0", str(chat.parent.parent / "out.html"))
    page = (chat.parent.parent / "out.html").read_text(encoding="utf-8")
    assert "ask zebra0" in page and "ask zebra1" not in page


@pytest.mark.anyio
async def test_serve_lists_and_shows_each_session(chat: Path, tmp_path: Path) -> None:
    root = chat.parents[2]
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    key = chat.relative_to(root).as_posix()
    async with make_client(config) as client:
        index = (await client.get("/")).text
        for n, sid in enumerate(IDS):
            assert quote(f"{key}#{sid}") in index or f"{key}%23{sid}" in index
            page = await client.get(f"/s/{quote(key + '#' + sid)}")
            assert page.status_code == 200 and f"ask zebra{n}" in page.text
            assert f"ask zebra{(n + 1) % 3}" not in page.text
        whole = await client.get(f"/s/{key}")  # the file's own address still answers: the whole file
        assert whole.status_code == 200 and "ask zebra2" in whole.text
        export = await client.get(f"/export/{quote(key)}%23sess-1")  # the session's own page, to keep
        assert export.status_code == 200 and "ask zebra1" in export.text and "ask zebra2" not in export.text
        raw = await client.get(f"/raw/{quote(key)}%23sess-1")  # the file the session is in
        assert raw.status_code == 200 and raw.content == chat.read_bytes()
        found = (await client.get("/api/search", params={"q": "zebra1"})).json()
        [hit] = found["hits"]
        assert hit["session"] == f"/s/{quote(key)}%23sess-1" and "zebra1" in hit["snippet"]


def test_build_makes_a_page_of_each_session(chat: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    out = _run("build", "-o", str(site), "--no-search", "-q")
    assert "3 rendered" in out
    pages = sorted((site / "sessions").rglob("*.html"))
    assert len(pages) == 3
    for n in range(3):
        [page] = [p for p in pages if f"ask zebra{n}" in p.read_text(encoding="utf-8")]
        assert f"ask zebra{(n + 1) % 3}" not in page.read_text(encoding="utf-8")
    index = (site / "index.html").read_text(encoding="utf-8")
    assert all(f"ask zebra{n}" in index for n in range(3))
    assert "0 rendered, 3 unchanged" in _run("build", "-o", str(site), "--no-search", "-q")


def test_keep_brings_back_each_session_of_a_deleted_file(chat: Path) -> None:
    from sessiontree.archive.keep.manifest import Places
    from sessiontree.archive.keep.run import keep

    root = chat.parents[2]
    keep([root])
    chat.unlink()
    report = keep([root])
    assert report.gone == 1 and Places.default().kept.exists()
    listed = json.loads(_run("list", "--all", "--json"))
    assert sorted(row["id"] for row in listed) == IDS
    [copy] = {split_part(Path(row["path"]))[0] for row in listed}
    assert copy != chat and copy.name == chat.name
    assert "answer 1" in _run("dump", "--stdout", f"{copy}#sess-1")


@settings(max_examples=25, deadline=None)
@given(layout=st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_the_sessions_of_a_file_are_its_entries_split(layout: list[int]) -> None:
    """Any number of sessions of any length: read one by one, they hold the whole file's entries
    (its 'began' notices aside), each only its own; a file of one session has no parts."""
    with tempfile.TemporaryDirectory(prefix="st-parts-") as tmp:
        path = Path(tmp) / "session-x.jsonl"
        lines: list[dict[str, Any]] = []
        for n, count in enumerate(layout):
            lines.append({"sessionId": f"s{n}", "projectHash": "h", "startTime": "2026-03-01T10:00:00Z"})
            for m in range(count):
                kind = "user" if m % 2 == 0 else "gemini"
                stamp = "2026-03-01T10:00:01.000Z"
                lines.append({"id": str(m), "timestamp": stamp, "type": kind, "content": f"{n}.{m}"})
        path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        ids = GeminiReader().session_ids(path)
        whole = [e["id"] for e in load_any(path).entries if e.get("customType") != "gemini:info"]
        # Sessions that wrote nothing before the first that did are none of their own.
        first = next((n for n, count in enumerate(layout) if count), len(layout) - 1)
        if len(layout) - first == 1:
            assert ids in ([], [f"s{first}"]) and whole == [str(m) for m in range(layout[first])]
            return
        assert ids == [f"s{n}" for n in range(first, len(layout))]
        parts = [[e["id"] for e in load_any(part_path(path, sid)).entries] for sid in ids]
        assert [i for part in parts for i in part] == whole
        assert all(i.startswith(f"{sid}:") for sid, part in zip(ids, parts, strict=True) for i in part)
        assert [len(part) for part in parts] == layout[first:]


@pytest.mark.parametrize("verb", ["resume", "fork", "move"])
def test_a_write_verb_refuses_one_session_of_the_file_in_one_line(chat: Path, verb: str) -> None:
    before = chat.read_bytes()
    args = [verb, str(part_path(chat, IDS[1]))] + (["/tmp"] if verb == "move" else [])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "is a Gemini CLI session" in lines[0], result.output
    assert chat.read_bytes() == before
    assert sorted(p.name for p in chat.parent.iterdir()) == [chat.name]
