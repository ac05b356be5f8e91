"""The innermost middleware, which makes Django run the whole middleware chain in one thread switch.

Under ASGI, Django builds the chain from the inside out and keeps it asynchronous for as long as each
middleware can be: Django's own middleware (``MiddlewareMixin``) then runs every ``process_request``,
``process_view`` and ``process_response`` through its own ``sync_to_async`` call, two switches between
the event loop and the request's thread per method, about twenty per request here. Each switch waits for
the GIL, and in the embedded mode a run executing on a thread of the same process holds it for up to the
interpreter's switch interval (5 ms) at a time: the opening of a run's stream, right after its POST, paid
that at every switch (docs/performance.md, "SSE latency").

A middleware that is synchronous only, placed last in ``MIDDLEWARE``, turns the chain synchronous
(Django adapts a sync-capable middleware to a synchronous inner handler): the chain runs in one call on
the request's thread, and the switch to the view is Django's one adaptation around the view. Nothing is
lost: every middleware of the chain is synchronous code anyway, and asynchronous views (the SSE stream)
still run on the event loop, their responses still streamed by it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest
from django.http.response import HttpResponseBase


class SynchronousChain:
    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return self.get_response(request)
