"""The renderer renders what was loaded: no file is opened or looked at during a render.

The reader that owns a format finds and reads the subagent transcripts; the page, the fragment
cache's keys and the nested transcripts are all made from that loaded session. Only the cache
module may touch the disk while a page is made (its SQLite file).
"""

from __future__ import annotations

import builtins
import io
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sessiontree.exporter import RenderOptions, iter_page, render_session
from sessiontree.exporter.fragment_cache import FragmentCache
from sessiontree.readers import load_any
from sessiontree.store import Session

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
OMP = FIXTURES / "omp-subagent" / "2026-03-02T09-00-00-000Z_019f0b00.jsonl"
TOUR = FIXTURES / "claude" / "tour" / "5e55a0b1-0000-4000-8000-00000000000a.jsonl"
CACHE_MODULE = "sessiontree.exporter.fragment_cache"


def _page(session: Session, cache: FragmentCache | None) -> str:
    options = RenderOptions(parallel=False, cache=cache, subagent_href=lambda agent: f"sub/{agent}.html")
    return "".join(iter_page(render_session(session, options)))


def _from_cache_module() -> bool:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") == CACHE_MODULE:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _guard(touched: list[str], name: str, real: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        if not _from_cache_module():
            touched.append(f"{name}{args[:1]!r}")
        return real(*args, **kwargs)

    return guarded


@pytest.fixture
def touched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The file system calls made from now on (the cache module's own left out)."""
    seen: list[str] = []
    for owner, names in (
        (builtins, ("open",)),
        (io, ("open", "open_code")),
        (os, ("open", "stat", "lstat", "scandir", "listdir", "access", "readlink")),
    ):
        for name in names:
            monkeypatch.setattr(owner, name, _guard(seen, f"{owner.__name__}.{name}", getattr(owner, name)))
    yield seen


@pytest.mark.parametrize("source", [OMP, TOUR], ids=["oh-my-pi subagents", "Claude Code subagents"])
@pytest.mark.parametrize("cached", [False, True], ids=["no cache", "cache"])
def test_a_render_touches_no_file_outside_its_cache(
    source: Path, cached: bool, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    shutil.copytree(source.parent, tmp_path / "s")
    _page(load_any(tmp_path / "s" / source.name), None)  # templates and lexers loaded once
    session = load_any(tmp_path / "s" / source.name)
    session.subagents.load_all()  # what the reader resolves lazily, resolved before the guard
    cache = FragmentCache(tmp_path / "cache") if cached else None
    try:
        touched: list[str] = request.getfixturevalue("touched")
        first = _page(session, cache)  # the cache filled
        again = _page(session, cache)  # the cache read
    finally:
        if cache is not None:
            cache.close()
    assert touched == []
    assert again == first
    assert "st-subagent" in first  # the subagent really is on the page (embedded or linked)


def test_a_render_reads_the_subagent_the_session_holds_not_its_file(tmp_path: Path) -> None:
    shutil.copytree(OMP.parent, tmp_path / "s")
    session = load_any(tmp_path / "s" / OMP.name)
    session.subagents.load_all()
    shutil.rmtree(tmp_path / "s")  # the files are gone; the loaded session is all a page needs
    assert "Subagent finding: cache.py line 41" in _frags_text(session)


def _frags_text(session: Session) -> str:
    from tests.share.sessions import page_text

    return page_text(_page(session, None))
