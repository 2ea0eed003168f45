"""Every slot shape, in pi, Claude Code and Codex files, through a real ``share`` with a fake ``gh``.

For each shape the value and every 8-character piece of it must be absent from the uploaded page
(its markup, its fragments unpacked and its embedded data decoded), the gist's file name and
description; the slot look-alikes must all be kept. Stricter than the corpus' 3% bound: no shape
may leak, whatever the agent.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.share.conftest import FakeGh
from tests.share.heldout.generate import Case
from tests.share.heldout.lookalikes import _slot_lookalikes
from tests.share.heldout.measure import gh_share
from tests.share.heldout.sessions import AGENTS, survived, write_agent_session
from tests.share.heldout.slots import SLOTS, draw_slot_cases

SEED = 20261201


def _title_cases() -> list[Case]:
    """Glued and dotted shapes as the session's title (it also names the gist and its file)."""
    rng = random.Random(SEED)
    out = []
    for family, name, make_value, _ in SLOTS:
        if family in ("glued", "separators"):
            value = make_value(rng)
            out.append(
                Case(f"{family}-{name}", name, "title", value, value, (value, value[4:12]), family=family)
            )
    return out


@pytest.mark.parametrize("agent", AGENTS)
def test_every_slot_shape_is_masked_and_every_lookalike_kept(
    agent: str, tmp_path: Path, fake_gh: FakeGh, isolated_agent_dir: Path
) -> None:
    cases = [*draw_slot_cases(SEED, per_slot=1), *_title_cases()]
    looks = _slot_lookalikes(random.Random(SEED))
    share = gh_share(isolated_agent_dir, fake_gh.record_dir)
    page = share(write_agent_session(tmp_path / f"{agent}.jsonl", agent, cases, looks))
    assert len({c.placement for c in cases}) == len(SLOTS)
    left = [(c.kind, c.field, c.text[:80]) for c in cases if survived(c, page)]
    assert left == []
    masked = [(kind, evidence[:60]) for kind, _, evidence in looks if evidence not in page]
    assert masked == []
