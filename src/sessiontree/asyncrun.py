"""Run a coroutine to completion from sync code, also where this thread already runs an event loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


def run_sync(awaitable: Awaitable[T]) -> T:
    """Return the result of ``awaitable``; in a thread with a running loop (a notebook, an async
    caller, Playwright's sync API), run it on a fresh loop in a helper thread, where asyncio.run works.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _await(awaitable)).result()
