"""Cost estimates from token counts (genai-prices' bundled table, offline): one figure everywhere."""

from __future__ import annotations

import json
import math
import re
import shutil
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontree.cli import cli
from sessiontree.exporter import render_session_html
from sessiontree.readers import load_any
from sessiontree.serve.app import create_app
from sessiontree.serve.config import ServeConfig
from sessiontree.store.pricing import CostTotal, dollars, estimate_cost, usage_cost
from tests.readers.helpers import REAL

REAL_CLAUDE = next((REAL / "claude").glob("*0d3a8e6f*.jsonl"))
# genai-prices' table: Claude Sonnet 4 (claude-sonnet-4-20250514), dollars per million tokens.
SONNET_4 = {"input": 3.0, "output": 15.0, "cacheRead": 0.30, "cacheWrite": 3.75}


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Fail any attempt to open a connection or resolve a name, and record it."""
    tried: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        tried.append(args)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    return tried


def test_an_estimate_is_the_hand_computation_from_the_price_table(no_network: list[Any]) -> None:
    counts = {"input": 1_000, "output": 500, "cacheRead": 20_000, "cacheWrite": 3_000}
    by_hand = sum(counts[k] * SONNET_4[k] for k in counts) / 1_000_000  # 0.003 + 0.0075 + 0.006 + 0.01125
    assert math.isclose(by_hand, 0.02775)
    got = estimate_cost("anthropic", "claude-sonnet-4-20250514", counts, "2025-07-01T10:00:00Z")
    assert got is not None and math.isclose(got, by_hand, rel_tol=1e-9)
    assert no_network == []
    import genai_prices.data_snapshot as snapshot

    assert snapshot.get_snapshot().from_auto_update is False  # the bundled table, never a fetched one


def test_a_recorded_cost_wins_and_an_unknown_model_is_named(no_network: list[Any]) -> None:
    usage = {"input": 1_000, "output": 500, "cacheRead": 0, "cacheWrite": 0}
    recorded = usage_cost({**usage, "cost": {"total": 0.0}}, "anthropic", "claude-sonnet-4-5", None)
    assert (recorded.amount, recorded.estimated) == (0.0, False)  # a free model stays free
    estimated = usage_cost(usage, "anthropic", "claude-sonnet-4-5", "2025-11-01T00:00:00Z")
    assert estimated.estimated and estimated.amount is not None and estimated.amount > 0
    unknown = usage_cost(usage, "ollama", "my-own-finetune-7b", None)
    assert (unknown.amount, unknown.unpriced) == (None, "ollama/my-own-finetune-7b")
    total = CostTotal()
    total.add(unknown)
    assert total.text() == "- (no price for ollama/my-own-finetune-7b)"
    total.add(estimated)
    assert total.text().endswith("estimated (no price for ollama/my-own-finetune-7b)")
    assert usage_cost({"input": 0, "output": 0}, "x", "y", None).amount is None  # nothing spent
    assert no_network == []


def test_no_module_starts_a_price_update() -> None:
    src = Path(__file__).resolve().parents[2] / "src" / "sessiontree"
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        code = re.sub(r'""".*?"""', "", text, flags=re.S)  # docstrings may name it
        assert "UpdatePrices" not in code and "update_prices" not in code, path


def _first_reply_by_hand(path: Path) -> float:
    """The first reply's cost from its last line (a reply split over lines repeats its usage)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    replies = [o for o in lines if o.get("type") == "assistant" and isinstance(o.get("message"), dict)]
    first_id = replies[0]["message"]["id"]
    message = [o for o in replies if o["message"]["id"] == first_id][-1]["message"]
    assert message["model"] == "claude-sonnet-4-20250514"
    u = message["usage"]
    tokens = {
        "input": u["input_tokens"],
        "output": u["output_tokens"],
        "cacheRead": u.get("cache_read_input_tokens", 0),
        "cacheWrite": u.get("cache_creation_input_tokens", 0),
    }
    return sum(tokens[k] * SONNET_4[k] for k in tokens) / 1_000_000


