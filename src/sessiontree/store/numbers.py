"""Read numbers from session values: every count and amount is finite and bounded, never a crash."""

from __future__ import annotations

import math

# JavaScript's largest exact integer: counts stay exact in the viewer, in JSON and in SQLite.
MAX_COUNT = 2**53 - 1


def count_of(value: object) -> int:
    """Return an integer count (token counts): non-numbers, Infinity and NaN are 0; huge values clamp."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(-MAX_COUNT, min(MAX_COUNT, value))
    if isinstance(value, float) and math.isfinite(value):
        return max(-MAX_COUNT, min(MAX_COUNT, int(value)))
    return 0


def amount_of(value: object) -> float:
    """Return a finite float (costs): non-numbers, Infinity and NaN are 0.0; huge values clamp."""
    if isinstance(value, bool):
        return 0.0
    if isinstance(value, int):
        # float() of a 400-digit int raises OverflowError: compare as ints first.
        return float(max(-MAX_COUNT, min(MAX_COUNT, value)))
    if isinstance(value, float) and math.isfinite(value):
        return max(-float(MAX_COUNT), min(float(MAX_COUNT), value))
    return 0.0


# JSON numbers as the line decoder reads them (its parse hooks), so no stored value is unbounded.
_DIGITS = 15  # every integer of at most 15 digits is within MAX_COUNT


def int_from_json(text: str) -> int:
    """Return a JSON integer clamped to +-MAX_COUNT (thousands of digits are never converted)."""
    if len(text) <= _DIGITS:
        return int(text)
    if len(text) > _DIGITS + 2:
        return -MAX_COUNT if text.startswith("-") else MAX_COUNT
    return max(-MAX_COUNT, min(MAX_COUNT, int(text)))


def float_from_json(text: str) -> float | None:
    """Return a JSON float clamped to +-MAX_COUNT; one past a float's range (``1e400``) is absent."""
    value = float(text)
    if not math.isfinite(value):
        return None
    return max(-float(MAX_COUNT), min(float(MAX_COUNT), value))


def constant_from_json(text: str) -> None:
    """Read ``NaN``, ``Infinity`` and ``-Infinity`` (not JSON, though Python writes them) as absent."""
    return None
