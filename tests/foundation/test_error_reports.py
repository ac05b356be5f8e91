"""Django's DEBUG error page (and the error mail built by the same reporter) shows no password of the
project's URL settings: not in the settings, not in the request's environment, not in a frame's locals."""

from __future__ import annotations

import sys
import uuid

import pytest
from django.test import RequestFactory, override_settings
from django.views.debug import ExceptionReporter, technical_500_response

from config.error_reports import SecretSafeExceptionReporterFilter

# Generated, so that the page's source excerpts of this file cannot contain them.
PASSWORDS = {name: f"pw-{uuid.uuid4().hex}" for name in ("ro", "admin", "redis", "broker", "cache", "llm", "env")}
URL_SETTINGS = {
    "BUSINESS_DATABASE_URL": f"mysql://superbiz_ro:{PASSWORDS['ro']}@db.internal:3306/business",
    "BUSINESS_ADMIN_DATABASE_URL": f"mysql://superbiz_admin:{PASSWORDS['admin']}@db.internal:3306/business",
    "REDIS_URL": f"redis://:{PASSWORDS['redis']}@redis.internal:6379/0",
    "CELERY_BROKER_URL": f"redis://:{PASSWORDS['broker']}@redis.internal:6379/0",
    "CACHES": {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": f"redis://cache:{PASSWORDS['cache']}@redis.internal/0",
        }
    },
    "LLM_BASE_URL": f"https://user:{PASSWORDS['llm']}@models.internal/v1",
}


def _error_page(*, debug: bool) -> tuple[str, str]:
    """The HTML page and the text report of an exception raised in a view that holds a URL in a local."""
    # Under runserver the process environment is part of request.META.
    environment = {"BUSINESS_DATABASE_URL": f"mysql://ro:{PASSWORDS['env']}@db.internal/business"}
    request = RequestFactory().get("/api/chat", **environment)
    connection_url = URL_SETTINGS["BUSINESS_DATABASE_URL"]  # noqa: F841 - a local the traceback shows
    with override_settings(DEBUG=debug, **URL_SETTINGS):
        try:
            raise RecursionError("maximum recursion depth exceeded")
        except RecursionError:
            exc_info = sys.exc_info()
            html = technical_500_response(request, *exc_info).content.decode()
            text = ExceptionReporter(request, *exc_info).get_traceback_text()
    return html, text


@pytest.mark.parametrize("debug", [True, False], ids=["debug", "mail"])
def test_it_shows_no_password_of_a_url(debug):
    html, text = _error_page(debug=debug)

    for password in PASSWORDS.values():
        assert password not in html, password
        assert password not in text, password
    assert "RecursionError" in html
    assert "mysql://superbiz_ro:********************@db.internal" in html  # the local, its password masked


def test_it_masks_only_the_password_of_a_url_it_shows():
    reporter_filter = SecretSafeExceptionReporterFilter()

    shown = reporter_filter.cleanse_setting("LLM_BASE_URL", URL_SETTINGS["LLM_BASE_URL"])

    assert shown == "https://user:********************@models.internal/v1"
    assert reporter_filter.cleanse_setting("STATIC_URL", "static/") == "static/"
    assert reporter_filter.cleanse_setting("REDIS_URL", "redis://127.0.0.1:6379/0") == "********************"


def test_it_shows_no_chat_ops_webhook_token_nor_backend_token(settings):
    """What the logs' redaction blanks, the error page hides too: a Slack URL's path token, a bearer token."""
    slack_token = f"sl4ck{uuid.uuid4().hex}"
    bearer = f"prom-{uuid.uuid4().hex}"
    settings.ALERT_SINK_URLS = {"slack": f"https://hooks.slack.com/services/T0/B0/{slack_token}"}
    settings.PROMETHEUS_BEARER_TOKEN = bearer
    request = RequestFactory().get("/api/chat")
    header = f"Bearer {bearer}"  # noqa: F841 - a local the traceback shows
    with override_settings(DEBUG=True):
        try:
            raise RuntimeError("boom")
        except RuntimeError:
            html = technical_500_response(request, *sys.exc_info()).content.decode()

    assert slack_token not in html and bearer not in html
    assert "RuntimeError" in html
