"""The one time conversion: every timestamp a session, a file or a user gives is read here, clamped.

A session's time is untrusted: ``0001-01-01T00:00:00+14:00`` parses, but is before year 1 in UTC
(``astimezone`` raises OverflowError); ``1e300`` milliseconds is past any ``datetime``. Both are
"no time" here, never an exception.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

MAX_TIME_MS = 253_402_300_800_000
"""10000-01-01T00:00:00Z in epoch milliseconds: the first instant ``datetime`` cannot hold."""


def parse_iso(text: str) -> datetime | None:
    """An ISO-8601 string as an aware datetime (UTC unless it says); None when it is none."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def datetime_millis(when: datetime) -> int | None:
    """Epoch milliseconds of an aware datetime; None outside 1970..9999 UTC."""
    try:
        ms = math.floor(when.timestamp() * 1000)
    except (OverflowError, ValueError, OSError):
        return None
    return ms if 0 < ms < MAX_TIME_MS else None


def time_millis(value: object) -> int | None:
    """Epoch milliseconds of an ISO-8601 string or an epoch-milliseconds number; None when it is
    unreadable or outside 1970..9999 UTC."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value) or not 0 < value < MAX_TIME_MS:
            return None
        return int(value)
    if isinstance(value, str) and value:
        when = parse_iso(value)
        return None if when is None else datetime_millis(when)
    return None


def started_time(header: object, entries: Iterable[Mapping[str, Any]]) -> str | None:
    """When a session began: the header's time, or its first entry's when that is earlier (a header
    rewritten later keeps its new time; ``entries``: the first ones, in file order)."""
    first = next((e["timestamp"] for e in entries if isinstance(e.get("timestamp"), str)), None)
    own = header if isinstance(header, str) else None
    if own is None or first is None:
        return own or first
    return first if _instant(first) < _instant(own) else own


def _instant(value: str) -> float:
    """A timestamp as seconds (unparsable: +inf, so it never wins as the earlier)."""
    when = parse_iso(value)
    return math.inf if when is None else when.timestamp()


def utc_datetime(seconds: float) -> datetime:
    """The aware UTC datetime of epoch seconds (a file's mtime), clamped into 1970..9999."""
    if not math.isfinite(seconds):
        seconds = 0.0
    return datetime.fromtimestamp(min(max(seconds, 0.0), MAX_TIME_MS / 1000 - 1), UTC)


def utc_day(ms: int) -> str:
    """The UTC day, ``YYYY-MM-DD``, of epoch milliseconds (clamped)."""
    return utc_datetime(ms / 1000).date().isoformat()
