"""One path scheme per built page: no two inputs (session keys, subagent pages) map to one output."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.site.layout import page_path, subagent_page_path
from tests.cli.test_archive_bad_input import run
from tests.readers.helpers import TOUR

_NAME = st.text(alphabet=st.sampled_from("aA0._-~ é/%\\x"), min_size=1, max_size=12).filter(
    lambda s: "/" not in s and s not in (".", "..")
)
_TRAPS = [
    "s.agent-a1",
    "s~agent-a1",
    "w",
    "--w--",
    "w___",
    "a.html",
    "agent-a1",
    "s",
    "~",
    "x~0123456789abcdef",
]
_SEGMENT = st.one_of(_NAME, st.sampled_from(_TRAPS))


def _key(parts: list[str]) -> str:
    return "/".join(parts) + ".jsonl"


def _outputs(keys: set[str], agents: set[str]) -> dict[str, tuple[str, ...]]:
    """Every page a build can write for these keys, mapped to what asked for it."""
    made: dict[str, set[tuple[str, ...]]] = {}
    for key in keys:
        page = page_path(key)
        made.setdefault(page, set()).add(("session", key))
        for agent in agents:  # a Claude Code subagent's page beside its session's
            made.setdefault(subagent_page_path(page, agent), set()).add(("subagent", key, agent))
    clashes = {page: sorted(sources) for page, sources in made.items() if len(sources) > 1}
    assert not clashes, clashes
    return {page: next(iter(sources)) for page, sources in made.items()}


@settings(max_examples=400, deadline=None)
@given(
    st.sets(st.lists(_SEGMENT, min_size=1, max_size=3).map(_key), max_size=12),
    st.sets(st.one_of(_NAME, st.sampled_from(["a1", "A1", "a 1", "0123456789abcdef"])), max_size=4),
)
def test_no_two_inputs_map_to_one_page(keys: set[str], agents: set[str]) -> None:
    _outputs(keys, agents)


def test_the_names_that_used_to_clash_do_not() -> None:
    outputs = _outputs({"s.agent-a1.jsonl", "s.jsonl", "--w--.jsonl", "w---c8ba0c2879.jsonl"}, {"a1"})
    assert outputs["sessions/s.agent-a1.html"] == ("session", "s.agent-a1.jsonl")
    assert outputs["sessions/s~agent-a1.html"] == ("subagent", "s.jsonl", "a1")
    for page in outputs:
        assert re.fullmatch(r"[A-Za-z0-9._~/-]+", page), page  # URL-safe as it is


def test_a_session_named_like_a_subagent_page_keeps_its_own_page(tmp_path: Path) -> None:
    root = tmp_path / "projects" / "-home-dev-tour"
    shutil.copytree(TOUR.parent, root)
    twin = root / f"{TOUR.stem}.agent-a1b2c3d.jsonl"  # a session of its own, named like the subagent's page
    twin.write_text(TOUR.read_text().replace(TOUR.stem, "5e55a0b1-0000-4000-8000-0000000000ff"))
    site = tmp_path / "site"
    built = run("build", "--root", str(tmp_path / "projects"), "-o", str(site), "--no-search", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    pages = sorted(p.name for p in (site / "sessions").rglob("*.html"))
    assert pages == sorted([f"{TOUR.stem}.html", f"{TOUR.stem}~agent-a1b2c3d.html", f"{twin.stem}.html"])
    index = (site / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="(sessions/[^"]+)"', index)
    assert sorted(Path(link).name for link in links) == sorted([f"{TOUR.stem}.html", f"{twin.stem}.html"])
    twin_page = next(site.rglob(f"{twin.stem}.html")).read_text(encoding="utf-8")
    assert "0000000000ff" in twin_page  # its own transcript, not the subagent's
