"""Keep secrets out of everything that is logged or stored.

A model endpoint may echo the request it refused (its ``Authorization`` header, the prompt) in its error
body, and an SDK exception carries that body in its text. So an error from a remote service is described
by its class and HTTP status only (``error_summary``), never by its text; and as a second line of defence
every stored trace text and every log line passes ``redact``, which blanks the secrets this process was
configured with and any ``Bearer`` credential.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

from django.conf import settings

REDACTED = "[redacted]"
# Shorter values cannot be told apart from ordinary words, and are no secret worth the name anyway.
MIN_SECRET_CHARS = 6
# A path segment this long is a token (Slack's 24 characters, Feishu's 36), not a word such as /alerts.
MIN_PATH_TOKEN_CHARS = 16
BEARER = re.compile(r"(?i)\b(bearer\s+)[\w.~+/=-]+")
SECRET_URL_SETTINGS = ("BUSINESS_DATABASE_URL", "BUSINESS_ADMIN_DATABASE_URL", "REDIS_URL")
SECRET_SETTINGS = (
    "LLM_API_KEY",
    "SECRET_KEY",
    "PROMETHEUS_BEARER_TOKEN",
    "PROMETHEUS_PASSWORD",
    "LOKI_BEARER_TOKEN",
    "LOKI_PASSWORD",
    "ALERT_INTAKE_TOKEN",
)


def error_summary(error: BaseException) -> str:
    """``BadRequestError (HTTP 400)``: what went wrong, without a word of what the other side answered."""
    status = getattr(error, "status_code", None)
    name = type(error).__name__
    return f"{name} (HTTP {status})" if isinstance(status, int) else name


def configured_secrets() -> set[str]:
    """The secret values of this process's settings worth blanking (long enough to tell from words)."""
    return {value for value in secret_values() if len(value) >= MIN_SECRET_CHARS}


def secret_values() -> Iterator[str]:
    """The secret values of this process's settings, read at each call (tests and reloads change them)."""
    for name in SECRET_SETTINGS:
        yield getattr(settings, name, "") or ""
    # A chat-ops webhook's URL is its credential (a token in its path or its query), and httpx logs it in its
    # own normal form (the host lower-cased, a default port dropped): its query values and its path (Slack's,
    # Feishu's tokens; a webhook's "/hook/<token>") are blanked wherever they appear, however the rest was
    # written; not a one-word path ("/alerts", whose secret is its query), which other log lines also hold.
    for sink_url in getattr(settings, "ALERT_SINK_URLS", {}).values():
        parts = urlsplit(sink_url)
        yield sink_url
        if parts.path.strip("/").count("/") or len(parts.path) >= MIN_PATH_TOKEN_CHARS:
            yield parts.path
        yield from (segment for segment in parts.path.split("/") if len(segment) >= MIN_PATH_TOKEN_CHARS)
        yield parts.password or ""
        yield from (value for _, value in parse_qsl(parts.query))
    for database in settings.DATABASES.values():
        yield database.get("PASSWORD") or ""
    for name in SECRET_URL_SETTINGS:
        yield urlsplit(getattr(settings, name, None) or "").password or ""


def redact(text: str) -> str:
    """``text`` with every configured secret and every bearer credential replaced by ``[redacted]``."""
    for secret in sorted(configured_secrets(), key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return BEARER.sub(rf"\g<1>{REDACTED}", text)


class RedactSecrets(logging.Filter):
    """A handler filter: the record's message and traceback are redacted before any formatter sees them.

    Chained exceptions matter most: an SDK error raised ``from`` inside a handled one prints the server's
    body in the traceback, whatever message the handled one has.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True
