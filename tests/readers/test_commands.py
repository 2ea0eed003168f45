"""Every Claude Code and Codex file (real ones and fixtures) through inspect, export, dump and share."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from tests.conftest import need_shared
from tests.readers.helpers import CLAUDE_FILES, CODEX_FILES, REAL_FILES, run, st_data

FILES = sorted({*CLAUDE_FILES, *CODEX_FILES})


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_real_files_are_all_here() -> None:
    need_shared("the 3 real Codex files (1 ships with the repository)")
    assert len([p for p in REAL_FILES if "/claude/" in str(p)]) == 6
    assert len([p for p in REAL_FILES if "/codex/" in str(p)]) == 3


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[-40:])
def test_inspect(path: Path) -> None:
    before = digest(path)
    code, out, err = run("inspect", "--json", str(path))
    assert code == 0, err
    summary = json.loads(out)
    session = load_any(path)
    assert summary["agent"] == session.header["agent"]
    assert summary["entries"] == len(session.entries)
    assert sum(summary["message_roles"].values()) == sum(1 for e in session.entries if message_of(e))
    code, out, err = run("inspect", str(path))
    assert code == 0 and f"Agent     {summary['agent']}" in out
    assert digest(path) == before


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[-40:])
def test_export(path: Path, tmp_path: Path) -> None:
    before = sorted(p.name for p in path.parent.iterdir())
    out = tmp_path / "page.html"
    code, _, err = run("export", str(path), str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    data = st_data(html)
    session = load_any(path)
    rendered = {e["id"] for e in data["entries"]}
    assert rendered == {e["id"] for e in session.entries}
    assert data["leafId"] == session.leaf_id
    assert sorted(p.name for p in path.parent.iterdir()) == before  # nothing written beside the file


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[-40:])
def test_dump(path: Path) -> None:
    code, out, err = run("dump", "--stdout", str(path))
    session = load_any(path)
    prompts = [m for m in session.context().messages if m["role"] == "user"]
    assert code == 0, err
    assert out.count("\n## User\n") == len(prompts)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: p.name[-40:])
def test_share_through_a_share_script(path: Path, isolated_agent_dir: Path, tmp_path: Path) -> None:
    isolated_agent_dir.mkdir(parents=True, exist_ok=True)
    seen = tmp_path / "shared.html"
    (isolated_agent_dir / "share.py").write_text(
        "import shutil\n"
        f"def share(html_path):\n    shutil.copy(html_path, {str(seen)!r})\n    return 'https://share.invalid/1'\n"
    )
    code, out, err = run("share", "--no-open", "--no-encrypt", str(path))  # the readable page, read below
    assert code == 0, err
    assert "Share URL: https://share.invalid/1" in out
    html = seen.read_text(encoding="utf-8")
    session = load_any(path)
    assert f'"leafId":"{session.leaf_id}"' in html.replace(" ", "")
