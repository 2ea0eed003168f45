"""Fixtures shared by every test: an isolated agent dir, no browser opening, generated sessions."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import webbrowser
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

# The suite draws the same examples every run, in CI and in a new clone (a red run is then a
# change, never a new random draw); SESSIONTREE_RANDOM_DRAWS=1 draws anew, to hunt new cases.
settings.register_profile("fixed", derandomize=True, print_blob=True)
settings.register_profile("random", print_blob=True)
settings.load_profile("random" if os.environ.get("SESSIONTREE_RANDOM_DRAWS") == "1" else "fixed")

ROOT = Path(__file__).resolve().parents[1]
SHARED_ENV = "SESSIONTREE_SHARED"
"""Names the team's shared folder when it is not ../shared (tests reach it only through this module)."""


def find_shared(root: Path) -> Path | None:
    """The shared folder beside a checkout: ../shared of a clone, ../../shared of a git worktree."""
    return next((p / "shared" for p in (root.parent, root.parent.parent) if (p / "shared").is_dir()), None)


SHARED = Path(os.environ.get(SHARED_ENV) or find_shared(ROOT) or ROOT.parent / "shared").resolve()
# A clone of this repository alone has no ../shared: the licence-cleared real files and a copy of
# the generator ship in tests/ (tests/fixtures/real/README.md); the rest is skipped, or an error
# under CI, where ../shared is always laid beside the clone.
HAVE_SHARED = (SHARED / "fixtures" / "real").is_dir()
SHIPPED_REAL = ROOT / "tests" / "fixtures" / "real"
REAL = SHARED / "fixtures" / "real" if HAVE_SHARED else SHIPPED_REAL
GEN_SESSION = SHARED / "tools" / "gen_session.py"
if not GEN_SESSION.is_file():
    GEN_SESSION = ROOT / "tests" / "tools" / "gen_session.py"
REAL_V1 = (SHARED / "fixtures" if HAVE_SHARED else SHIPPED_REAL) / "real-v1-large-session.jsonl"
IN_A_CLONE = not HAVE_SHARED
"""This run is itself a clone's with no ../shared (a new user's): every test runs as a clone runs it."""
NEEDS_SHARED = "needs ../shared, which is not beside this clone"


def env_without_shared(env: dict[str, str]) -> dict[str, str]:
    """A process environment as a clone alone has it: no shared folder named, no CI."""
    return {k: v for k, v in env.items() if k not in ("CI", SHARED_ENV, "PYTEST_ADDOPTS")}


def need_shared(what: str) -> None:
    """Skip a test that needs a file only ../shared has (set SESSIONTREE_SHARED to run it)."""
    if not HAVE_SHARED:
        pytest.skip(f"{NEEDS_SHARED}: {what}")


def real_file(relative: str) -> Path:
    """One real session file under fixtures/real (claude/..., codex/..., pi/...); skip if not here."""
    path = REAL / relative
    if not path.exists():
        need_shared(f"fixtures/real/{relative}")
    return path


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI") and not HAVE_SHARED:
        raise pytest.UsageError(
            f"CI is set but the team's shared folder is missing ({SHARED}): CI must run every test. "
            "Lay ../shared beside the clone or set SESSIONTREE_SHARED."
        )


ONLY_REAL_FILE_TESTS = "SESSIONTREE_ONLY_REAL_FILE_TESTS"
"""Set to 1 by the clone test: run only the tests that touch a real file (``clone_rules.RealFileUse``)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run first the modules that need a fresh process, then those with slow tests, then the rest.

    Under xdist (``scripts/test``: ``-n 2 --dist loadfile``) a worker takes whole modules in this
    order: a module that forks must find no thread another module left running, and the longest
    ones start early so they overlap the rest instead of ending the run alone. Within a rank the
    order is the collection's; ``@pytest.mark.slow(seconds=N)`` says how long a module's
    slowest test takes where it is much longer than the default 30 s, and the longest go first.
    """

    def rank(module: str) -> tuple[int, float]:
        marks = [m for item in by_module[module] for m in item.iter_markers()]
        if any(m.name == "fresh_process" for m in marks):
            return 0, 0.0
        slow = [float(m.kwargs.get("seconds", 30)) for m in marks if m.name == "slow"]
        return (1, -max(slow)) if slow else (2, 0.0)

    if os.environ.get(ONLY_REAL_FILE_TESTS) == "1":
        from tests.clone_rules import RealFileUse

        uses = RealFileUse()
        kept = [item for item in items if uses.test(item)]
        chosen = set(kept)
        config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
        items[:] = kept
    by_module: dict[str, list[pytest.Item]] = {}
    for item in items:
        by_module.setdefault(item.nodeid.split("::")[0], []).append(item)
    ordered = sorted(by_module, key=rank)  # stable: collection order within a rank
    items[:] = [item for module in ordered for item in by_module[module]]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    skipped = [
        report
        for report in terminalreporter.stats.get("skipped", [])
        if NEEDS_SHARED in str(getattr(report, "longrepr", ""))
    ]
    if skipped:
        terminalreporter.write_line(
            f"{len(skipped)} test(s) skipped because ../shared is not beside this clone "
            "(its real session files whose licence does not allow shipping them); "
            "set SESSIONTREE_SHARED=/path/to/shared to run them.",
            yellow=True,
        )


@pytest.fixture(autouse=True)
def isolated_agent_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the agent dir, HOME and the cache dir at temp dirs so no test touches the user's files."""
    home = tmp_path_factory.mktemp("home")
    agent = home / ".xcsh" / "agent"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SESSIONTREE_AGENT_DIR", str(agent))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))  # the search index's default home
    # keep's archive, shown copies and key follow HOME (a test of two machines is two homes)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "SESSIONTREE_KEEP_DIR", "SESSIONTREE_MACHINE"):
        monkeypatch.delenv(name, raising=False)
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


@contextmanager
def machine_zone(zone: str) -> Iterator[None]:
    """This process's local time zone is ``zone`` (``TZ``, what the CLI shows and counts in)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = before
        time.tzset()


@pytest.fixture
def utc() -> Iterator[None]:
    """This process's local time is UTC."""
    with machine_zone("UTC"):
        yield


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
    """The real v1 session (../shared/fixtures, or its shipped copy; read-only)."""
    assert REAL_V1.exists(), f"missing fixture {REAL_V1}"
    yield REAL_V1
