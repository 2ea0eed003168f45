"""Where the tokens went: usage and cost of every assistant message, on every branch, totalled.

The index keeps the usage of every assistant message (and ``model_usage`` entry) as it indexes
a file, and totals per session, day and model (``archive/usage_store.py``), so totals over a
large archive come from the cache, not from re-reading it.
Every number comes from a session file and is untrusted: non-numbers, Infinity, NaN, negative
and absurdly large values count as nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from sessiontree.archive.dates import day_of, first_day, start_text, week_of
from sessiontree.archive.extract import parse_time
from sessiontree.store.pricing import cost_text, model_label, token_count, token_counts, usage_cost
from sessiontree.store.times import UTC_ZONE, Zone

GroupBy = Literal["day", "week", "project", "model", "agent", "session"]
GROUP_CHOICES: tuple[GroupBy, ...] = ("day", "week", "project", "model", "agent", "session")
TOKEN_FIELDS = ("input", "output", "cache_read", "cache_write")

MAX_TOKENS = 10**12
"""More tokens than this in one message is not a count (and could overflow SQLite's sums)."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens and cost of one assistant message (``cost`` None when the session recorded none)."""

    model: str
    ts: int
    input: int
    output: int
    cache_read: int
    cache_write: int
    cost: float | None
    messages: int = 1
    """How many messages these figures sum (totals read back from the index hold many)."""
    estimated: int = 0
    """How many of them have a cost estimated from their tokens (none recorded)."""
    unpriced: int = 0
    """How many of them spent tokens with neither a recorded cost nor a price for the model."""


def copy_key(entry_id: str, usage: Usage) -> int:
    """A 63-bit key shared by a message and its copies in forks."""
    text = f"{entry_id}\0{usage.ts}\0{usage.model}\0{usage.input}\0{usage.output}\0"
    text += f"{usage.cache_read}\0{usage.cache_write}\0{usage.cost!r}"
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=8).digest()) >> 1


def count_of(value: object) -> int:
    """A token count from untrusted JSON: a finite number in [0, MAX_TOKENS], else 0."""
    count = token_count(value)
    return count if count <= MAX_TOKENS else 0


def usage_from(usage: object, provider: object, model: object, ts: int) -> Usage | None:
    """Read one ``usage`` object (its cost recorded, else estimated); None when it is not one."""
    if not isinstance(usage, Mapping):
        return None
    counts = {key: count if count <= MAX_TOKENS else 0 for key, count in token_counts(usage).items()}
    cost = usage_cost(usage, provider, model, ts or None)
    return Usage(
        model_label(provider, model),
        ts,
        counts["input"],
        counts["output"],
        counts["cacheRead"],
        counts["cacheWrite"],
        cost.amount,
        estimated=int(cost.estimated),
        unpriced=int(cost.unpriced is not None),
    )


def usage_of_entry(entry: Mapping[str, Any]) -> Usage | None:
    """The usage an entry records: an assistant message's ``usage``, or a ``model_usage`` entry's.

    A ``model_usage`` entry (``type: "model_usage"``, or a ``custom`` entry of that
    ``customType`` with the fields in ``data``) carries ``model`` (and ``provider``) and a
    ``usage`` object shaped like an assistant message's: usage spent outside the conversation.
    """
    kind = entry.get("type")
    ts = parse_time(entry.get("timestamp"))
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, Mapping) or message.get("role") != "assistant":
            return None
        ts = ts or parse_time(message.get("timestamp"))
        return usage_from(message.get("usage"), message.get("provider"), message.get("model"), ts)
    record: object = entry
    if kind == "custom" and entry.get("customType") == "model_usage":
        record = entry.get("data")
    elif kind != "model_usage":
        return None
    if not isinstance(record, Mapping):
        return None
    ts = ts or parse_time(record.get("timestamp"))
    return usage_from(record.get("usage"), record.get("provider"), record.get("model"), ts)


@dataclass(frozen=True, slots=True)
class UsageQuery:
    """Which usage to total: ``stats``' filters and the usage page's, one rule for both."""

    project: str | None = None
    """An absolute directory: sessions started in it or under it."""
    since_ms: int | None = None
    """From this time on (epoch ms; a midnight counts whole days)."""
    until_ms: int | None = None
    """Before this time (epoch ms, exclusive; a midnight counts whole days)."""
    agent: str | None = None
    """Only this agent's sessions (``pi``, ``claude``, ``codex``)."""
    model: str | None = None
    """Only this model (as shown: ``provider/model``)."""


