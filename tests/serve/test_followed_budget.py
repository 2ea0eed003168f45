"""Followed sessions nobody watches are kept within a budget of file bytes, the oldest opened
dropped first; a watched one is never dropped."""

from __future__ import annotations

from pathlib import Path

from sessiontree.serve.followed import IDLE_BYTES, FollowedSessions, topic_of


def test_idle_sessions_beyond_the_budget_are_dropped_oldest_first(tmp_path: Path) -> None:
    size = IDLE_BYTES // 3 + 1  # three of them are over the budget
    paths = []
    for n in range(6):
        path = tmp_path / f"s{n}.jsonl"
        path.write_bytes(b" " * size)
        paths.append(path)
    watched = {topic_of("s0")}
    followed = FollowedSessions(agent_dir=None, image_prefix="/b/", watchers=lambda t: int(t in watched))
    first = followed.live("s0", paths[0])
    for n in range(1, 6):
        followed.live(f"s{n}", paths[n])
        idle = [k for k in followed.sessions if k != "s0" and k != f"s{n}"]
        assert len(idle) * size <= IDLE_BYTES  # within the budget beside the one just opened
    assert followed.sessions["s0"] is first  # watched: kept from the first to the last
    assert list(followed.sessions) == ["s0", "s3", "s4", "s5"]
