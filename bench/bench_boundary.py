#!/usr/bin/env python3
"""What the one range check of times, token counts and costs costs (issue 55), against a library.

Every reader's entries go through ``store.sane.contain_values`` (readers.base.make_session): a
count outside 0..10**12, a cost outside 0..10**6, a time outside 1970..2200 becomes unknown and
the other fields stay. The same lenient check of 20,000 assistant entries (1 in 100 with a
negative count, 1 in 137 with a cost that is text), done by ours, by pydantic (a model with
constrained fields; the fields its errors name removed) and by msgspec when it is installed (an
annotated Struct; it stops at the first error, so a failed entry is checked field by field).
CPU time, median of interleaved runs; figures, not assertions. Usage:
  .venv/bin/python bench/bench_boundary.py [--runs 11]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

from sessiontree.store.sane import MAX_COST, MAX_TOKENS, contain_values

Check = Callable[[list[dict[str, Any]]], Any]


def entries(n: int) -> list[dict[str, Any]]:
    rng = random.Random(7)
    made = []
    for i in range(n):
        usage: dict[str, Any] = {"input": rng.randint(0, 5000), "output": rng.randint(0, 500),
                                 "cacheRead": rng.randint(0, 9000), "cacheWrite": 0, "totalTokens": 14000,
                                 "cost": rng.random()}  # fmt: skip
        if i % 100 == 0:
            usage["input"] = -1_000_000
        if i % 137 == 0:
            usage["cost"] = "x"
        message = {"role": "assistant", "usage": usage}
        made.append({"id": f"e{i}", "timestamp": "2026-02-04T10:51:00.000Z", "message": message})
    return made


def pydantic_check() -> Check:
    from pydantic import BaseModel, Field, ValidationError

    count = Annotated[int, Field(ge=0, le=MAX_TOKENS, strict=True)]

    class Usage(BaseModel):
        input: count | None = None
        output: count | None = None
        cacheRead: count | None = None
        cacheWrite: count | None = None
        totalTokens: count | None = None
        cost: Annotated[float, Field(ge=0, le=MAX_COST, allow_inf_nan=False)] | None = None

    def check(data: list[dict[str, Any]]) -> None:
        for entry in data:
            usage = entry["message"]["usage"]
            try:
                Usage.model_validate(usage)
            except ValidationError as exc:
                for error in exc.errors():
                    usage.pop(error["loc"][0], None)

    return check


def msgspec_check() -> Check | None:
    try:
        import msgspec
    except ImportError:
        return None
    count = Annotated[int, msgspec.Meta(ge=0, le=MAX_TOKENS)]
    amount = Annotated[float, msgspec.Meta(ge=0, le=MAX_COST)]

    names = ("input", "output", "cacheRead", "cacheWrite", "totalTokens")
    # defstruct: annotations are strings under ``from __future__ import annotations``
    usage_struct = msgspec.defstruct(
        "Usage", [*((n, count | None, None) for n in names), ("cost", amount | None, None)]
    )

    def check(data: list[dict[str, Any]]) -> None:
        for entry in data:
            usage = entry["message"]["usage"]
            try:
                msgspec.convert(usage, usage_struct)
            except msgspec.ValidationError:
                for key in list(usage):
                    try:
                        msgspec.convert(usage[key], amount if key == "cost" else count)
                    except msgspec.ValidationError:
                        del usage[key]

    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--entries", type=int, default=20_000)
    args = parser.parse_args()
    text = json.dumps(entries(args.entries))
    checks: dict[str, Check] = {"ours (store.sane)": contain_values, "pydantic": pydantic_check()}
    found = msgspec_check()
    if found is not None:
        checks["msgspec"] = found
    times: dict[str, list[float]] = {name: [] for name in checks}
    for _ in range(args.runs):
        for name, check in random.sample(list(checks.items()), len(checks)):
            data = json.loads(text)
            start = time.process_time()
            check(data)
            times[name].append(time.process_time() - start)
    print(
        f"{args.entries:,} entries, CPU median of {args.runs}" + ("" if found else " (msgspec not installed)")
    )
    for name, taken in times.items():
        print(f"  {name:20} {statistics.median(taken) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
