"""A message's footer shows its cost as the header counts it: recorded, else estimated and said so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sessiontree.exporter.api import render_session
from sessiontree.exporter.options import RenderOptions
from sessiontree.exporter.page import iter_page
from sessiontree.exporter.stats import compute_stats
from sessiontree.readers import load_any
from sessiontree.store.pricing import usage_cost
from tests.exporter.conftest import parse_page

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
COST = re.compile(r'<span class="st-cost( st-cost-estimated" title="[^"]+)?">\$([0-9.]+)( estimated)?</span>')


def _footers(path: Path) -> tuple[dict[str, tuple[float, bool]], float, int]:
    """Per entry id the footer's (dollars, estimated); the header's total and estimated count."""
    session = load_any(path)
    page = parse_page("".join(iter_page(render_session(session, RenderOptions(parallel=False)))))
    shown: dict[str, tuple[float, bool]] = {}
    for meta, frag in zip(page.data["entries"], page.frags, strict=True):
        found = COST.findall(frag)
        if found:
            [(marked, amount, said)] = found
            assert bool(marked) == bool(said)
            shown[meta["id"]] = (float(amount), bool(said))
    costs = compute_stats(session.entries).costs
    return shown, costs.amount, costs.estimated


@pytest.mark.parametrize(
    ("name", "outside"),
    [
        ("claude/tour/5e55a0b1-0000-4000-8000-00000000000a.jsonl", 0.0),
        ("2026-03-01T10-00-00-000Z_excerpt-0001.jsonl", 0.0),
        ("omp-newer-entries.jsonl", 0.00046),  # a model_usage entry: a call outside the transcript
    ],
)
def test_the_footers_add_up_to_the_header(name: str, outside: float) -> None:
    path = FIXTURES / name
    shown, total, estimated = _footers(path)
    assert shown  # every fixture here has priced replies
    total -= outside
    assert sum(amount for amount, _ in shown.values()) == pytest.approx(
        total, abs=0.00005 * len(shown) + 1e-9
    )
    assert sum(said for _, said in shown.values()) == estimated  # the same messages are estimates
    session = load_any(path)
    for entry in session.entries:
        message = entry.get("message")
        if entry["id"] in shown and isinstance(message, dict):
            cost = usage_cost(
                message.get("usage"), message.get("provider"), message.get("model"), entry.get("timestamp")
            )
            assert cost.amount is not None
            assert shown[entry["id"]] == (round(cost.amount, 4), cost.estimated)


def test_a_claude_reply_without_a_recorded_cost_shows_the_estimate() -> None:
    shown, _, estimated = _footers(
        FIXTURES / "claude" / "tour" / "5e55a0b1-0000-4000-8000-00000000000a.jsonl"
    )
    assert estimated > 0 and all(said for _, said in shown.values())
