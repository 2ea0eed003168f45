"""The sessions open in a browser: each followed as its file grows, dropped when nobody watches."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sessiontree.serve.live import LiveSession

IDLE_SECONDS = 60.0
"""A followed session nobody watches is dropped after this long (its memory freed)."""
IDLE_BYTES = 2 * 1024 * 1024
"""File bytes of the sessions nobody watches kept at most (the least recently opened dropped first):
fifty clients opening fifty 0.2 MB sessions at once held 90 MB more than one client without it."""


SESSION_TOPIC = "s:"
"""What every session's topic starts with."""


def topic_of(key: str) -> str:
    """The hub topic of one session's events."""
    return SESSION_TOPIC + key


class FollowedSessions:
    """``LiveSession`` per key, made on first use; the images their pages refer to by URL."""

    def __init__(
        self, *, agent_dir: Path | None, image_prefix: str, watchers: Callable[[str], int] = lambda _: 0
    ) -> None:
        self.agent_dir = agent_dir
        self.image_prefix = image_prefix
        self.watchers = watchers
        """How many event streams a topic has open (serve: ``Hub.count``)."""
        self.sessions: dict[str, LiveSession] = {}
        self._last_used: dict[str, float] = {}
        self._sizes: dict[str, int] = {}

    def live(self, key: str, path: Path) -> LiveSession:
        """The followed session of a key (made on first use, again when the key names another file)."""
        self._last_used[key] = time.monotonic()
        live = self.sessions.get(key)
        if live is None or live.path != path:
            live = LiveSession(path, agent_dir=self.agent_dir, image_prefix=self.image_prefix)
            self.sessions[key] = live
            try:
                self._sizes[key] = live.file.stat().st_size
            except OSError:
                self._sizes[key] = 0
            self._keep_within_budget(key)
        return live

    def _keep_within_budget(self, opened: str) -> None:
        """Drop the least recently opened sessions nobody watches while they hold over ``IDLE_BYTES``
        (a page still streaming keeps its own session until it ends)."""
        idle = [k for k in self.sessions if k != opened and self.watchers(topic_of(k)) == 0]
        idle.sort(key=lambda k: self._last_used.get(k, 0.0))
        held = sum(self._sizes.get(k, 0) for k in idle)
        for key in idle:
            if held <= IDLE_BYTES:
                break
            held -= self._sizes.get(key, 0)
            self._forget(key)

    def _forget(self, key: str) -> None:
        del self.sessions[key]
        self._last_used.pop(key, None)
        self._sizes.pop(key, None)

    def image_bytes(self, sha: str) -> bytes | None:
        """An image a served page refers to, if a followed session holds it."""
        for live in list(self.sessions.values()):
            found = live.images.get(sha)
            if found is not None:
                return found.data
        return None

    def watched(self, watchers: Callable[[str], int]) -> list[tuple[str, LiveSession]]:
        """The followed sessions someone has a stream open on (``watchers`` counts a topic's)."""
        return [(k, live) for k, live in list(self.sessions.items()) if watchers(topic_of(k))]

    def drop_idle(self, watchers: Callable[[str], int], now: float | None = None) -> None:
        """Forget followed sessions nobody has watched for a while."""
        moment = time.monotonic() if now is None else now
        for key in list(self.sessions):
            if watchers(topic_of(key)) == 0 and moment - self._last_used.get(key, 0.0) > IDLE_SECONDS:
                self._forget(key)
