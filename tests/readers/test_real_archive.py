"""Every real Claude Code and Codex file through search, stats and build (laid out as the agents do)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from sessiontree.cli import cli
from sessiontree.readers import load_any
from sessiontree.store.entries import message_of
from tests.conftest import HAVE_SHARED
from tests.readers.helpers import REAL

AGENT_FILE = "agent-ea02459f.jsonl"
# Every real Claude Code and Codex file but the subagent transcript is a session: with ../shared 5 + 3,
# in a clone alone the shipped ones (5 + 2 marot/spotter Claude Code files, and 1 Codex file).
SESSIONS = sum(
    1
    for agent in ("claude", "codex")
    for path in (REAL / agent).glob("*.jsonl")
    if not path.name.endswith(AGENT_FILE)
)
assert SESSIONS == 8 if HAVE_SHARED else SESSIONS >= 6


def _lay_out(tmp_path: Path) -> tuple[Path, Path, dict[Path, Path]]:
    """Copy the real files under a Claude and a Codex root with the names the agents give them."""
    claude, codex = tmp_path / "claude-projects", tmp_path / "codex-sessions"
    placed: dict[Path, Path] = {}
    for source in sorted((REAL / "claude").glob("*.jsonl")):
        project, _, name = source.name.rpartition("_")
        target = claude / project.split("projects_", 1)[-1] / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        placed[source] = target
    for index, source in enumerate(sorted((REAL / "codex").glob("*.jsonl"))):
        target = codex / "2025" / "11" / f"{index + 10}" / f"rollout-{index}.jsonl"
        target.parent.mkdir(parents=True)
        shutil.copy(source, target)
        placed[source] = target
    return claude, codex, placed


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_real_files_through_search_stats_and_build(tmp_path: Path) -> None:
    claude, codex, placed = _lay_out(tmp_path)
    roots = ["--root", str(claude), "--root", str(codex)]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    code, out, err = _run("stats", *roots, *cache, "--by", "session", "--json")
    assert code == 0, err
    keys = {g["key"] for g in json.loads(out)["groups"]}
    sessions = {t for t in placed.values() if t.name != AGENT_FILE}  # the subagent counts in its session
    with_usage = {
        str(t) for t in sessions if any((message_of(e) or {}).get("usage") for e in load_any(t).entries)
    }
    assert keys == with_usage and len(sessions) == SESSIONS  # the old Codex format records no token counts
    code, out, err = _run("search", "BeautifulSoup", *roots, *cache, "--json", "--limit", "50")
    assert code == 0, err
    assert any("cb2e607c" in hit["path"] for hit in json.loads(out))
    site = tmp_path / "site"
    code, out, err = _run("build", *roots, "-o", str(site), "--no-search", "--no-usage", "-q")
    assert code == 0, err + out
    pages = [p for p in (site / "sessions").rglob("*.html") if "~agent-" not in p.name]
    assert len(pages) == len(sessions) == SESSIONS
    # the 2.0-layout subagent file beside its session has a page of its own, not a listing
    assert [p.name for p in (site / "sessions").rglob("*~agent-*.html")] == [
        "cb2e607c-c758-415a-8b45-c49e4631906a~agent-ea02459f.html"
    ]
