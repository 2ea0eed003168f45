"""A subagent transcript that is a link leading out of its session's folder is never read for a
page: not for an export, the served page, its ``/export/`` or a built page (issue 36.4); and a
changed subagent is seen by the whole-page cache (issue 36.7)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.serve.config import ServeConfig
from tests.serve.conftest import make_client
from tests.share.sessions import page_text

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OMP = FIXTURES / "omp-subagent" / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"
TOUR_ID = "5e55a0b1-0000-4000-8000-00000000000a"
TOUR = FIXTURES / "claude" / "tour"
OUTSIDE = "a line from outside the roots"


def _outside(tmp_path: Path, source: Path) -> Path:
    """A copy of a subagent transcript outside the roots, carrying a marker."""
    target = tmp_path / "elsewhere" / source.name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        source.read_text(encoding="utf-8").replace("Subagent finding", OUTSIDE), encoding="utf-8"
    )
    return target


def _omp_root(tmp_path: Path) -> Path:
    """A sessions root whose oh-my-pi subagent transcript is a link to a file outside it."""
    project = tmp_path / "sessions" / "--work-omp--"
    project.mkdir(parents=True)
    shutil.copy(OMP, project / OMP.name)
    shutil.copytree(OMP.with_suffix(""), project / OMP.stem)
    link = project / OMP.stem / "0-Explore.jsonl"
    target = _outside(tmp_path, link)
    link.unlink()
    link.symlink_to(target)
    return tmp_path / "sessions"


def test_a_linked_out_omp_subagent_is_not_a_subagent(tmp_path: Path) -> None:
    root = _omp_root(tmp_path)
    session = load_any(root / "--work-omp--" / OMP.name)
    assert session.subagents.ids() == []
    out = tmp_path / "page.html"
    assert CliRunner().invoke(cli, ["export", str(root / "--work-omp--" / OMP.name), str(out)]).exit_code == 0
    assert OUTSIDE not in page_text(out.read_text(encoding="utf-8"))


def test_a_linked_out_claude_subagent_is_not_read(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-dev-tour"
    shutil.copytree(TOUR, project)
    link = project / TOUR_ID / "subagents" / "agent-a1b2c3d.jsonl"
    text = link.read_text(encoding="utf-8")
    target = tmp_path / "elsewhere" / link.name
    target.parent.mkdir()
    target.write_text(text.replace('"text":"', f'"text":"{OUTSIDE} ', 1), encoding="utf-8")
    assert OUTSIDE in target.read_text(encoding="utf-8")
    link.unlink()
    link.symlink_to(target)
    session = load_any(project / f"{TOUR_ID}.jsonl")
    assert session.subagents.ids() == []
    assert OUTSIDE not in repr(session.entries)


@pytest.mark.anyio
async def test_serve_and_its_export_read_nothing_outside_the_root(tmp_path: Path) -> None:
    root = _omp_root(tmp_path)
    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache", watch=False)
    async with make_client(config) as client:
        for route in ("/s/", "/export/"):
            page = await client.get(f"{route}--work-omp--/{OMP.name}")
            assert page.status_code == 200
            assert OUTSIDE not in page_text(page.text)


def test_build_reads_nothing_outside_the_root(tmp_path: Path) -> None:
    root = _omp_root(tmp_path)
    site = tmp_path / "site"
    result = CliRunner().invoke(cli, ["build", "--root", str(root), "-o", str(site), "--no-search", "-q"])
    assert result.exit_code == 0, result.output
    pages = [p for p in site.rglob("*.html")]
    assert pages and not any(
        OUTSIDE in page_text(p.read_text(encoding="utf-8"))
        for p in pages
        if "st-data" in p.read_text(encoding="utf-8")
    )


def test_the_page_cache_sees_a_changed_omp_subagent(tmp_path: Path) -> None:
    project = tmp_path / "s"
    shutil.copytree(OMP.parent, project)
    parent, sub = project / OMP.name, project / OMP.stem / "0-Explore.jsonl"
    out, cache = tmp_path / "page.html", tmp_path / "cache"
    args = ["export", str(parent), str(out), "--cache-dir", str(cache)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert "Subagent finding" in page_text(out.read_text(encoding="utf-8"))
    sub.write_text(
        sub.read_text(encoding="utf-8").replace("Subagent finding", "Changed finding"), encoding="utf-8"
    )
    stat = sub.stat()
    os.utime(sub, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert "Changed finding" in page_text(out.read_text(encoding="utf-8"))