@pytest.mark.anyio
async def test_one_figure_in_inspect_page_stats_serve_and_build(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    folder = root / "-Users-dain-workspace-claude-code-log"
    folder.mkdir(parents=True)
    path = folder / "0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl"
    shutil.copy(REAL_CLAUDE, path)
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["inspect", "--json", str(path)]).output)
    cost = data["cost"]
    assert data["cost_estimated"] is True and data["unpriced_models"] == []
    first = next(e for e in load_any(path).entries if (e.get("message") or {}).get("role") == "assistant")
    one = usage_cost(first["message"]["usage"], "anthropic", first["message"]["model"], first["timestamp"])
    assert one.amount is not None and math.isclose(one.amount, _first_reply_by_hand(REAL_CLAUDE))
    text = runner.invoke(cli, ["inspect", str(path)]).output
    assert f"Cost      ${cost:.4f} estimated" in text

    page = render_session_html(load_any(path))
    found = re.search(
        r'<li data-cost class="st-cost-total"><span class="st-n">([^<]*)</span> cost(.*?)</li>', page
    )
    assert found is not None and found[1] == f"${cost:.4f}" and "estimated" in found[2]

    args = ["--sessions-dir", str(root), "--cache-dir", str(tmp_path / "cache")]
    stats = json.loads(runner.invoke(cli, ["stats", *args, "--by", "session", "--json"]).output)
    assert math.isclose(stats["total"]["cost"], cost, abs_tol=1e-6) and stats["total"]["costEstimated"]
    shown = f"{dollars(cost)} estimated"
    table = runner.invoke(cli, ["stats", *args]).output
    assert table.splitlines()[-2].endswith(shown)  # the TOTAL row

    site = tmp_path / "site"
    built = runner.invoke(cli, ["build", "--root", str(root), "-o", str(site), "--no-search", "-q"])
    assert built.exit_code == 0, built.output
    assert math.isclose(
        _dashboard_cost((site / "usage.html").read_text(encoding="utf-8")), cost, abs_tol=1e-5
    )

    config = ServeConfig(roots=(root,), cache_dir=tmp_path / "cache2", watch=False)
    app = create_app(config)
    # /usage answers at once with what is counted so far (issue 42); the app here runs without
    # its lifespan's background pass, so the count that pass makes is made first.
    await anyio.to_thread.run_sync(app.state.serve.listing.usage_records)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as client:
        usage = await client.get("/usage")
        assert usage.status_code == 200
        assert "data-counting" not in usage.text
        assert math.isclose(_dashboard_cost(usage.text), cost, abs_tol=1e-5)


def _dashboard_cost(page: str) -> float:
    """The total the usage dashboard's script shows: the cost column of its packed rows, summed
    (pages/usage_data.py: eleven numbers a row, the cost ninth), every row marked estimated."""
    found = re.search(r'<script type="application/json" id="st-usage-data">(.*?)</script>', page, re.S)
    assert found is not None
    rows = json.loads(found[1])["rows"]
    width = 11
    assert rows and len(rows) % width == 0
    records = [rows[i : i + width] for i in range(0, len(rows), width)]
    assert all(r[9] == r[3] for r in records)  # every message's cost estimated
    return float(sum(r[8] for r in records if r[8] is not None))


def _library_price(provider: str | None, model: str, counts: dict[str, int], day: str) -> float | None:
    """genai-prices' own calc_price for one message, as the estimate must give it."""
    import genai_prices

    usage = genai_prices.Usage(
        input_tokens=counts["input"] + counts["cacheRead"] + counts["cacheWrite"],
        output_tokens=counts["output"],
        cache_read_tokens=counts["cacheRead"],
        cache_write_tokens=counts["cacheWrite"],
    )
    stamp = datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
    for provider_id in (provider, None) if provider else (None,):
        try:
            price = genai_prices.calc_price(
                usage, model, provider_id=provider_id, genai_request_timestamp=stamp
            )
        except (LookupError, ValueError):
            continue
        return float(price.total_price)
    return None


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(
        [
            ("anthropic", "claude-sonnet-4-5"),  # tiered past 200,000 input tokens
            ("google", "gemini-1.5-pro"),  # tiered past 128,000
            ("anthropic", "claude-opus-4-1"),
            ("openai", "gpt-5"),
            (None, "gpt-4o"),
        ]
    ),
    st.tuples(*[st.integers(0, 400_000)] * 4),
    st.sampled_from(["2025-03-01", "2025-10-01", "2026-06-01"]),
)
def test_the_estimate_is_the_price_tables_own_figure_in_every_tier(
    model: tuple[str | None, str], numbers: tuple[int, int, int, int], day: str
) -> None:
    # The estimate prices a tier's rates once, not each message through the library (11x faster):
    # the figure must stay the library's, at every count, on both sides of every tier.
    counts = dict(zip(("input", "output", "cacheRead", "cacheWrite"), numbers, strict=True))
    provider, name = model
    assert estimate_cost(provider, name, counts, day + "T08:00:00Z") == _library_price(
        provider, name, counts, day
    )


@pytest.mark.parametrize("total", [127_999, 128_000, 128_001, 199_999, 200_000, 200_001])
def test_the_estimate_at_a_tiers_edge(total: int) -> None:
    counts = {"input": total - 1000, "output": 500, "cacheRead": 600, "cacheWrite": 400}
    for provider, name in (("anthropic", "claude-sonnet-4-5"), ("google", "gemini-1.5-pro")):
        expected = _library_price(provider, name, counts, "2025-10-01")
        assert estimate_cost(provider, name, counts, "2025-10-01T08:00:00Z") == expected
