"""Usage records made by hand for the usage page's tests: many models, long spans, hostile names."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sessiontree.archive.usage import Usage, UsageRecord

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
