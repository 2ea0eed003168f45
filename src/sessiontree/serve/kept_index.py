"""A fresh server's first index page from its last run's (issue 54 item 1): shown at once, then
corrected over the index's event stream.

A server's first listing walks and stats every file and loads the kept catalog (at 100,000
sessions: seconds). Meanwhile the first ``GET /`` answers with the index page the last run made
last (at each ``GET /`` and when it stopped), kept in the cache dir (written atomically, one file
per set of served folders and options). That page carries its listing's state: the stream's first
event, sent once the new listing is made, has the new one, and the page asks for its rows again
(``index-live.js``), as any page made from an older listing does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path

from sessiontree import __version__
from sessiontree.serve.config import ServeConfig
from sessiontree.store.atomic import make_private_dir, write_atomic

log = logging.getLogger(__name__)

FIRST_PAGE_SECONDS = 0.4
"""How long a fresh server's first ``GET /`` waits for its first listing before it answers with
the page kept from the last run (when there is one), else with a glimpse of the folders."""

GLIMPSE_AFTER_SECONDS = 0.15
"""With no kept page, how long that first ``GET /`` waits for the first listing before it looks."""

GLIMPSE_SECONDS = 0.3
"""With no kept page, how long that first ``GET /`` looks at the folders itself once it stops
waiting (``pages.render_glimpsed_index``): half walking, half reading the newest files found."""


def kept_page_path(config: ServeConfig) -> Path:
    """The kept page's file: named after what makes a page (the package's version, the folders,
    the theme, whether a token guards the server)."""
    made_of = [__version__, [str(r) for r in config.roots], config.theme, config.token is not None]
    digest = hashlib.sha256(json.dumps(made_of).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return config.cache_dir / f"serve-index-{digest}.html"


class KeptIndex:
    """The index page kept from the last run, and the latest one made, kept for the next run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._kept_state: str | None = None
        """The state of the page written last (or found), None before either."""
        self._read: str | None = None
        self._looked = False

    def read(self) -> str | None:
        """The page kept from the last run (None: none, or unreadable: the first listing then)."""
        with self._lock:
            if not self._looked:
                self._looked = True
                try:
                    self._read = self.path.read_text(encoding="utf-8") or None
                except (OSError, UnicodeDecodeError):
                    self._read = None
            return self._read

    def kept(self, state: str) -> bool:
        """Whether the page of the listing of ``state`` is the one kept."""
        with self._lock:
            return self._kept_state == state

    def keep(self, state: str, html: str) -> None:
        """Keep the page made last (once per state; a failed write costs only speed next time)."""
        with self._lock:
            if state == self._kept_state:
                return
            try:
                make_private_dir(self.path.parent)
                write_atomic(self.path, html, readable=False)
            except OSError as exc:
                log.debug("index page not kept: %s", exc)
                return
            self._kept_state = state
