"""sessiontree: read, keep and share coding-agent session files."""

from __future__ import annotations

__version__ = "0.1.0"
