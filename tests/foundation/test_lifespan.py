"""The ASGI lifespan in front of Django: the server's shutdown runs the stopper, and a stopper that fails is
said (logged, and answered ``lifespan.shutdown.failed``), not taken by uvicorn for "lifespan unsupported"."""

from __future__ import annotations

import asyncio
import logging

from config.lifespan import Lifespan


def lifespan_of(on_shutdown) -> list[dict]:
    """What the wrapper answers to a server's startup and shutdown."""
    sent: list[dict] = []
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

    async def receive():
        return next(messages)

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):  # never asked: lifespan is the wrapper's
        raise AssertionError("the lifespan went to the app")

    asyncio.run(Lifespan(app, on_shutdown)({"type": "lifespan"}, receive, send))
    return sent


def test_the_shutdown_runs_the_stopper_and_completes():
    stopped = []

    assert lifespan_of(lambda: stopped.append(True)) == [
        {"type": "lifespan.startup.complete"},
        {"type": "lifespan.shutdown.complete"},
    ]
    assert stopped == [True]


def test_a_stopper_that_fails_is_logged_and_answered_as_failed(caplog):
    def database_down():
        raise RuntimeError("database is locked")

    with caplog.at_level(logging.ERROR, logger="config.lifespan"):
        sent = lifespan_of(database_down)

    assert sent[-1] == {"type": "lifespan.shutdown.failed", "message": "database is locked"}
    assert "could not end what it was executing" in caplog.text


def test_other_scopes_go_to_the_app():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    asyncio.run(Lifespan(app, lambda: None)({"type": "http"}, None, None))

    assert seen == ["http"]
