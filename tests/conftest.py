"""Fixtures shared by every test: an isolated agent dir, no browser opening, generated sessions."""

from __future__ import annotations

import os
import subprocess
import sys
import webbrowser
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# CI draws the same examples every run (a red CI is then a change, never a new random draw);
# at a desk the draws stay random, to keep finding new cases.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside a clone; ../../shared from a git worktree under a sibling folder.
SHARED = Path(
    os.environ.get("SESSIONTREE_SHARED")
    or next(
        (p / "shared" for p in (ROOT.parent, ROOT.parent.parent) if (p / "shared").is_dir()),
        ROOT.parent / "shared",
    )
).resolve()
GEN_SESSION = SHARED / "tools" / "gen_session.py"
REAL_V1 = SHARED / "fixtures" / "real-v1-large-session.jsonl"


@pytest.fixture(autouse=True)
def isolated_agent_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the agent dir, HOME and the cache dir at temp dirs so no test touches the user's files."""
    home = tmp_path_factory.mktemp("home")
    agent = home / ".xcsh" / "agent"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SESSIONTREE_AGENT_DIR", str(agent))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # the search index's default home
    return agent


@pytest.fixture(autouse=True)
def no_browser(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record URLs instead of opening a browser."""
    opened: list[str] = []

    def fake_open(url: str, new: int = 0, autoraise: bool = True) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    monkeypatch.setattr(webbrowser, "open_new_tab", lambda url: fake_open(url))
    return opened


GenSession = Callable[..., Path]


@pytest.fixture(scope="session")
def gen_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gen")


@pytest.fixture
def gen_session(gen_cache: Path) -> GenSession:
    """Generate (once per argument set) a session with ../shared/tools/gen_session.py."""

    def make(
        turns: int = 20, *, version: int = 3, seed: int = 7, blobs: bool = False, fmt: str = "xcsh"
    ) -> Path:
        name = f"t{turns}-v{version}-s{seed}-{'b' if blobs else 'i'}-{fmt}"
        out = gen_cache / name / "session.jsonl"
        if not out.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            args = [sys.executable, str(GEN_SESSION), "--turns", str(turns), "--version", str(version)]
            args += ["--seed", str(seed), "--format", fmt, "-o", str(out)]
            if blobs:
                args += ["--blobs-dir", str(out.parent / "blobs")]
            subprocess.run(args, check=True)
        return out

    return make


@pytest.fixture
def real_v1() -> Iterator[Path]:
    """The real v1 session of ../shared/fixtures (read-only)."""
    assert REAL_V1.exists(), f"missing fixture {REAL_V1}"
    yield REAL_V1
