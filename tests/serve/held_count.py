"""Run ``python -m sessiontree ...`` with serve's background count held until a gate file exists.

A test starts serve through it (``serve_process(..., python=held_python(gate))``) to see the usage
page while files are still to count, whatever the machine's load: the count cannot end before the
test makes the gate. Usage: ``python held_count.py [--listing] GATE -m sessiontree ARGS...``;
``--listing``: every listing of the folders is held instead (a server whose first listing is not
made yet, as one at 100,000 sessions is for seconds).
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path
from typing import Any

from sessiontree.serve.listing import Listing


def main() -> None:
    listing = sys.argv[1] == "--listing"
    if listing:
        del sys.argv[1]
    gate = Path(sys.argv[1])
    settle_some, scan = Listing.settle_some, Listing._scan

    def wait() -> None:
        while not gate.exists():  # a state the test sets: nothing held before it
            time.sleep(0.02)

    def held(self: Listing, budget: float) -> tuple[bool, bool]:
        wait()
        return settle_some(self, budget)

    def held_scan(self: Listing, again: bool) -> tuple[tuple[int, ...], list[Any]]:
        wait()
        return scan(self, again)

    if listing:
        Listing._scan = held_scan  # type: ignore[method-assign]
    else:
        Listing.settle_some = held  # type: ignore[method-assign]
    assert sys.argv[2:4] == ["-m", "sessiontree"], sys.argv
    sys.argv = ["sessiontree", *sys.argv[4:]]
    runpy.run_module("sessiontree", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
