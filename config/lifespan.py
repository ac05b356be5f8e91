"""The ASGI lifespan protocol in front of Django's handler, which answers only HTTP: uvicorn then tells the
application when the server stops (SIGTERM, Ctrl-C), and the embedded runtime ends what it was executing
(``EMBEDDED_RUNTIME_STOPPER``) before the process goes. Without it uvicorn notes the protocol unsupported and
the process ended with its runs RUNNING, for the reaper of the next process to end ten minutes later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from asgiref.sync import sync_to_async

from config.asgi_types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger(__name__)


class Lifespan:
    """Answers ``lifespan`` scopes (startup at once; shutdown after ``on_shutdown``), passes every other on."""

    def __init__(self, app: ASGIApp, on_shutdown: Callable[[], None]) -> None:
        self.app = app
        self.on_shutdown = on_shutdown

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    # It reads and writes the database: on a thread, as Django's synchronous code runs under ASGI.
                    await sync_to_async(self.on_shutdown, thread_sensitive=False)()
                except Exception as error:  # said, not swallowed: uvicorn took a raise for "lifespan unsupported"
                    logger.exception("the server's shutdown could not end what it was executing")
                    await send({"type": "lifespan.shutdown.failed", "message": str(error)})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                return