@dataclass(frozen=True, slots=True)
class UsageRecord:
    """One message's usage with the session it belongs to."""

    usage: Usage
    path: str
    title: str | None
    cwd: str | None
    agent: str = "pi"
    """The agent whose file it is (``pi``, ``claude``, ``codex``)."""


@dataclass
class UsageTotal:
    """Summed tokens and cost of a group (``cost`` None when no message in it recorded one)."""

    key: str
    messages: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float | None = None
    label: str | None = None
    """What to show for the key (a session's title; its key is the path)."""
    estimated: int = 0
    """Messages whose cost is an estimate from their tokens."""
    unpriced: dict[str, None] = field(default_factory=dict)
    """Models that spent tokens with no cost recorded and no price known."""
    start: str | None = None
    """When a day or week group begins, ISO 8601 with the zone's offset then."""

    @property
    def tokens(self) -> int:
        """All four kinds of tokens together."""
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, usage: Usage) -> None:
        """Add one message (or a total of several)."""
        self.messages += usage.messages
        self.input += usage.input
        self.output += usage.output
        self.cache_read += usage.cache_read
        self.cache_write += usage.cache_write
        if usage.cost is not None:
            self.cost = (self.cost or 0.0) + usage.cost
        self.estimated += usage.estimated
        if usage.unpriced:
            self.unpriced[usage.model] = None

    def cost_text(self, digits: int | None = None) -> str:
        """The cost as every page and the CLI show it (``-``, estimated, models without a price)."""
        return cost_text(self.cost, self.estimated > 0, self.unpriced, digits)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (``cost`` null when none was recorded)."""
        title = {} if self.label is None else {"title": self.label}
        start = {} if self.start is None else {"start": self.start}
        data: dict[str, Any] = {
            "key": self.key,
            **start,
            **title,
            "messages": self.messages,
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "tokens": self.tokens,
            "cost": None if self.cost is None else round(self.cost, 6),
            "costEstimated": self.estimated > 0,
            "unpricedModels": list(self.unpriced),
        }
        return data


@dataclass
class UsageReport:
    """Totals grouped one way, and the grand total."""

    by: GroupBy
    zone: Zone = UTC_ZONE
    """The zone days begin in (the keys of days and weeks, and ``--since`` / ``--until``'s dates)."""
    groups: list[UsageTotal] = field(default_factory=list)
    total: UsageTotal = field(default_factory=lambda: UsageTotal("total"))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict; ``branches: "all"`` says abandoned branches are counted too."""
        return {
            "by": self.by,
            "zone": self.zone.name,
            "branches": "all",
            "groups": [g.to_json() for g in self.groups],
            "total": self.total.to_json(),
        }


def key_of(record: UsageRecord, by: GroupBy, zone: Zone = UTC_ZONE) -> str:
    """The group a record falls in (days and weeks in ``zone``)."""
    if by == "day":
        return day_of(record.usage.ts, zone)
    if by == "week":
        return week_of(record.usage.ts, zone)
    if by == "project":
        return record.cwd or "unknown"
    if by == "model":
        return record.usage.model
    if by == "agent":
        return record.agent
    return record.path


def summarize(records: Iterable[UsageRecord], by: GroupBy, zone: Zone = UTC_ZONE) -> UsageReport:
    """Total the records per group: days and weeks (of ``zone``) in time order, the rest by cost then
    tokens."""
    report = UsageReport(by, zone)
    groups: dict[str, UsageTotal] = {}
    timed = by in ("day", "week")
    days: dict[int, str] = {}  # records at one quarter hour share a day: the zone asked once
    for record in records:
        key = days.get(record.usage.ts) if timed else key_of(record, by, zone)
        if key is None:
            key = days[record.usage.ts] = key_of(record, by, zone)
        group = groups.get(key)
        if group is None:
            group = groups[key] = UsageTotal(key, label=(record.title or "") if by == "session" else None)
        group.add(record.usage)
        report.total.add(record.usage)
    if timed:
        report.groups = sorted(groups.values(), key=lambda g: (g.key == "unknown", g.key))
        for group in report.groups:
            day = first_day(group.key)
            group.start = None if day is None else start_text(day, zone)
    else:
        report.groups = sorted(groups.values(), key=lambda g: (-(g.cost or 0.0), -g.tokens, g.key))
    return report
