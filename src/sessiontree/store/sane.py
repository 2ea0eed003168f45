"""The one range check of every agent's times, token counts and costs, as a session is made.

Every reader hands its entries to ``readers.base.make_session``, which calls ``contain_values``:
a count that is no integer in 0..``MAX_TOKENS`` (NaN, Infinity, 400 digits, -1,000,000, a
string), a cost that is no amount in 0..``MAX_COST`` and a time outside 1970..``LAST_YEAR`` are
unknown: the field is removed (never summed by stats, the usage page or a page's totals) and a
repair says which, so ``inspect`` and ``export`` name it. A value in range is kept as written.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from sessiontree.store.repair import Repair
from sessiontree.store.times import MAX_TIME_MS, parse_iso

MAX_TOKENS = 10**12
"""The most tokens one message may count (a trillion: no model reads that; a sum of a million stays exact)."""

MAX_COST = 10**6
"""The most dollars one message may cost."""

LAST_YEAR = 2200
"""Times after this year are unknown (a 20-digit epoch, a typo of 29999)."""

_LAST_MS = min(MAX_TIME_MS, 7_258_118_400_000)  # 2200-01-01T00:00:00Z

COUNT_KEYS = ("input", "output", "cacheRead", "cacheWrite", "totalTokens", "reasoning")


def sane_count(value: object) -> int | None:
    """A token count in 0..MAX_TOKENS (an integral float read as an int), else None."""
    if value.__class__ is int:
        return value if 0 <= value <= MAX_TOKENS else None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and 0 <= value <= MAX_TOKENS:
        return int(value)
    return None


def sane_cost(value: object) -> float | None:
    """A cost in 0..MAX_COST dollars, else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int):
        return float(value) if 0 <= value <= MAX_COST else None
    return value if math.isfinite(value) and 0 <= value <= MAX_COST else None


def sane_time(value: object) -> bool:
    """Tell whether a time (ISO text, or epoch milliseconds) is in 1970..LAST_YEAR."""
    if isinstance(value, str):
        year = value[:4]
        if len(value) >= 10 and year.isdigit() and value[4] == "-" and "1970" <= year < str(LAST_YEAR):
            return True  # the common case, without a parse; a bad month or day is parse_iso's None later
        when = parse_iso(value)
        return when is not None and 1970 <= when.year < LAST_YEAR
    if value.__class__ is int or isinstance(value, float):
        return math.isfinite(value) and 0 < value < _LAST_MS
    return False


def _usage(usage: dict[str, Any], entry: dict[str, Any], said: list[str]) -> None:
    for key in COUNT_KEYS:
        value = usage.get(key)
        if value is None or (value.__class__ is int and 0 <= value <= MAX_TOKENS):
            continue  # the common case: one class check and a range
        count = sane_count(value)
        if count is None:
            said.append(f"entry {entry.get('id')}: {key} {_shown(usage.pop(key))}")
        else:
            usage[key] = count
    cost = usage.get("cost")
    if cost is None or (cost.__class__ is float and 0 <= cost <= MAX_COST):
        return
    if isinstance(cost, dict):
        for key in [k for k, v in cost.items() if v is not None and sane_cost(v) is None]:
            said.append(f"entry {entry.get('id')}: cost {key} {_shown(cost.pop(key))}")
    elif sane_cost(cost) is None:
        said.append(f"entry {entry.get('id')}: cost {_shown(usage.pop('cost'))}")


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, int) or abs(value) < 10**20 else f"{len(str(value))} digits"
    return text[:40]


def contain_values(entries: Iterable[dict[str, Any]]) -> list[Repair]:
    """Remove every out-of-range time, token count and cost of a session's entries; one repair each."""
    said: list[str] = []
    for entry in entries:
        stamp = entry.get("timestamp")
        if stamp is not None and not sane_time(stamp):
            said.append(f"entry {entry.get('id')}: time {_shown(entry.pop('timestamp'))}")
        message = entry.get("message")
        if message.__class__ is not dict:
            continue
        stamp = message.get("timestamp")
        if stamp is not None and not sane_time(stamp):
            said.append(f"entry {entry.get('id')}: message time {_shown(message.pop('timestamp'))}")
        usage = message.get("usage")
        if usage.__class__ is dict:
            _usage(usage, entry, said)
        elif usage is not None:
            said.append(f"entry {entry.get('id')}: usage {_shown(message.pop('usage'))}")
    return [Repair(0, "unknown", f"{text} is out of range: read as unknown") for text in said]
