"""serve with another agent's files: the live page of a Claude Code / Codex file reloads when it grows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.serve.config import ServeConfig
from sessiontree.serve.live import LiveSession
from tests.readers.helpers import CODEX_NEW, TOUR
from tests.serve.conftest import make_client

NEXT_PROMPT = {
    "parentUuid": "s-2", "isSidechain": False, "type": "user", "uuid": "u-next", "sessionId": TOUR.stem,
    "timestamp": "2026-01-05T10:00:00.000Z", "message": {"role": "user", "content": "and one more thing"},
}  # fmt: skip


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(TOUR.parent, tmp_path / "projects" / "-home-dev-tour")
    return tmp_path / "projects" / "-home-dev-tour" / TOUR.name


def test_a_growing_claude_file_is_read_whole_again(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    live = LiveSession(path, image_prefix="/blobs/")
    live.load()
    assert live.session.header["agent"] == "claude"
    assert len(live.session.entries) == len(load_any(TOUR).entries)
    assert live.refresh() == []
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(NEXT_PROMPT) + "\n")
    [event] = live.refresh()
    assert event.name == "replaced" and event.data["reason"] == "foreign"
    assert live.session.tree.by_id["u-next"]["parentId"] == "L26"  # linked as the reader links it
    assert live.session.leaf_id == "u-next"


def test_a_codex_file_follows_too(tmp_path: Path) -> None:
    path = tmp_path / CODEX_NEW.name
    shutil.copy(CODEX_NEW, path)
    live = LiveSession(path, image_prefix="/blobs/")
    live.load()
    before = len(live.session.entries)
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "next"}]}
    line = {"timestamp": "2026-01-06T10:02:00.000Z", "type": "response_item", "payload": prompt}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")
    [event] = live.refresh()
    assert event.name == "replaced" and len(live.session.entries) == before + 1


@pytest.mark.anyio
async def test_serve_lists_and_renders_a_claude_folder(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    config = ServeConfig(roots=(tmp_path / "projects",), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        index = await client.get("/")
        assert index.status_code == 200
        assert 'class="st-agent">Claude Code<' in index.text
        key = path.relative_to(tmp_path / "projects").as_posix()
        page = await client.get(f"/s/{key}")
        assert page.status_code == 200 and "Parser tour: fork, tools, compaction" in page.text
        export = await client.get(f"/export/{key}")
        assert export.status_code == 200 and "Parser tour: fork, tools, compaction" in export.text


@pytest.mark.anyio
async def test_serve_several_roots_keys_by_agent(tmp_path: Path) -> None:
    _copy(tmp_path)
    day = tmp_path / "codex" / "2026" / "01" / "06"
    day.mkdir(parents=True)
    shutil.copy(CODEX_NEW, day / CODEX_NEW.name)
    config = ServeConfig(
        roots=(tmp_path / "projects", tmp_path / "codex"),
        cache_dir=tmp_path / "cache",
        watch=False,
    )
    async with make_client(config) as client:
        index = await client.get("/")
        assert index.status_code == 200
        assert sorted(re.findall(r'class="st-agent">([^<]*)<', index.text)) == ["Claude Code", "Codex CLI"]
        claude = await client.get(f"/s/claude/-home-dev-tour/{TOUR.name}")
        assert claude.status_code == 200 and "Parser tour" in claude.text
        codex = await client.get(f"/s/codex/2026/01/06/{CODEX_NEW.name}")
        assert codex.status_code == 200 and "Make the board render" in codex.text
        assert (await client.get(f"/s/claude/2026/01/06/{CODEX_NEW.name}")).status_code == 404
        assert (await client.get(f"/s/nope/-home-dev-tour/{TOUR.name}")).status_code == 404
        assert (await client.get(f"/raw/codex/2026/01/06/{CODEX_NEW.name}")).content == CODEX_NEW.read_bytes()
