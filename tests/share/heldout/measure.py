"""Run the held-out corpus through ``share`` (a fake ``gh`` on PATH) and score the uploaded pages."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from sessiontree.share.publish import share_session
from tests.share.conftest import FAKE_GH
from tests.share.heldout.generate import Case, draw_cases
from tests.share.heldout.lookalikes import Lookalike, draw_lookalikes
from tests.share.heldout.sessions import AGENTS, Score, survived, write_agent_session
from tests.share.heldout.slots import draw_slot_cases
from tests.share.planted import shown_text

Share = Callable[[Path], str]


@contextmanager
def fake_gh_on_path(root: Path) -> Iterator[Path]:
    """Put a fake ``gh`` first on PATH (for scripts; tests use the ``fake_gh`` fixture)."""
    bin_dir, record = root / "bin", root / "gh-record"
    bin_dir.mkdir(parents=True, exist_ok=True)
    record.mkdir(exist_ok=True)
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH.replace("{python}", sys.executable))
    gh.chmod(0o755)
    saved = {
        k: os.environ.get(k) for k in ("PATH", "FAKE_GH_DIR", "FAKE_GH_MODE", "GH_TOKEN", "GITHUB_TOKEN")
    }
    os.environ.update(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", FAKE_GH_DIR=str(record))
    os.environ["FAKE_GH_MODE"] = "ok"
    try:
        yield record
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def gh_share(agent_dir: Path, record: Path) -> Share:
    """Return a share function: share a file, return all the text that went up (page, name, description)."""

    def share(path: Path) -> str:
        # The readable page: what the redactor let through (an encrypted upload would hide it all).
        share_session(path, agent_dir, notify=lambda _: None, encrypt=False)
        calls = [json.loads(line) for line in (record / "calls.jsonl").read_text().splitlines()]
        create = [c for c in calls if c[:2] == ["gist", "create"]][-1]
        uploaded = (record / "uploaded.html").read_text(encoding="utf-8")
        name = Path((record / "uploaded-path").read_text()).name
        return "\n".join([shown_text(uploaded), name, *create])

    return share


def score_heldout(
    seed: int,
    workdir: Path,
    share: Share,
    agents: tuple[str, ...] = AGENTS,
    per_placement: int = 6,
    drawn: tuple[list[Case], list[Lookalike]] | None = None,
) -> Score:
    """Share every case and look-alike in each agent's format; return what survived or was masked.

    ``drawn`` replaces the corpus's own cases and look-alikes (another set of families).
    """
    if drawn is None:
        cases = [*draw_cases(seed, per_placement), *draw_slot_cases(seed)]
        looks = draw_lookalikes(seed)
    else:
        cases, looks = drawn
    main = [c for c in cases if c.field != "cwd"]
    in_cwd = [c for c in cases if c.field == "cwd"]
    score = Score()
    for agent in agents:
        path = write_agent_session(workdir / f"{agent}.jsonl", agent, main, looks)
        page = share(path)
        for case in main:
            score.add_case(agent, case, survived(case, page))
        for look in looks:
            score.add_lookalike(agent, look, look[2] in page)
        for i, case in enumerate(in_cwd):
            sub = workdir / f"{agent}-cwd{i}"
            sub.mkdir(exist_ok=True)
            user = replace(case, field="user", text="Set up the deployment.")
            path = write_agent_session(
                sub / f"{agent}.jsonl", agent, [user], [], f"/home/dev/{case.text}/app"
            )
            score.add_case(agent, case, survived(case, share(path)))
    return score


def report(score: Score) -> list[str]:
    """Return the score as lines: totals, per kind and per placement, what was left or masked."""

    def table(rows: dict[str, list[int]]) -> list[str]:
        out = []
        for name, (found, total) in sorted(rows.items()):
            out.append(f"    {name:<36} {found:>3}/{total:<3} {100 * found / total:5.1f}%")
        return out

    lines = [
        f"secrets: {score.total} cases ({len(score.by_kind)} kinds, {len(score.by_placement)} placements), "
        f"{len(score.left)} left on the page ({100 * score.survived_share:.1f}%)",
        f"look-alikes: {score.lookalikes}, {len(score.masked)} masked ({100 * score.masked_share:.1f}%)",
        "  recall per family:",
        *table(score.by_family),
        "  recall per placement:",
        *table(score.by_placement),
        "  recall per kind:",
        *table(score.by_kind),
    ]
    lines += [
        f"  left: {agent} {c.kind} in {c.placement}/{c.field}: {c.text[:90]!r}" for agent, c in score.left
    ]
    lines += [f"  masked look-alike: {agent} {kind}: {ev[:60]!r}" for agent, kind, ev in score.masked]
    return lines


__all__ = ["Case", "fake_gh_on_path", "gh_share", "report", "score_heldout"]
