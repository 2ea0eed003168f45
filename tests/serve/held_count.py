"""Run ``python -m sessiontree ...`` with serve's background count held until a gate file exists.

A test starts serve through it (``serve_process(..., python=held_python(gate))``) to see the usage
page while files are still to count, whatever the machine's load: the count cannot end before the
test makes the gate. Usage: ``python held_count.py GATE -m sessiontree ARGS...``.
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

from sessiontree.serve.listing import Listing


def main() -> None:
    gate = Path(sys.argv[1])
    settle_some = Listing.settle_some

    def held(self: Listing, budget: float) -> tuple[bool, bool]:
        while not gate.exists():  # a state the test sets: no count before it
            time.sleep(0.02)
        return settle_some(self, budget)

    Listing.settle_some = held  # type: ignore[method-assign]
    assert sys.argv[2:4] == ["-m", "sessiontree"], sys.argv
    sys.argv = ["sessiontree", *sys.argv[4:]]
    runpy.run_module("sessiontree", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
