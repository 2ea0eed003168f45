"""A built site's top sessions of every filter from one pass (``RecordsAnswers.tops``) are the
pages ``RecordsAnswers.sessions`` gives each filter alone: the same sessions, counts, sums (in the
same order: the same floats), unpriced and free models, for any records."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontree.archive.usage import Usage, UsageRecord
from sessiontree.archive.usage_query import RecordsAnswers, UsageFilter

MODELS = ("opus", "gpt", "free", "unknown")
CWDS = ("/work/a", "/work/a/sub", "/work/ab", None)
AGENTS = ("pi", "claude")


@st.composite
def records(draw: st.DrawFn) -> list[UsageRecord]:
    sessions = draw(st.integers(1, 12))
    shape = [(draw(st.sampled_from(CWDS)), draw(st.sampled_from(AGENTS))) for _ in range(sessions)]
    found = []
    for _ in range(draw(st.integers(1, 40))):
        n = draw(st.integers(0, sessions - 1))
        cwd, agent = shape[n]
        if draw(st.integers(0, 30)) == 0:  # now and then a session whose rows disagree on its folder
            cwd = draw(st.sampled_from(CWDS))
        model = draw(st.sampled_from(MODELS))
        cost = None if model == "unknown" else 0.0 if model == "free" else draw(st.floats(0, 3))
        tokens = [draw(st.integers(0, 500)) for _ in range(4)]
        when = draw(st.sampled_from((0, 900_000, 1_800_000)))
        messages = draw(st.integers(0, 3))  # 0 are left out
        usage = Usage(
            model,
            when,
            tokens[0],
            tokens[1],
            tokens[2],
            tokens[3],
            cost,
            messages,
            0,
            int(model == "unknown"),
        )
        found.append(UsageRecord(usage, f"/s/{n}.jsonl", f"title {n}", cwd, agent))
    return found


WHERES = [
    UsageFilter(),
    *(UsageFilter(project=p) for p in ("/work/a", "/work/ab", "/work", "unknown")),
    *(UsageFilter(agent=a) for a in AGENTS),
    *(UsageFilter(model=m) for m in (*MODELS, "none")),
    UsageFilter(since_ms=900_000),
    UsageFilter(project="/work/a", model="opus"),
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.integers(1, 5))
def test_the_tops_of_every_filter_at_once_are_each_filters_own_sessions(
    found: list[UsageRecord], limit: int
) -> None:
    answers = RecordsAnswers(found)
    assert answers.tops(WHERES, limit) == [answers.sessions(where, 0, limit) for where in WHERES]


def test_a_session_counted_under_its_project_its_agent_and_each_of_its_models() -> None:
    def row(model: str, cost: float | None, path: str, cwd: str) -> UsageRecord:
        return UsageRecord(
            Usage(model, 900_000, 10, 20, 0, 0, cost, 1, 0, int(cost is None)), path, "t", cwd, "pi"
        )

    found = [
        row("opus", 1.5, "/s/1", "/work/a"),
        row("gpt", None, "/s/1", "/work/a"),
        row("opus", 0.5, "/s/2", "/w"),
    ]
    pages = RecordsAnswers(found).tops(
        [UsageFilter(), UsageFilter(project="/work"), UsageFilter(model="gpt")], 5
    )
    assert [[t.record.path for t in page.sessions] for page in pages] == [
        ["/s/1", "/s/2"],
        ["/s/1"],
        ["/s/1"],
    ]
    assert pages[0].sessions[0].record.usage.cost == 1.5 and pages[0].sessions[0].unpriced == ("gpt",)
    assert pages[2].sessions[0].record.usage.cost is None and pages[2].count == 1
