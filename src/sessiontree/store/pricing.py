"""What a message cost: the cost it recorded, else an estimate from its token counts.

pi records a cost with each reply; Claude Code (since 1.x) and Codex CLI record only token counts,
and pi records none for a model its registry lacks (the ``cost`` field is then missing). Those
get an estimate from genai-prices' price table (Pydantic's maintained data), the copy that ships
inside the installed package: the table is never refreshed at run time (``UpdatePrices`` is never
started), so an estimate makes no network request. A recorded cost, zero included, always wins.
Every place that shows a cost (inspect, the page header and chart, stats, the usage pages)
totals ``usage_cost`` through ``CostTotal``, so they all show the same figure.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any, ParamSpec, TypeVar

from sessiontree.store.numbers import MAX_COUNT
from sessiontree.store.times import time_millis, utc_day

MAX_COST = 1e6
"""More dollars than this for one message is not a price."""

# Each kind of count under the names pi, oh-my-pi and Claude Code write it.
TOKEN_ALIASES: dict[str, tuple[str, ...]] = {
    "input": ("input", "inputTokens", "input_tokens"),
    "output": ("output", "outputTokens", "output_tokens"),
    "cacheRead": ("cacheRead", "cacheReadTokens", "cache_read_input_tokens"),
    "cacheWrite": ("cacheWrite", "cacheWriteTokens", "cache_creation_input_tokens"),
}

# Our provider names that genai-prices spells another way.
_PROVIDERS = {
    "google-vertex": "google",
    "google-gemini-cli": "google",
    "xai": "x-ai",
    "amazon-bedrock": "aws",
}


def token_count(value: object) -> int:
    """A token count from untrusted JSON: a finite number in [0, 2**53 - 1], else 0."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and not math.isfinite(value):
        return 0
    return int(value) if 0 <= value <= MAX_COUNT else 0


def token_counts(usage: Mapping[str, Any]) -> dict[str, int]:
    """``{input, output, cacheRead, cacheWrite}`` of a usage object (any agent's spelling)."""
    return {
        key: next((token_count(usage[n]) for n in names if n in usage), 0)
        for key, names in TOKEN_ALIASES.items()
    }


def recorded_cost(usage: Mapping[str, Any]) -> float | None:
    """The cost a usage object records (``cost: {total}``, ``cost: n`` or ``costUSD``), else None.

    Hostile numbers (negative, Infinity, NaN, absurdly large) count as 0.
    """
    value = usage.get("cost")
    if value is None and "costUSD" in usage:
        value = usage.get("costUSD")
    if isinstance(value, Mapping):
        value = value.get("total")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, int) and abs(value) > MAX_COST:
        return 0.0
    number = float(value)
    return number if math.isfinite(number) and 0 <= number <= MAX_COST else 0.0


def model_label(provider: object, model: object) -> str:
    """``provider/model`` (or the model alone); ``unknown`` when the message names none."""
    if not isinstance(model, str) or not model:
        return "unknown"
    if isinstance(provider, str) and provider and "/" not in model:
        return f"{provider}/{model}"
    return model


def _day(timestamp: object) -> str:
    """The UTC day (``YYYY-MM-DD``) of an ISO string or epoch milliseconds; today when unreadable."""
    ms = time_millis(timestamp)
    return utc_day(ms) if ms is not None else datetime.now(UTC).date().isoformat()


@lru_cache(maxsize=1)
def _prices() -> Any:
    # Imported on first use: the price table is 1.6 MB of Python, and most commands never price.
    import genai_prices

    return genai_prices


P = ParamSpec("P")
R = TypeVar("R")

MAX_MODEL_LOOKUPS = 64
"""New model names one render may look up in the price table (a session naming 5,000 models took
10 s of 2 ms lookups to show; past the budget a name not seen before is unpriced, as if unknown)."""

_LOOKUPS: ContextVar[list[int] | None] = ContextVar("sessiontree_model_lookups", default=None)
_FOUND: dict[tuple[str | None, str], Any] = {}
_FOUND_MAX = 8192


