"""A background step's failure, logged as one line a terminal shows safely.

Serve's background loops (the count pass, the index feed, the watcher, the search index's updates,
the database mirrors) never end on a failure: they log it and go on. What they log reaches the
terminal serve runs in, so it is one line, its text made printable (a file name may carry escape
sequences); the traceback only when the log asks for debug detail.
"""

from __future__ import annotations

import logging

from sessiontree.store.discovery import printable


def log_failure(log: logging.Logger, what: str, exc: BaseException) -> None:
    """Log ``what`` failed, and why, on one line (with the traceback at debug level)."""
    log.error(
        "%s: %s",
        printable(what),
        printable(str(exc) or type(exc).__name__),
        exc_info=log.isEnabledFor(logging.DEBUG),
    )
