"""Every URL the server hands out, from its named routes (as datasette's ``url_builder.py``).

No path is written by hand elsewhere: a route moves, its links follow.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from starlette.routing import Router

from sessiontree.pages.nav import NavLinks

_PLACEHOLDER = "x"


class Urls:
    """Paths of the named routes of one app; keys are percent-encoded here, once."""

    def __init__(self, router: Router) -> None:
        self._router = router
        self._session_prefix: str | None = None

    def _path(self, route: str, **params: str) -> str:
        return str(self._router.url_path_for(route, **params))

    def _keyed(self, name: str, key: str) -> str:
        # The convertor inserts its value as given: quote it so any file name stays one path (its
        # bytes, as the file system has them: the server decodes them back the same way).
        return self._path(name, key=quote(os.fsencode(key)))

    def index(self) -> str:
        return self._path("index")

    def usage(self) -> str:
        return self._path("usage")

    def index_rows(self) -> str:
        return self._path("index_rows")

    def sessions_api(self) -> str:
        return self._path("sessions_api")

    def sessions_window_api(self) -> str:
        return self._path("sessions_window_api")

    def usage_sessions_api(self) -> str:
        return self._path("usage_sessions_api")

    def session_models_api(self) -> str:
        return self._path("session_models_api")

    def search_page(self) -> str:
        return self._path("search")

    def nav(self) -> NavLinks:
        """The links of the pages every served page shows at its top."""
        return NavLinks(index=self.index(), usage=self.usage(), search=self.search_page())

    def usage_events(self) -> str:
        return self._path("usage_events")

    def index_events(self) -> str:
        return self._path("index_events")

    def search_api(self) -> str:
        return self._path("search_api")

    def session_prefix(self) -> str:
        """What every session page's path starts with (the index's script follows only those)."""
        return self._path("session", key=_PLACEHOLDER).removesuffix(_PLACEHOLDER)

    def session(self, key: str, entry_id: str | None = None) -> str:
        """A session's page, at an entry when given (the route's prefix found once: its key is the
        path's end, so the link is that prefix and the quoted key; starlette's ``url_path_for``
        for each row of the pane was 1.7 s of its 4.9 s at 100,000 sessions)."""
        if self._session_prefix is None:
            self._session_prefix = self.session_prefix()
        link = self._session_prefix + quote(os.fsencode(key))
        return link + "?targetId=" + quote(entry_id, safe="") if entry_id else link

    def subagent(self, key: str, agent_id: str) -> str:
        """The page of a Claude Code subagent's transcript kept beside the session ``key``."""
        return self._path("subagent", agent=quote(agent_id, safe=""), key=quote(os.fsencode(key)))

    def session_events(self, key: str) -> str:
        return self._keyed("session_events", key)

    def raw(self, key: str) -> str:
        return self._keyed("raw", key)

    def export(self, key: str) -> str:
        return self._keyed("export", key)

    def artifacts(self, key: str) -> str:
        return self._keyed("artifact", key)

    def blob_prefix(self) -> str:
        """What an image's ``<sha256>.<ext>`` name is appended to."""
        return self._path("blob", name=_PLACEHOLDER).removesuffix(_PLACEHOLDER)
