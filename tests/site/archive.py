"""A generated sessions archive for the site builder's tests (plain functions, used by two conftests)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import GenSession

PHRASE = "quartz heron protocol"
"""Planted deep inside one assistant message, for full-text search."""


@dataclass
class Archive:
    agent: Path
    root: Path
    """The sessions folder (agent/sessions)."""
    app: list[Path]
    v1: Path
    corrupt: Path
    junk: Path
    planted: tuple[Path, str]
    """The session holding PHRASE and the id of the entry it is in."""


def _with_header(src: Path, dst: Path, **fields: str) -> None:
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header.update(fields)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(json.dumps(header) + "\n" + "".join(lines[1:]), encoding="utf-8")


def plant(path: Path, phrase: str) -> str:
    """Put ``phrase`` in the middle of the last assistant text block; return that entry's id."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    for i in range(len(lines) - 1, 0, -1):
        entry = json.loads(lines[i])
        message = entry.get("message") or {}
        if message.get("role") != "assistant":
            continue
        for block in message.get("content", []):
            if block.get("type") == "text" and len(block["text"]) > 40:
                text = block["text"]
                block["text"] = text[: len(text) // 2] + f" {phrase} " + text[len(text) // 2 :]
                lines[i] = json.dumps(entry) + "\n"
                path.write_text("".join(lines), encoding="utf-8")
                return str(entry["id"])
    raise AssertionError("no assistant text to plant the phrase in")


def make_archive(tmp_path: Path, gen_session: GenSession) -> Archive:
    """Two projects, a shared blob, a v1 file, a damaged file, a file that is not a session."""
    agent = tmp_path / "agent"
    root = agent / "sessions"
    app_dir = root / "--home-dev-app--"
    lib_dir = root / "--home-dev-lib--"
    with_blobs = gen_session(20, seed=3, blobs=True)
    shutil.copytree(with_blobs.parent / "blobs", agent / "blobs")
    app = [app_dir / "2026-11-01_a.jsonl", app_dir / "2026-11-02_b.jsonl", app_dir / "2026-11-03_c.jsonl"]
    _with_header(with_blobs, app[0], id="sess-a", cwd="/home/dev/app")
    _with_header(gen_session(15, seed=4), app[1], id="sess-b", cwd="/home/dev/app")
    _with_header(gen_session(12, seed=5), app[2], id="sess-c", cwd="/home/dev/app")
    # The same images in another project: one blob, two sessions.
    shared = lib_dir / "2026-11-04_shared.jsonl"
    _with_header(with_blobs, shared, id="sess-shared", cwd="/home/dev/lib")
    v1 = lib_dir / "2026-10-01_v1.jsonl"
    shutil.copyfile(gen_session(10, version=1, seed=6), v1)
    corrupt = lib_dir / "2026-11-05_corrupt.jsonl"
    _with_header(gen_session(10, seed=8), corrupt, id="sess-corrupt", cwd="/home/dev/lib")
    lines = corrupt.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(len(lines) // 2, '{"type":"message","id":"broken", "message": {tru\n')
    corrupt.write_text("".join(lines), encoding="utf-8")
    junk = lib_dir / "notes.jsonl"
    junk.write_text("this is not a session\n", encoding="utf-8")
    entry_id = plant(app[1], PHRASE)
    return Archive(agent, root, app, v1, corrupt, junk, (app[1], entry_id))


def snapshot_tree(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under ``folder`` with its mtime and bytes (to prove a read path changed nothing)."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def page_stamps(site: Path) -> dict[str, tuple[int, int]]:
    """(inode, mtime) of every session page: a page written again is a new file by rename."""
    return {
        p.relative_to(site).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
        for p in (site / "sessions").rglob("*.html")
    }
