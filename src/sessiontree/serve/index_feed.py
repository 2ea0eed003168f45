"""The listing's live feed: the index page's groups pushed to open index pages when the listing
changes, and a ``sessions`` event to every open session page (its pane fetches the list again)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sessiontree.pages.index_page import index_summary, render_index_groups
from sessiontree.serve.followed import SESSION_TOPIC
from sessiontree.serve.hub import Event, Hub
from sessiontree.serve.listing import Listing
from sessiontree.store.discovery import SessionInfo

INDEX_TOPIC = "index"
INDEX_MIN_INTERVAL = 0.25
"""At most four index pushes a second, however fast files change."""
SESSIONS_CHANGED = Event("sessions", {})


def listing_state(entries: list[SessionInfo]) -> int:
    """A hash of what the pane shows of the listing (a change of it is pushed)."""
    return hash(
        tuple((e.key, e.modified, e.size, e.message_count, e.prompt_count, e.title, e.error) for e in entries)
    )


class IndexFeed:
    """Renders the listing's groups and publishes them when they differ from the last push."""

    def __init__(self, listing: Listing, hub: Hub, link_for: Callable[[SessionInfo], str]) -> None:
        self.listing = listing
        self.hub = hub
        self.link_for = link_for
        self.dirty = asyncio.Event()
        self._html = ""
        self._state: int | None = None

    async def event(self, *, force: bool = False, entries: list[SessionInfo] | None = None) -> Event | None:
        """The index's groups as an event, or None when nothing shown has changed."""
        entries = entries if entries is not None else await self.listing.scan_async()
        html = render_index_groups(entries, self.link_for)
        if html == self._html and not force:
            return None
        self._html = html
        return Event("index", {"html": html, "summary": index_summary(entries)})

    async def push_forever(self, pause: Callable[[float], Awaitable[None]]) -> None:
        """Publish the index whenever it was marked dirty and someone has it or a session page open."""
        while not self.hub.closed.is_set():
            await self.dirty.wait()
            self.dirty.clear()
            pages = [topic for topic in self.hub.topics() if topic.startswith(SESSION_TOPIC)]
            if self.hub.count(INDEX_TOPIC) or pages:
                entries = await self.listing.scan_async()
                state = listing_state(entries)
                if state != self._state:
                    self._state = state
                    for topic in pages:
                        self.hub.publish(topic, SESSIONS_CHANGED)
                event = await self.event(entries=entries) if self.hub.count(INDEX_TOPIC) else None
                if event is not None:
                    self.hub.publish(INDEX_TOPIC, event)
            await pause(INDEX_MIN_INTERVAL)
