"""A small, strict SSE client for tests: reads named events (id, event, data) from a real HTTP stream."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class SseEvent:
    id: str | None
    event: str
    data: Any


def read_events(
    url: str,
    *,
    cookies: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    last_event_id: str | None = None,
    until: str | None = "done",
    timeout: float = 60.0,
    on_event: Callable[[SseEvent], None] | None = None,
) -> list[SseEvent]:
    """Read events until one named ``until`` arrives (or the server closes); keep-alives are dropped.

    ``until=None`` reads until the server closes the stream (a stream-error still ends the read). ``on_event``
    is called with each event as it arrives, the stream still open: a test acts on the server then.

    Sign in with a session cookie (``cookies``) or a token (``headers={"Authorization": "Token …"}``). A stream
    the server cuts (an exception in the ASGI app) raises, it is never read as a normal end.
    """
    headers = {"Accept": "text/event-stream", **(headers or {})}
    if last_event_id:
        headers["Last-Event-ID"] = last_event_id
    events: list[SseEvent] = []
    deadline = time.monotonic() + timeout
    fields: dict[str, str] = {}
    with httpx.stream("GET", url, headers=headers, cookies=cookies or {}, timeout=httpx.Timeout(timeout)) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if time.monotonic() > deadline:
                awaited = f"'{until}' event" if until else "end of the stream"
                raise TimeoutError(f"no {awaited} within {timeout} s; got {[e.event for e in events]}")
            if line:
                name, _, value = line.partition(":")
                fields[name] = (
                    fields.get(name, "") + value.removeprefix(" ") if name == "data" else value.removeprefix(" ")
                )
                continue
            if "event" not in fields:
                fields.clear()
                continue
            name = fields["event"]
            if name not in {"keep-alive", "stream-open"}:
                raw = fields.get("data", "")
                events.append(SseEvent(fields.get("id"), name, json.loads(raw) if raw else None))
                if on_event is not None:
                    on_event(events[-1])
                if name in {until, "stream-error"}:
                    return events
            fields.clear()
    return events