@contextmanager
def model_lookup_budget(limit: int = MAX_MODEL_LOOKUPS) -> Iterator[None]:
    """Look up at most ``limit`` model names not seen before while inside (one render)."""
    token = _LOOKUPS.set([limit])
    try:
        yield
    finally:
        _LOOKUPS.reset(token)


def within_lookup_budget(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` under one ``model_lookup_budget`` (a render), unless a caller already opened one."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if _LOOKUPS.get() is not None:
            return func(*args, **kwargs)
        with model_lookup_budget():
            return func(*args, **kwargs)

    return wrapper


def _find_model(provider: str | None, model: str) -> Any:
    """The price table's model entry for a name (None when it has none), found once per name."""
    key = (provider, model)
    if key in _FOUND:
        return _FOUND[key]
    left = _LOOKUPS.get()
    if left is not None:
        if left[0] <= 0:
            return None  # over this render's budget: unpriced, and not remembered as unknown
        left[0] -= 1
    snapshot = _prices().data_snapshot.get_snapshot()
    found = None
    for provider_id in (provider, None) if provider else (None,):
        try:
            _, found = snapshot.find_provider_model(model, None, provider_id, None)
        except (LookupError, ValueError):
            continue
        break
    if len(_FOUND) >= _FOUND_MAX:
        _FOUND.clear()
    _FOUND[key] = found
    return found


def _model_price(provider: str | None, model: str, day: str) -> tuple[Any, tuple[int, ...]] | None:
    """The price table's entry for a model on a day and its tiers (None when it has no such model).

    Matching a model name against the table is the slow part (about 2 ms): done once per name
    (``_find_model``, never cached past a render's budget); the day's price is cached by day.
    """
    return None if _find_model(provider, model) is None else _price_on(provider, model, day)


@lru_cache(maxsize=4096)
def _price_on(provider: str | None, model: str, day: str) -> tuple[Any, tuple[int, ...]] | None:
    info = _find_model(provider, model)
    if info is None:
        return None
    price = info.get_prices(
        datetime.fromisoformat(day).replace(hour=12, tzinfo=UTC)
    )  # prices change by the day
    return price, _thresholds(price)


def _usage(counts: tuple[int, int, int, int]) -> Any:
    tokens_in, tokens_out, read, write = counts
    return _prices().Usage(
        input_tokens=tokens_in + read + write,
        output_tokens=tokens_out,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def _thresholds(price: Any) -> tuple[int, ...]:
    """The input-token counts past which a tiered price changes (none for a flat price)."""
    starts = {
        int(tier.start)
        for value in vars(price).values()
        if isinstance(value, _prices().types.TieredPrices)
        for tier in value.tiers
    }
    return tuple(sorted(starts))


def _tier(thresholds: tuple[int, ...], total_input: int) -> int:
    return sum(1 for start in thresholds if total_input > start)  # the table's rule: past, not at


@lru_cache(maxsize=4096)
def _affine(
    provider: str | None, model: str, day: str, tier: int
) -> tuple[Decimal, tuple[Decimal, ...], tuple[int, int, int, int]] | None:
    """The price as ``base + sum(rate * (count - at))`` within one tier, or None to price exactly.

    The table's price is affine in the four token counts as long as the total input stays in one
    tier (a tier's rate applies to every token): the library's own ``calc_price`` at one point of
    the tier and one token more of each kind gives the rates, in Decimal, so the result is the
    library's to the last digit, at a fraction of its cost per message (~2.5 ms).
    """
    found = _model_price(provider, model, day)
    if found is None:
        return None
    price, thresholds = found
    start = thresholds[tier - 1] + 1 if tier else 0
    at = (start, 0, 0, 0)
    points = [at, (start + 1, 0, 0, 0), (start, 1, 0, 0), (start, 0, 1, 0), (start, 0, 0, 1)]
    if any(_tier(thresholds, p[0] + p[2] + p[3]) != tier for p in points):
        return None  # tiers too close together for the unit steps: price each message exactly
    try:
        values = [Decimal(price.calc_price(_usage(p))["total_price"]) for p in points]
    except (LookupError, ValueError, ArithmeticError):
        return None
    return values[0], tuple(v - values[0] for v in values[1:]), at


def _estimate(provider: str | None, model: str, day: str, counts: tuple[int, int, int, int]) -> float | None:
    found = _model_price(provider, model, day)
    if found is None:
        return None
    price, thresholds = found
    tier = _tier(thresholds, counts[0] + counts[2] + counts[3])
    affine = _affine(provider, model, day, tier)
    try:
        if affine is not None:
            base, rates, at = affine
            total = float(base + sum(r * (c - a) for r, c, a in zip(rates, counts, at, strict=True)))
        else:
            total = float(price.calc_price(_usage(counts))["total_price"])
    except (LookupError, ValueError, ArithmeticError):
        return None
    return total if math.isfinite(total) and 0 <= total <= MAX_COST else 0.0


def estimate_cost(
    provider: object, model: object, counts: Mapping[str, int], when: object = None
) -> float | None:
    """Dollars for these token counts at the model's price on the message's day, or None when the
    price table has no such model. ``input`` counts tokens besides the cache reads and writes."""
    if not isinstance(model, str) or not model:
        return None
    given = _PROVIDERS.get(provider, provider) if isinstance(provider, str) and provider else None
    if given is None and "/" in model:
        given, model = model.split("/", 1)  # "openai/gpt-5" as one name
    key = (counts["input"], counts["output"], counts["cacheRead"], counts["cacheWrite"])
    return _estimate(given, model, _day(when), key)


@dataclass(frozen=True, slots=True)
class Cost:
    """One message's cost: recorded or estimated, or None (with the model no price was found for)."""

    amount: float | None
    estimated: bool = False
    unpriced: str | None = None


def usage_cost(usage: object, provider: object, model: object, when: object = None) -> Cost:
    """The cost of one ``usage`` object: the recorded one, else an estimate from its token counts."""
    if not isinstance(usage, Mapping):
        return Cost(None)
    recorded = recorded_cost(usage)
    if recorded is not None:
        return Cost(recorded)
    counts = token_counts(usage)
    if not any(counts.values()):
        return Cost(None)
    amount = estimate_cost(provider, model, counts, when)
    if amount is None:
        return Cost(None, unpriced=model_label(provider, model))
    return Cost(amount, estimated=True)


@dataclass
class CostTotal:
    """A sum of costs that remembers whether any was estimated and which models had no price."""

    amount: float = 0.0
    priced: int = 0
    estimated: int = 0
    unpriced: dict[str, None] = field(default_factory=dict)

    def add(self, cost: Cost) -> None:
        """Add one message's cost."""
        if cost.amount is not None:
            self.amount += cost.amount
            self.priced += 1
            self.estimated += cost.estimated
        if cost.unpriced is not None:
            self.unpriced[cost.unpriced] = None

    @property
    def value(self) -> float | None:
        """The dollars; None when tokens were spent but nothing had a price (``-``)."""
        return None if not self.priced and self.unpriced else self.amount

    def text(self, digits: int | None = 4) -> str:
        """The total as ``cost_text`` writes it."""
        return cost_text(self.value, self.estimated > 0, self.unpriced, digits)


def dollars(amount: float | None, digits: int | None = None) -> str:
    """``$1.23`` (more digits under a cent), or with ``digits`` decimals; ``-`` for None."""
    if amount is None:
        return "-"
    if digits is not None:
        return f"${amount:,.{digits}f}"
    return f"${amount:,.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.4f}"


def cost_text(
    amount: float | None, estimated: bool, unpriced: Iterable[str] = (), digits: int | None = None
) -> str:
    """``$1.23``, ``$1.23 estimated``, or ``-``, naming the models that had no price."""
    shown = dollars(amount, digits)
    if estimated and amount is not None:
        shown += " estimated"
    names = list(unpriced)
    if names:
        shown += f" (no price for {', '.join(names)})"
    return shown
