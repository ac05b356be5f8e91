"""The fan-out wakes only the streams of the run that published, in-process and through Redis pub/sub.

django-eventstream's listener manager keeps its listeners by channel; an event, announced in-process or
received from Redis by the process's one subscription, is queued to that channel's listeners alone. Idle
streams of other runs stay asleep: they cost a process nothing when somebody else's run progresses.
"""

from __future__ import annotations

import asyncio
import uuid
from urllib.parse import urlsplit

import django_eventstream.eventstream
import django_eventstream.views
import pytest
import redis
from asgiref.sync import sync_to_async
from django_eventstream.views import Listener, ListenerManager

from diagnosis import sse
from tests.services import TEST_REDIS_URL, require

pytestmark = pytest.mark.django_db(transaction=True)

IDLE_RUNS = 20


@pytest.fixture(params=["in-process", "redis"])
def fan_out(request, monkeypatch, settings) -> str:
    """A fresh listener manager over the in-process fan-out, or over Redis pub/sub (this pass's Redis, else
    the tests' one), as a process gets at start."""
    if request.param == "redis":
        require("redis")
        if not hasattr(settings, "EVENTSTREAM_REDIS"):
            address = urlsplit(TEST_REDIS_URL)
            settings.EVENTSTREAM_REDIS = {"host": address.hostname, "port": address.port, "db": 15}
            monkeypatch.setattr(
                django_eventstream.eventstream, "redis_client", redis.Redis(**settings.EVENTSTREAM_REDIS)
            )
    else:
        if hasattr(settings, "EVENTSTREAM_REDIS"):
            del settings.EVENTSTREAM_REDIS
        monkeypatch.setattr(django_eventstream.eventstream, "redis_client", None)
    monkeypatch.setattr(django_eventstream.views, "listener_manager", ListenerManager())
    return request.param


def listening(channel: str) -> Listener:
    listener = Listener()
    listener.channels = {channel}
    listener.assign_loop()
    django_eventstream.views.get_listener_manager().add_listener(listener)
    return listener


async def publish_until_heard(run_id: uuid.UUID, listener: Listener) -> None:
    """Publish to the run until its listener hears it: the Redis subscription starts with the first
    listener, and what is published before it is active is not received (the stream's fill covers that)."""
    for attempt in range(10):
        await sync_to_async(sse.publish)(run_id, "status", {"attempt": attempt})
        try:
            await asyncio.wait_for(listener.aevent.wait(), timeout=1)
            return
        except TimeoutError:
            continue
    raise AssertionError("the run's own stream never heard its event")


def test_an_event_wakes_only_the_streams_of_its_run(fan_out):
    run_id = uuid.uuid4()

    async def scenario() -> tuple[Listener, list[Listener]]:
        publishing = listening(sse.channel_for(run_id))
        idle = [listening(sse.channel_for(uuid.uuid4())) for _ in range(IDLE_RUNS)]
        await publish_until_heard(run_id, publishing)
        await asyncio.sleep(0.5)  # time for any stray wake-up to land
        return publishing, idle

    publishing, idle = asyncio.run(scenario())

    assert publishing.channel_items[sse.channel_for(run_id)]
    assert not any(listener.aevent.is_set() or listener.channel_items for listener in idle)


def test_an_event_is_announced_without_a_publish_to_a_grip_proxy(fan_out, monkeypatch):
    """The service has no GRIP proxy (Pushpin): django-eventstream's publish to one, which escapes every event
    character by character first, is left out, and the run's stream still hears its event."""

    def grip_publish(*args, **kwargs):
        raise AssertionError("an event was published to a GRIP proxy")

    monkeypatch.setattr(django_eventstream.eventstream, "publish_event", grip_publish)
    run_id = uuid.uuid4()

    async def scenario() -> None:
        await publish_until_heard(run_id, listening(sse.channel_for(run_id)))

    asyncio.run(scenario())
