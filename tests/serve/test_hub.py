"""The event hub: fan-out per topic, clean-up of clients that leave, slow clients told to reload."""

from __future__ import annotations

import asyncio

import pytest

from sessiontree.serve.hub import QUEUE_SIZE, Event, Hub

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_each_subscriber_gets_each_event() -> None:
    hub = Hub()
    streams = [hub.stream("s:a") for _ in range(3)]
    firsts = [asyncio.ensure_future(anext(s)) for s in streams]
    while hub.count("s:a") < 3:
        await asyncio.sleep(0)
    hub.publish("s:a", Event("append", {"n": 1}))
    hub.publish("s:b", Event("append", {"n": 2}))  # another topic: not theirs
    assert [(await f).data for f in firsts] == [{"n": 1}] * 3
    for s in streams:
        await s.aclose()


async def test_a_client_that_leaves_is_removed() -> None:
    hub = Hub()
    stream = hub.stream("index")
    waiting = asyncio.ensure_future(anext(stream))
    while hub.count("index") == 0:
        await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await stream.aclose()
    assert hub.count("index") == 0 and hub.topics() == []


async def test_a_subscription_never_streamed_is_removed_by_unsubscribe() -> None:
    hub = Hub()
    queue = hub.subscribe("s:a")
    assert hub.count("s:a") == 1
    hub.unsubscribe("s:a", queue)
    hub.unsubscribe("s:a", queue)  # twice is fine (stream end and the response's clean-up)
    assert hub.count("s:a") == 0


async def test_a_slow_client_is_told_to_reload() -> None:
    hub = Hub()
    queue = hub.subscribe("s:a")
    for n in range(QUEUE_SIZE + 5):
        hub.publish("s:a", Event("append", {"n": n}))
    assert queue.qsize() == 1
    event = queue.get_nowait()
    assert event is not None and event.name == "replaced"


async def test_close_ends_every_stream() -> None:
    hub = Hub()
    stream = hub.stream("index", first=[Event("index", {"html": ""})])
    assert (await anext(stream)).name == "index"
    pending = asyncio.ensure_future(anext(stream))
    hub.close()
    with pytest.raises(StopAsyncIteration):
        await pending
    assert hub.count("index") == 0
