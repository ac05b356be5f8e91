"""What Django's error pages and error e-mails may show (``DEFAULT_EXCEPTION_REPORTER_FILTER``).

Django hides settings whose *name* looks secret (``KEY``, ``PASS``, ``TOKEN``…). Ours carry passwords in
URLs whose names do not: ``BUSINESS_DATABASE_URL``, ``REDIS_URL``, ``CELERY_BROKER_URL``, a Redis cache's
``LOCATION``; under ``runserver`` the environment variables of the same names reach ``request.META`` too.
And a traceback's local variables are shown as they are: a failed connection's parameters hold the
password. This filter hides those settings by name, masks the password of any URL in a shown value, and
masks every secret of the settings wherever it appears in a frame's variables.
"""

from __future__ import annotations

import re
from collections.abc import ItemsView
from types import FrameType
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.template.defaultfilters import pprint
from django.views.debug import SafeExceptionReporterFilter

from config.redaction import secret_values

# Django's own pattern, plus the names of the project's settings and variables that hold URLs with passwords.
HIDDEN_SETTINGS = re.compile(
    "API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|DATABASE_URL|REDIS_URL|BROKER_URL|RESULT_BACKEND|SINK_URL",
    flags=re.I,
)
# scheme://user:password@host — the password is whatever lies between the user's ":" and the "@".
URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^/:@\s'\"]*:)(?P<password>[^@\s'\"]+)(?=@)", flags=re.I)


def settings_secrets() -> set[str]:
    """Every secret string of the settings: what the logs' redaction blanks (the keys and tokens, the
    database passwords, a chat-ops webhook's tokens), short ones too, and any password inside a URL."""
    secrets = set(secret_values())
    for name in dir(settings):
        if name.isupper():
            secrets |= {match["password"] for match in URL_PASSWORD.finditer(repr(getattr(settings, name)))}
    return secrets - {""}


class _Shown:
    """A frame variable as the page prints it (``pprint`` shows its ``repr``), secrets already masked."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


class SecretSafeExceptionReporterFilter(SafeExceptionReporterFilter):
    hidden_settings = HIDDEN_SETTINGS

    def cleanse_setting(self, key: Any, value: Any) -> Any:
        cleansed = super().cleanse_setting(key, value)
        return self._mask_url_passwords(cleansed) if isinstance(cleansed, str) else cleansed

    def get_traceback_frame_variables(self, request: HttpRequest | None, tb_frame: FrameType) -> ItemsView[str, Any]:
        secrets = sorted(settings_secrets(), key=len, reverse=True)
        shown: dict[str, Any] = {}
        for name, value in super().get_traceback_frame_variables(request, tb_frame):
            text = pprint(value)
            for secret in secrets:
                text = text.replace(secret, self.cleansed_substitute)
            shown[name] = _Shown(self._mask_url_passwords(text))
        return shown.items()

    def _mask_url_passwords(self, text: str) -> str:
        return URL_PASSWORD.sub(rf"\g<head>{self.cleansed_substitute}", text)
