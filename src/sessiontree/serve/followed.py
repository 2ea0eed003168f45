"""The sessions open in a browser: each followed as its file grows, dropped when nobody watches."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from sessiontree.serve.live import LiveSession

IDLE_SECONDS = 60.0
"""A followed session nobody watches is dropped after this long (its memory freed)."""


SESSION_TOPIC = "s:"
"""What every session's topic starts with."""


def topic_of(key: str) -> str:
    """The hub topic of one session's events."""
    return SESSION_TOPIC + key


class FollowedSessions:
    """``LiveSession`` per key, made on first use; the images their pages refer to by URL."""

    def __init__(self, *, agent_dir: Path | None, image_prefix: str) -> None:
        self.agent_dir = agent_dir
        self.image_prefix = image_prefix
        self.sessions: dict[str, LiveSession] = {}
        self._last_used: dict[str, float] = {}

    def live(self, key: str, path: Path) -> LiveSession:
        """The followed session of a key (made on first use, again when the key names another file)."""
        self._last_used[key] = time.monotonic()
        live = self.sessions.get(key)
        if live is None or live.path != path:
            live = LiveSession(path, agent_dir=self.agent_dir, image_prefix=self.image_prefix)
            self.sessions[key] = live
        return live

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
                del self.sessions[key]
                self._last_used.pop(key, None)
