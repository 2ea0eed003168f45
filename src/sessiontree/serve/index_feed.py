"""The index page's live feed: its groups pushed to open index pages when the listing changes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sessiontree.pages.index_page import index_summary, render_index_groups
from sessiontree.serve.hub import Event, Hub
from sessiontree.serve.listing import Listing
from sessiontree.store.discovery import SessionInfo

INDEX_TOPIC = "index"
INDEX_MIN_INTERVAL = 0.25
"""At most four index pushes a second, however fast files change."""


class IndexFeed:
    """Renders the listing's groups and publishes them when they differ from the last push."""

    def __init__(self, listing: Listing, hub: Hub, link_for: Callable[[SessionInfo], str]) -> None:
        self.listing = listing
        self.hub = hub
        self.link_for = link_for
        self.dirty = asyncio.Event()
        self._html = ""

    async def event(self, *, force: bool = False) -> Event | None:
        """The index's groups as an event, or None when nothing shown has changed."""
        entries = await self.listing.scan_async()
        html = render_index_groups(entries, self.link_for)
        if html == self._html and not force:
            return None
        self._html = html
        return Event("index", {"html": html, "summary": index_summary(entries)})

    async def push_forever(self, pause: Callable[[float], Awaitable[None]]) -> None:
        """Publish the index whenever it was marked dirty and someone has it open."""
        while not self.hub.closed.is_set():
            await self.dirty.wait()
            self.dirty.clear()
            if self.hub.count(INDEX_TOPIC):
                event = await self.event()
                if event is not None:
                    self.hub.publish(INDEX_TOPIC, event)
            await pause(INDEX_MIN_INTERVAL)
