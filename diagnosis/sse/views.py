"""The run channel's view: who may read it, a checked Last-Event-ID, then the library's stream (``ordering``).

Readers sign in as on the rest of the site: the page's session cookie, or an API token
(``Authorization: Token <key>``, DRF's ``TokenAuthentication``, which every JSON API takes), so that an
integration can read the ``events_url`` the chat API handed it. The run's owner and auditors may read its
channel (``run_visible_to``, docs/audit.md); anyone else, a bad token and an unknown run included, gets the
library's ``stream-error`` ``forbidden``, and so does a reader who loses access while the stream is open
(signed out, deactivated, the token deleted, no longer an auditor), within ``SSE_ACCESS_RECHECK_SECONDS``
of an event (``access``).

A Last-Event-ID (the header, else the last non-empty ``lastEventId`` query value, as the library reads it)
must give this channel a decimal id from 0 to its last event's. Anything else - ``abc``, ``1.5``, ``-1``,
an empty id, an id past the last event, ids of other channels only, text that is not ``channel:id`` pairs - is
answered with a ``stream-error`` ``bad-request`` (the library's own answer to unparsable ids), never replayed
from the start: the client would get events it already has. The check follows the permission check, so it says
nothing about other users' runs. ``error``, what a browser sends after a stream-error, keeps the library's 400,
which stops EventSource from reconnecting.

django-eventstream also takes a signed ``es-meta`` query parameter (a JWT under ``SECRET_KEY``) that names
the reader and the channels in place of the request's own. This view decides both itself, and this project
never issues one, so a request carrying it is refused with ``bad-request`` before anything is read: honoured,
it would let a reader of one run name another run's channel and its owner.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe
from django_eventstream.utils import add_default_headers, get_storage, sse_error_response
from django_eventstream.views import events as eventstream_events

from diagnosis.selectors import run_visible_to
from diagnosis.sse import channel_for
from diagnosis.sse.access import Access, reader
from diagnosis.sse.ordering import channel_last_ids, ordered, requested_last_event_id
from diagnosis.sse.reads import stream_reads

# Up to 18 digits: every such number fits the storage's 64-bit event id.
EVENT_ID = re.compile(r"[0-9]{1,18}")
RESUME_AFTER_ERROR = "error"
BAD_LAST_ID_TEXT = "Invalid request: Last-Event-ID or lastEventId names no event of this run."
SIGNED_META = "es-meta"
SIGNED_META_TEXT = "Invalid request: es-meta is not accepted; sign in with the session or an API token."
# A GRIP proxy's (Pushpin's) recovery request: the library then reads the proxy's ``Grip-Last`` header, which
# no proxy in front of this server sets (an AttributeError and a 500 before this check).
GRIP_RECOVER = "recover"
GRIP_RECOVER_TEXT = "Invalid request: recover is a GRIP proxy's parameter; resume with Last-Event-ID."


def _bad_last_id(request: HttpRequest, channel: str) -> bool:
    raw = requested_last_event_id(request)
    if not raw or raw == RESUME_AFTER_ERROR:
        return False
    try:
        ids = channel_last_ids(raw)
    except ValueError:
        return True
    if channel not in ids:  # EventSource resends the id it was given, which is always this channel's
        return True
    value = ids[channel]
    # 0, before the first event (what ``events_url`` asks for), is valid without reading the channel's end.
    return not EVENT_ID.fullmatch(value) or (int(value) > 0 and int(value) > get_storage().get_current_id(channel))


def _stream_error(request: HttpRequest, condition: str, text: str, extra: dict[str, Any] | None = None) -> HttpResponse:
    response = sse_error_response(condition, text, extra)
    add_default_headers(response, request=request)
    return response


# A stream is read, never written: an OPTIONS or a PUT replayed the run's events as a GET does.
@require_safe
async def run_events(request: HttpRequest, run_id: uuid.UUID, **kwargs: Any) -> HttpResponse:
    """The SSE stream of one run for its owner or an auditor, exactly-once from the client's last id.

    Asynchronous, so that its database work runs on the SSE read thread (``reads``), not on a thread of
    its own that would live as long as the stream."""
    async with stream_reads():
        return await sync_to_async(_checked_stream)(request, run_id, **kwargs)


def _checked_stream(request: HttpRequest, run_id: uuid.UUID, **kwargs: Any) -> HttpResponse:
    if SIGNED_META in request.GET:
        return _stream_error(request, "bad-request", SIGNED_META_TEXT)
    if request.GET.get(GRIP_RECOVER) == "true":
        return _stream_error(request, "bad-request", GRIP_RECOVER_TEXT)
    channel = channel_for(run_id)
    # The library reads ``request.user`` (and the channel manager checks it again for every read); the
    # wrapper asks again from the credentials while the stream is open (``access``).
    request.user, credentials = reader(request)
    if run_visible_to(request.user, run_id) is None:
        # Word for word the library's refusal, so unknown and foreign runs answer the same.
        return _stream_error(request, "forbidden", f"Permission denied to channels: {channel}", {"channels": [channel]})
    if _bad_last_id(request, channel):
        return _stream_error(request, "bad-request", BAD_LAST_ID_TEXT)
    return ordered(eventstream_events(request, run_id=run_id, **kwargs), request, channel, Access(credentials, run_id))
