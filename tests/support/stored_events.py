"""A run's stored SSE events, read through the configured django-eventstream storage (what a replaying
reader gets), so that tests do not depend on where the storage keeps them."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django_eventstream.event import Event
from django_eventstream.utils import get_storage

from diagnosis.sse import channel_for

EVERY_EVENT = 100_000


def stored_events(run_id: uuid.UUID | str) -> list[Event]:
    """Every stored event of the run's channel, in stream order."""
    return get_storage().get_events(channel_for(run_id), 0, limit=EVERY_EVENT)


def stored_names(run_id: uuid.UUID | str) -> list[str]:
    return [event.type for event in stored_events(run_id)]


def payload(event: Event) -> Any:
    """The data that was sent (the storage keeps the JSON text ``send_event`` encoded)."""
    return json.loads(event.data)
