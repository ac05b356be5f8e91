"""Whether a stream's reader still may read its run, asked again while the stream is open.

The view checks the reader once, when the stream opens; a run's stream then stays open until the run's
``done``, minutes for a run waiting on a model. A reader signed out (the session deleted), deactivated,
whose API token was deleted, or who lost the auditors' permission meanwhile kept receiving the run's events
to its end. The stream remembers how its reader signed in (``Credentials``: the session's key or the token's)
and the wrapper (``ordering``) asks again, from those alone, before it sends an event, at most once every
``SSE_ACCESS_RECHECK_SECONDS``, and at the quiet rechecks on which it reads storage anyway (one keep-alive
in fifteen, about five minutes apart; not the first, 20 s after the opening's own check). Asked at every
keep-alive instead, 2,000 idle pages would cost a process 100 reads a second on its one read thread (issue 19). A reader refused gets what an unknown reader
gets when the stream opens, django-eventstream's ``stream-error`` ``forbidden``, and the stream ends.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from importlib import import_module

from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest
from django_eventstream.utils import sse_encode_error
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

from diagnosis.selectors import run_visible_to


@dataclass(frozen=True)
class Credentials:
    """How a stream's reader signed in: a session's key or an API token's key (neither: anonymous)."""

    session_key: str | None = None
    token_key: str | None = None

    def user(self) -> User | AnonymousUser:
        """The reader these credentials sign in now, read afresh: AnonymousUser once the session is gone or
        its password changed, the token deleted, or the user deactivated (Django's and DRF's own checks)."""
        if self.session_key:
            request = HttpRequest()
            request.session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=self.session_key)
            return auth.get_user(request)
        if self.token_key:
            try:
                return TokenAuthentication().authenticate_credentials(self.token_key)[0]
            except AuthenticationFailed:
                return AnonymousUser()
        return AnonymousUser()


def reader(request: HttpRequest) -> tuple[User | AnonymousUser, Credentials]:
    """The session's user, else the owner of a valid ``Authorization: Token`` key, else anonymous; with the
    credentials that signed them in."""
    if request.user.is_authenticated:
        return request.user, Credentials(session_key=request.session.session_key)
    try:
        authenticated = TokenAuthentication().authenticate(request)
    except AuthenticationFailed:  # a bad or inactive token reads nothing, as no credentials
        return AnonymousUser(), Credentials()
    if authenticated is None:
        return AnonymousUser(), Credentials()
    user, token = authenticated
    return user, Credentials(token_key=token.key)


def forbidden(channel: str) -> str:
    """The library's refusal of a channel, word for word (as the view sends it when a stream opens)."""
    return sse_encode_error("forbidden", f"Permission denied to channels: {channel}", extra={"channels": [channel]})


@dataclass
class Access:
    """A stream's reader and run, and when the reader was last found allowed (``time.monotonic``)."""

    credentials: Credentials
    run_id: uuid.UUID
    checked_at: float = field(default_factory=time.monotonic)

    def due(self) -> bool:
        return time.monotonic() - self.checked_at >= settings.SSE_ACCESS_RECHECK_SECONDS

    def allowed(self) -> bool:
        """Whether the reader may still read the run. Reads the database: call it on the SSE read thread."""
        self.checked_at = time.monotonic()
        return run_visible_to(self.credentials.user(), self.run_id) is not None
