"""The process's Redis subscription (production mode) survives a Redis restart, then has streams read storage.

Against a Redis of the test's own on a loopback port, restarted under the subscription: django-eventstream's
own listener stays deaf after that for the life of the process.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import redis
from django_eventstream.views import Listener, ListenerManager, get_listener_manager

from diagnosis.sse.listener import ResubscribingRedisListener, install
from tests.services import require
from tests.support.ports import free_port

CHANNEL = "run-00000000-0000-0000-0000-000000000001"


@contextmanager
def redis_server(port: int) -> Iterator[Callable[[], None]]:
    """A Redis on ``port``; yields ``restart()``, which stops it and starts a new one on the same port."""
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)

    def ready() -> None:
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=1).ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def restart() -> None:
        nonlocal process
        process.terminate()
        process.wait(timeout=10)
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        ready()

    ready()
    try:
        yield restart
    finally:
        process.terminate()
        process.wait(timeout=10)


async def heard(listener: Listener, port: int, data: str, *, within: float = 15) -> bool:
    """Announce ``data`` on the channel as ``send_event`` does, again until the listener has it."""
    publisher = redis.Redis(host="127.0.0.1", port=port)
    message = json.dumps({"channel": CHANNEL, "event_type": "status", "data": data, "pub_id": data})
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        publisher.publish("events_channel", message)
        await asyncio.sleep(0.1)
        if any(event.data == data for event in listener.channel_items.get(CHANNEL, [])):
            return True
    return False


async def until(condition: Callable[[], bool], *, within: float = 15) -> bool:
    deadline = time.monotonic() + within
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return condition()


def test_the_subscription_survives_a_redis_restart_and_streams_then_read_storage(settings):
    require("redis-server")
    port = free_port()
    settings.EVENTSTREAM_REDIS = {"host": "127.0.0.1", "port": port, "socket_connect_timeout": 1, "retry": None}

    async def scenario(restart: Callable[[], None]) -> None:
        listener = Listener()
        listener.channels = {CHANNEL}
        listener.assign_loop()
        manager = get_listener_manager()
        manager.add_listener(listener)
        subscription = asyncio.create_task(ResubscribingRedisListener().start())
        try:
            assert await heard(listener, port, "1")
            assert not listener.overflow

            restart()

            # Announcements made while the process was deaf are lost: once subscribed again, the open
            # streams are told to read storage, where every announced event already is.
            assert await until(lambda: listener.overflow)
            assert await heard(listener, port, "2")
        finally:
            subscription.cancel()
            manager.remove_listener(listener)

    with redis_server(port) as restart:
        asyncio.run(scenario(restart))


def test_it_replaces_the_librarys_listener_where_events_go_through_redis(settings, monkeypatch):
    settings.EVENTSTREAM_REDIS = {"host": "127.0.0.1", "port": free_port(), "retry": None}
    manager = ListenerManager()  # as the library builds it when EVENTSTREAM_REDIS is set
    monkeypatch.setattr("diagnosis.sse.listener.get_listener_manager", lambda: manager)

    install()

    assert isinstance(manager.redis_listener, ResubscribingRedisListener)


def test_without_redis_there_is_no_listener_to_replace(settings, monkeypatch):
    if hasattr(settings, "EVENTSTREAM_REDIS"):
        del settings.EVENTSTREAM_REDIS
    manager = ListenerManager()  # the embedded mode: events are announced in-process
    monkeypatch.setattr("diagnosis.sse.listener.get_listener_manager", lambda: manager)

    install()

    assert manager.redis_listener is None
