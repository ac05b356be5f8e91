"""The process's Redis subscription to announced events, kept alive across Redis restarts.

django-eventstream (production mode, ``EVENTSTREAM_REDIS``) subscribes each web process once, at its first
stream, and never again: when Redis drops the connection (a restart, a failover) the subscription's task
ends, and no stream of that process hears another event. Its pages wait for a ``done`` that never comes: the
wrapper's fills (``ordering``) catch up only at a stream's first keep-alive or when a later event arrives,
which is exactly what stopped arriving.

``ResubscribingRedisListener`` subscribes again, after a capped backoff, and once Redis confirms the new
subscription it has every open stream of the process read storage again (the library's ``overflow``): what
was announced while the process was deaf is stored (``diagnosis.sse``), so no event is lost, and the wrapper
drops what a stream had already sent. ``install`` puts it in place of the library's listener.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

from django_eventstream.event import Event
from django_eventstream.views import RedisListener, get_listener_manager
from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

#: The Redis pub/sub channel django-eventstream announces every event on (``eventstream.send_event``).
ANNOUNCEMENTS = "events_channel"
FIRST_RETRY_SECONDS = 0.5
MAX_RETRY_SECONDS = 10.0


class ResubscribingRedisListener(RedisListener):
    pubsub: PubSub

    def __init__(self) -> None:
        super().__init__()
        self._lost = False
        self._retry = FIRST_RETRY_SECONDS

    async def start(self) -> None:
        """Listen for as long as the process lives, subscribing again whenever the subscription is lost."""
        while True:
            try:
                await self.listen()
            except Exception as error:  # whatever ended it, a process must not stay deaf (cancellation is not)
                logger.warning(
                    "SSE: lost the Redis subscription (%s); subscribing again in %.1f s",
                    error,
                    self._retry,
                    exc_info=not isinstance(error, RedisError | OSError),
                )
            self._lost = True
            await self._renew()
            await asyncio.sleep(self._retry)
            self._retry = min(self._retry * 2, MAX_RETRY_SECONDS)

    async def listen(self) -> None:
        await self.pubsub.subscribe(ANNOUNCEMENTS)
        async for message in self.pubsub.listen():
            if message["type"] == "subscribe":
                self._retry = FIRST_RETRY_SECONDS
                if self._lost:
                    self._lost = False
                    logger.info("SSE: subscribed to Redis again; open streams read what they missed from storage")
                    read_storage_again()
            elif message["type"] == "message":
                announced = json.loads(message["data"])
                channel = announced["channel"]
                event = Event(channel, announced["event_type"], announced["data"], id=announced["pub_id"])
                get_listener_manager().add_to_queues(channel, event)

    async def _renew(self) -> None:
        """A new subscription object: the old one's connection is broken."""
        with contextlib.suppress(RedisError, OSError):
            await self.pubsub.aclose()
        self.pubsub = self.redis_client.pubsub()


def read_storage_again() -> None:
    """Have every open stream of this process read its channel from storage (after its last id) and wake."""
    manager = get_listener_manager()
    with manager.lock:
        listeners = {listener for channel in manager.listeners_by_channel.values() for listener in channel}
        for listener in listeners:
            listener.overflow = True
    for listener in listeners:
        listener.wake_threadsafe()


def install() -> None:
    """Replace django-eventstream's listener of this process by one that survives Redis restarts (production
    mode only: without ``EVENTSTREAM_REDIS`` events are announced in-process and there is nothing to lose)."""
    manager = get_listener_manager()
    if manager.redis_listener is not None and not isinstance(manager.redis_listener, ResubscribingRedisListener):
        manager.redis_listener = ResubscribingRedisListener()
