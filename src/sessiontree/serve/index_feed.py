"""The listing's live feed: the index rows that changed pushed to open index pages when the listing
changes, a ``sessions`` event to every open session page (its pane fetches the list again), and a
``usage`` event to open usage pages while serve counts (how many files are left: the page loads
itself again once the first listing is made and once none is left, never on a timer).

An index event holds only what changed since the last push: the HTML of the changed rows (each in
its project's group, a row with its subagents) and the keys of the rows that left; the first event
of a stream holds none, only the listing's state (a page made from another one asks again).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import anyio

from sessiontree.archive.catalog import CatalogNode, ProjectGroup, group_by_project
from sessiontree.pages.index_page import index_summary, render_groups
from sessiontree.serve.failures import log_failure
from sessiontree.serve.followed import SESSION_TOPIC
from sessiontree.serve.hub import Event, Hub
from sessiontree.serve.listing import Listing, ListingView, shown_fields
from sessiontree.store.discovery import SessionInfo
from sessiontree.store.surrogates import shown_name

log = logging.getLogger(__name__)

INDEX_TOPIC = "index"
INDEX_MIN_INTERVAL = 0.25
"""At most four index pushes a second, however fast files change."""
USAGE_TOPIC = "usage"
USAGE_MIN_INTERVAL = 1.0
"""At most one usage event a second (the count of files left is a walk of every record)."""


def _row_state(node: CatalogNode) -> tuple[object, ...]:
    e = node.entry
    own = (*shown_fields(e), e.display_title, e.created, e.agent, e.first_message, e.cwd)
    return (own, tuple(_row_state(child) for child in node.children))


def index_rows(groups: Iterable[ProjectGroup]) -> dict[str, int]:
    """Each top-level row's state (its session's and its subagents' shown fields), by key."""
    return {node.entry.key: hash((g.cwd, _row_state(node))) for g in groups for node in g.nodes}


def sessions_event(state: str) -> Event:
    """A ``sessions`` event: the listing as the pane's list has it (``/api/sessions``' ``state``)
    is now ``state`` (a pane whose list has another state fetches it again)."""
    return Event("sessions", {"state": state})


class IndexFeed:
    """Publishes the index rows that differ from the last push."""

    def __init__(self, listing: Listing, hub: Hub, link_for: Callable[[SessionInfo], str]) -> None:
        self.listing = listing
        self.hub = hub
        self.link_for = link_for
        self.dirty = asyncio.Event()
        self._rows: dict[str, int] | None = None
        """The rows as of the last push (None: no index page open since)."""
        self._state = ""
        self._summary = ""
        self._pane_state: str | None = None
        self.usage_dirty = asyncio.Event()
        self._usage_left: int | None = None
        """The files left as the last usage event said (None: no usage page open since)."""

    def _catch_up(self, view: ListingView) -> dict[str, Any] | None:
        """What changed since the last push (None: nothing), and that listing as the last push."""
        groups = view.made("groups", group_by_project)
        rows = view.made("row states", lambda _: index_rows(groups))
        old, self._rows = self._rows, rows
        self._state, self._summary = view.state, view.made("summary", index_summary)
        if old is None:
            return None
        changed = [
            ProjectGroup(g.cwd, nodes)
            for g in groups
            if (nodes := [n for n in g.nodes if old.get(n.entry.key) != rows[n.entry.key]])
        ]
        gone = [shown_name(key) for key in old if key not in rows]
        if not changed and not gone:
            return None
        return {"html": render_groups(changed, self.link_for), "gone": gone}

    async def first_event(self) -> Event:
        """A new stream's first event: the listing's state as of the last push, no rows."""
        if self._rows is None:
            view = await self.listing.view()
            # A push while this scan ran caught up already (and the change it found was pushed to
            # no one, the rows being None then): its state goes first, never this older listing's.
            if self._rows is None:
                self._catch_up(view)
        return Event(
            "index", {"first": True, "html": "", "gone": [], "summary": self._summary, "state": self._state}
        )

    async def pane_event(self) -> Event:
        """A session stream's first event: the listing as it is now. The page's pane fetched its
        list before its stream was open, and a change in between was pushed to nobody."""
        return sessions_event((await self.listing.view()).state)

    async def event(self, view: ListingView | None = None) -> Event | None:
        """The rows changed since the last push as an event, or None when nothing shown has changed."""
        found = self._catch_up(view if view is not None else await self.listing.view())
        if found is None:
            return None
        return Event("index", {**found, "summary": self._summary, "state": self._state})

    async def push_forever(self, pause: Callable[[float], Awaitable[None]]) -> None:
        """Publish the index whenever it was marked dirty and someone has it or a session page open."""
        while not self.hub.closed.is_set():
            await self.dirty.wait()
            self.dirty.clear()
            try:
                await self.push()
            except Exception as exc:  # never the end of the feed (open pages would stop following): logged
                log_failure(log, "index not pushed", exc)
            await pause(INDEX_MIN_INTERVAL)

    async def usage_event(self) -> Event:
        """A ``usage`` event: how many files are left to count (-1: the first listing not made)."""
        return Event(USAGE_TOPIC, {"left": await anyio.to_thread.run_sync(self.listing.usage_left)})

    async def push_usage_forever(self, pause: Callable[[float], Awaitable[None]]) -> None:
        """Publish the count of files left to the open usage pages when it changed (``push`` marks
        it to look, at most every ``USAGE_MIN_INTERVAL``: a mark during the pause is kept)."""
        while not self.hub.closed.is_set():
            await self.usage_dirty.wait()
            self.usage_dirty.clear()
            try:
                if not self.hub.count(USAGE_TOPIC):
                    self._usage_left = None
                    continue
                event = await self.usage_event()
                if event.data["left"] != self._usage_left:
                    self._usage_left = event.data["left"]
                    self.hub.publish(USAGE_TOPIC, event)
            except Exception as exc:  # never the end of the feed: logged
                log_failure(log, "usage count not pushed", exc)
            await pause(USAGE_MIN_INTERVAL)

    async def push(self) -> None:
        """Publish what changed in the listing to the open index pages and session pages."""
        if self.hub.count(USAGE_TOPIC):
            self.usage_dirty.set()
        pages = [topic for topic in self.hub.topics() if topic.startswith(SESSION_TOPIC)]
        if not self.hub.count(INDEX_TOPIC):
            self._rows = None  # the next page open starts from the listing as it is then
        if not pages:
            self._pane_state = None  # the next session page's stream hears of the next change
        if self.hub.count(INDEX_TOPIC) or pages:
            view = await self.listing.view()
            state = view.state
            if state != self._pane_state:
                self._pane_state = state
                for topic in pages:
                    self.hub.publish(topic, sessions_event(state))
            event = await self.event(view) if self.hub.count(INDEX_TOPIC) else None
            if event is not None:
                self.hub.publish(INDEX_TOPIC, event)
