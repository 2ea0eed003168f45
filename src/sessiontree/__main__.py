"""Run the command line interface: ``python -m sessiontree``."""

from __future__ import annotations

from sessiontree.cli import main

if __name__ == "__main__":
    main()
