"""The day / week buckets of usage totals (``--since`` is parsed by ``archive.collection``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from sessiontree.store.times import UTC_ZONE, Zone, utc_datetime


def day_of(ms: int, zone: Zone = UTC_ZONE) -> str:
    """The day of a time in ``zone``, ``YYYY-MM-DD`` (``unknown`` for no time)."""
    if ms <= 0:
        return "unknown"
    return zone.day_of(ms).isoformat()


def midnight_of(day: str) -> int:
    """The time (epoch ms) a ``YYYY-MM-DD`` day (or a ``quarter_of``) starts in UTC (0 for an
    empty one: unknown)."""
    if not day:
        return 0
    return int(datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp() * 1000)


QUARTER_MS = 15 * 60 * 1000
"""Every time zone's offset is a multiple of a quarter hour (India +5:30, Nepal +5:45), so usage
kept per UTC quarter hour is put into the reader's days exactly, by the page in the browser."""


def quarter_of(ms: int) -> str:
    """The UTC quarter hour a time falls in, ``YYYY-MM-DDTHH:MM`` (a key that sorts as time)."""
    return utc_datetime((ms - ms % QUARTER_MS) / 1000).strftime("%Y-%m-%dT%H:%M")


def week_of(ms: int, zone: Zone = UTC_ZONE) -> str:
    """The ISO week of a time in ``zone``, ``YYYY-Www`` (``unknown`` for no time)."""
    if ms <= 0:
        return "unknown"
    year, week, _ = zone.day_of(ms).isocalendar()
    return f"{year}-W{week:02d}"


def first_day(key: str) -> date | None:
    """The first day of a ``day_of`` or ``week_of`` key (None for ``unknown``)."""
    try:
        if "-W" in key:
            year, week = key.split("-W")
            return date.fromisocalendar(int(year), int(week), 1)
        return date.fromisoformat(key)
    except ValueError:
        return None


def start_text(day: date, zone: Zone) -> str | None:
    """When a day begins in ``zone``, ISO 8601 with its offset (``2026-03-01T00:00:00-08:00``)."""
    ms = zone.start_of(day)
    return None if ms is None else zone.datetime_of(ms).isoformat(timespec="seconds")


def days_between(first: str, last: str) -> list[str]:
    """Every day from ``first`` to ``last`` (both ``YYYY-MM-DD``), inclusive."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    return [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
