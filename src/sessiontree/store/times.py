"""The one time conversion: every timestamp a session, a file or a user gives is read here, clamped.

A session's time is untrusted: ``0001-01-01T00:00:00+14:00`` parses, but is before year 1 in UTC
(``astimezone`` raises OverflowError); ``1e300`` milliseconds is past any ``datetime``. Both are
"no time" here, never an exception.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

MAX_TIME_MS = 253_402_300_800_000
"""10000-01-01T00:00:00Z in epoch milliseconds: the first instant ``datetime`` cannot hold."""


def parse_iso(text: str, local: bool = False) -> datetime | None:
    """An ISO-8601 string as an aware datetime (UTC unless it says, or with ``local`` this process's
    local time); None when it is none."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is not None:
        return when
    return LOCAL_ZONE.attach(when) if local else when.replace(tzinfo=UTC)


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


def offset_text(offset: timedelta) -> str:
    """A UTC offset as ``UTC-08:00`` / ``UTC+05:30``."""
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _zone_key(text: str) -> str | None:
    """An IANA zone name from a ``TZ`` value or a zone file's path (None when it names none)."""
    key = text.removeprefix(":").split("zoneinfo/", 1)[-1]
    try:
        zone = ZoneInfo(key)
    except (ValueError, OSError, KeyError):  # ZoneInfoNotFoundError is a KeyError
        return None
    now = datetime.now(UTC)
    # The C library decides the local time; a name it would not read the same way is no name.
    return key if zone.utcoffset(now) == now.astimezone().utcoffset() else None


def local_zone_name() -> str | None:
    """The IANA name of this process's local zone (``TZ``, else ``/etc/localtime``); None when unknown."""
    tz = os.environ.get("TZ")
    if tz is not None:
        return _zone_key(tz) if tz.removeprefix(":") else "UTC"
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        return None
    return _zone_key(target) if "zoneinfo/" in target else None


@dataclass(frozen=True, slots=True)
class Zone:
    """The zone days begin in: UTC, or this process's local time (the reader's zone, to a command line:
    ``TZ`` changes it), as the pages use the browser's."""

    local: bool = False

    @property
    def name(self) -> str:
        """The zone's IANA name, else its UTC offset now (``UTC-08:00``); ``UTC`` for UTC."""
        if not self.local:
            return "UTC"
        return local_zone_name() or offset_text(datetime.now(UTC).astimezone().utcoffset() or timedelta())

    def datetime_of(self, ms: int) -> datetime:
        """The aware datetime of epoch milliseconds in this zone (clamped as ``utc_datetime``)."""
        when = utc_datetime(ms / 1000)
        if not self.local:
            return when
        try:
            return when.astimezone()
        except (OverflowError, OSError, ValueError):  # the years 1 and 9999 at the edge of an offset
            return when

    def day_of(self, ms: int) -> date:
        """The day a time falls on in this zone."""
        return self.datetime_of(ms).date()

    def attach(self, naive: datetime) -> datetime | None:
        """A wall-clock time of this zone as an aware datetime (None when out of range)."""
        if not self.local:
            return naive.replace(tzinfo=UTC)
        try:
            return naive.astimezone()
        except (OverflowError, OSError, ValueError):
            return None

    def start_of(self, day: date) -> int | None:
        """When a day begins in this zone (epoch ms; None out of range)."""
        when = self.attach(datetime(day.year, day.month, day.day))
        return None if when is None else datetime_millis(when)


UTC_ZONE = Zone()
LOCAL_ZONE = Zone(local=True)
