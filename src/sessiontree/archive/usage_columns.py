"""The SQLite columns of usage counts: the index's (``archive.usage_store``) and serve's usage
store's (``archive.usage_db``), one definition for both."""

from __future__ import annotations

TOTALS = (
    "messages INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL, "
    "cache_read INTEGER NOT NULL, cache_write INTEGER NOT NULL, cost REAL NOT NULL, "
    "costed INTEGER NOT NULL, estimated INTEGER NOT NULL, unpriced INTEGER NOT NULL"
)
"""The columns of a total of messages (the index's per quarter hour, and ``archive.usage_db``'s rows)."""
MESSAGE = (
    "input INTEGER NOT NULL, output INTEGER NOT NULL, cache_read INTEGER NOT NULL, "
    "cache_write INTEGER NOT NULL, cost REAL, estimated INTEGER NOT NULL, unpriced INTEGER NOT NULL"
)
"""The columns of one message's counts (the index's, and ``archive.usage_db``'s)."""
