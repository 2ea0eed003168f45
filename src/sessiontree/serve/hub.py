"""Fan-out of server events to the open event streams, by topic (the index, one session)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

QUEUE_SIZE = 256
"""Events a slow client may have pending before it is told to reload instead."""


@dataclass(frozen=True, slots=True)
class Event:
    """One server-sent event: its name and JSON data."""

    name: str
    data: dict[str, Any]

    def encode(self) -> str:
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))


RESYNC = Event("replaced", {"reason": "behind"})


class Hub:
    """Subscriber queues per topic; publishing never blocks the event loop."""

    def __init__(self) -> None:
        self._subs: dict[str, set[asyncio.Queue[Event | None]]] = {}
        self._behind: set[asyncio.Queue[Event | None]] = set()
        self.closed = asyncio.Event()

    def count(self, topic: str) -> int:
        """Subscribers of one topic."""
        return len(self._subs.get(topic, ()))

    def topics(self) -> list[str]:
        """Topics with at least one subscriber."""
        return [t for t, subs in self._subs.items() if subs]

    def publish(self, topic: str, event: Event) -> None:
        """Queue an event for every subscriber of ``topic``."""
        for queue in list(self._subs.get(topic, ())):
            if queue in self._behind:
                continue  # told to reload already: nothing after that would be used
            try:
                queue.put_nowait(event)
            except asyncio.QueueFull:
                # Too far behind to catch up event by event: drop what it has, make it reload.
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(RESYNC)
                self._behind.add(queue)

    def subscribe(self, topic: str) -> asyncio.Queue[Event | None]:
        """Start receiving the events of ``topic`` (before reading what a client missed)."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue(QUEUE_SIZE)
        self._subs.setdefault(topic, set()).add(queue)
        return queue

    def unsubscribe(self, topic: str, queue: asyncio.Queue[Event | None]) -> None:
        """Stop sending to one subscriber (a client that left)."""
        self._behind.discard(queue)
        subs = self._subs.get(topic)
        if subs is not None:
            subs.discard(queue)
            if not subs:
                del self._subs[topic]

    async def stream(
        self, topic: str, queue: asyncio.Queue[Event | None] | None = None, first: list[Event] | None = None
    ) -> AsyncGenerator[Event, None]:
        """Yield the events of ``topic`` until the client leaves or the server stops."""
        queue = queue if queue is not None else self.subscribe(topic)
        try:
            for event in first or ():
                yield event
            while not self.closed.is_set():
                got = await self._next(queue)
                if got is None:
                    return
                yield got
        finally:
            self.unsubscribe(topic, queue)

    async def _next(self, queue: asyncio.Queue[Event | None]) -> Event | None:
        """The next event of a queue, or None once the hub closes."""
        closing = asyncio.ensure_future(self.closed.wait())
        getting = asyncio.ensure_future(queue.get())
        try:
            await asyncio.wait({closing, getting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            # Also when the stream itself is cancelled: a waiter left pending is reported at exit.
            for task in (closing, getting):
                task.cancel()
        if getting.done() and not getting.cancelled():
            return getting.result()
        return None

    def close(self) -> None:
        """End every stream (server shutdown)."""
        self.closed.set()
