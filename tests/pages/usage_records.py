"""Usage records made by hand for the usage page's tests: many models, long spans, hostile names."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from sessiontree.archive.usage import Usage, UsageRecord
from sessiontree.pages.usage_data import ROW_WIDTH

LONG_WORD = "https://example.invalid/" + "unbrokenpathsegment" * 6


def many_models(count: int, start: datetime, days: int, *, no_cost: int | None = None) -> list[UsageRecord]:
    """One message a model every third day over ``days`` days; model ``no_cost`` records no cost.

    Model names, titles and paths have no break point (as URLs and long ids do).
    """
    records = []
    for day in range(0, days, 3):
        ts = int((start + timedelta(days=day)).timestamp() * 1000)
        for i in range(count):
            cost = None if i == no_cost else 0.01 * (count - i) * (1 + day % 7)
            usage = Usage(f"provider/model_{i}_" + "x" * 40, ts, 1000 * (count - i), 300, 5000, 100, cost)
            path = f"/sessions/{'s' * 80}-{i}.jsonl"
            records.append(UsageRecord(usage, path, f"{LONG_WORD} {i}", "/work"))
    return records


def start_of(year: int, month: int, day: int) -> datetime:
    """Noon UTC of a day."""
    return datetime(year, month, day, 12, tzinfo=UTC)


def page_data(html: str) -> dict[str, Any]:
    """The packed usage data a dashboard page carries (``pages/usage_data.py``)."""
    found = re.search(r'<script type="application/json" id="st-usage-data">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def data_totals(data: dict[str, Any]) -> dict[str, int]:
    """Messages and token counts summed over every packed row, named as ``stats --json`` names them."""
    rows = data["rows"]
    fields = {"messages": 3, "input": 4, "output": 5, "cacheRead": 6, "cacheWrite": 7}
    return {name: sum(rows[at::ROW_WIDTH]) for name, at in fields.items()}
