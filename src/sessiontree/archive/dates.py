"""Dates on the command line (``--since``) and the day / week buckets of usage totals."""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime, timedelta

from sessiontree.errors import SearchError

_RELATIVE = re.compile(r"^(\d{1,6})\s*([hdw])$")
_UNIT_SECONDS = {"h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: float | None = None) -> int:
    """Turn ``2026-02-16``, an ISO date-time (UTC unless it says) or ``7d`` / ``12h`` / ``2w`` into ms."""
    value = text.strip()
    relative = _RELATIVE.match(value.lower())
    if relative:
        seconds = int(relative.group(1)) * _UNIT_SECONDS[relative.group(2)]
        return int(((time.time() if now is None else now) - seconds) * 1000)
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise SearchError(
            f"--since {value!r} is not a date: use YYYY-MM-DD, an ISO date-time, or 12h / 7d / 2w"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def day_of(ms: int) -> str:
    """The UTC day of a time, ``YYYY-MM-DD`` (``unknown`` for no time)."""
    if ms <= 0:
        return "unknown"
    return datetime.fromtimestamp(ms / 1000, UTC).date().isoformat()


def week_of(ms: int) -> str:
    """The ISO week of a time, ``YYYY-Www`` (``unknown`` for no time)."""
    if ms <= 0:
        return "unknown"
    year, week, _ = datetime.fromtimestamp(ms / 1000, UTC).isocalendar()
    return f"{year}-W{week:02d}"


def days_between(first: str, last: str) -> list[str]:
    """Every day from ``first`` to ``last`` (both ``YYYY-MM-DD``), inclusive."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
