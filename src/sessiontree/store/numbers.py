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
