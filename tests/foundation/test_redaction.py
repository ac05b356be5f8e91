"""Secrets never reach a log line or a stored trace text, and remote errors are named by class and status."""

from __future__ import annotations

import io
import logging

import pytest
from celery import signals

from config.env import redacted
from config.redaction import REDACTED, RedactSecrets, error_summary, redact
from diagnosis.models import ChatSession, DiagnosisRun
from tracing.models import AgentReasoningAudit, AgentStep
from tracing.steps import StepLog, StepRecord

KEY = "sk-proj-4f9a1c77e0b2"


@pytest.fixture(autouse=True)
def model_key(settings):
    settings.LLM_API_KEY = KEY


def test_it_blanks_the_configured_secrets_and_any_bearer_credential(settings):
    text = f"key={KEY} secret={settings.SECRET_KEY} header='Authorization: Bearer other-token.123'"

    assert redact(text) == f"key={REDACTED} secret={REDACTED} header='Authorization: Bearer {REDACTED}'"


def test_it_blanks_the_password_of_a_configured_url(settings):
    settings.REDIS_URL = "redis://:r3dis-pa55@cache.internal:6379/0"

    assert "r3dis-pa55" not in redact("connect failed: redis://:r3dis-pa55@cache.internal:6379/0")


def test_it_blanks_the_backends_credentials_and_the_chat_ops_webhooks(settings):
    settings.PROMETHEUS_PASSWORD = "pr0m-pa55word"
    settings.LOKI_BEARER_TOKEN = "glc_l0ki-token"
    settings.ALERT_SINK_URLS = {
        "slack": "https://hooks.slack.com/services/T0/B0/sl4ck-secret-path",
        "dingtalk": "https://oapi.dingtalk.com/robot/send?access_token=d1ngtalk-token",
    }
    text = (
        "pr0m-pa55word glc_l0ki-token POST https://hooks.slack.com/services/T0/B0/sl4ck-secret-path "
        "POST https://oapi.dingtalk.com/robot/send?access_token=d1ngtalk-token&timestamp=1"
    )

    redacted_text = redact(text)

    for secret in ("pr0m-pa55word", "glc_l0ki-token", "sl4ck-secret-path", "d1ngtalk-token"):
        assert secret not in redacted_text


def test_it_blanks_a_webhooks_secret_path_however_its_host_is_written(settings):
    """httpx logs the URL in its normal form: a configured ``Hooks.Slack.com:443`` is logged lower-cased."""
    settings.ALERT_SINK_URLS = {"slack": "https://Hooks.Slack.com:443/services/T0/B0/sl4ck-secret-path"}

    line = redact('HTTP Request: POST https://hooks.slack.com/services/T0/B0/sl4ck-secret-path "HTTP/1.1 200 OK"')

    assert "sl4ck-secret-path" not in line and "hooks.slack.com" in line


def test_a_webhooks_short_path_token_is_blanked_however_the_host_is_written(settings):
    settings.ALERT_SINK_URLS = {"webhook": "https://OPS.example.com/hook/Zx9Kp2Lm4Qr7"}

    assert "Zx9Kp2Lm4Qr7" not in redact("HTTP Request: POST https://ops.example.com/hook/Zx9Kp2Lm4Qr7")


def test_a_webhooks_ordinary_path_is_no_secret(settings):
    """A webhook authenticated by its query keeps its words: "/alerts" is blanked nowhere else."""
    settings.ALERT_SINK_URLS = {"webhook": "https://ops.example.com/alerts?token=0ps-t0ken-value"}

    assert (
        redact("POST /api/alerts/alertmanager token=0ps-t0ken-value")
        == "POST /api/alerts/alertmanager token=[redacted]"
    )


def test_a_quoted_url_keeps_neither_its_password_nor_its_query_values():
    assert redacted("mysql://app:s3cret@db/app") == "mysql://app:***@db/app"
    assert redacted("https://oapi.dingtalk.com/robot/send?access_token=t0ken&x") == (
        "https://oapi.dingtalk.com/robot/send?access_token=***&x=***"
    )
    assert redacted("http://[::1") == "(a malformed URL)"


def test_it_leaves_ordinary_text_and_too_short_values_alone(settings):
    settings.LLM_API_KEY = "abc"

    assert redact("abc is not a secret; the token budget is 24 calls") == (
        "abc is not a secret; the token budget is 24 calls"
    )


class TeapotError(Exception):
    status_code = 418


def test_an_error_is_summarised_by_its_class_and_status_only():
    assert error_summary(TeapotError(f"Authorization: Bearer {KEY}")) == "TeapotError (HTTP 418)"
    assert error_summary(ConnectionError(f"to https://u:{KEY}@host")) == "ConnectionError"


def console_handler() -> logging.StreamHandler:
    """The handler Django's ``LOGGING`` put on the root logger."""
    [handler] = [
        handler
        for handler in logging.getLogger().handlers
        if isinstance(handler, logging.StreamHandler) and any(isinstance(f, RedactSecrets) for f in handler.filters)
    ]
    return handler


def test_the_log_handler_redacts_the_message_and_a_chained_traceback():
    handler = console_handler()
    stream = io.StringIO()
    previous = handler.setStream(stream)
    try:
        try:
            try:
                raise ValueError(f"HTTP 400: echoed headers {{'authorization': 'Bearer {KEY}'}}")
            except ValueError as error:
                raise RuntimeError("the model call failed") from error
        except RuntimeError:
            logging.getLogger("diagnosis.execution").exception("run failed with %s", KEY)
    finally:
        handler.setStream(previous)

    logged = stream.getvalue()
    assert "the model call failed" in logged and "echoed headers" in logged
    assert KEY not in logged
    assert logged.count(REDACTED) == 2


def test_worker_log_handlers_get_the_same_filter():
    """A Celery worker replaces Django's handlers with its own after ``LOGGING`` was applied."""
    logger = logging.getLogger("test-worker-root")
    handler = logging.StreamHandler(io.StringIO())
    logger.addHandler(handler)
    try:
        signals.after_setup_logger.send(sender=None, logger=logger, loglevel=logging.INFO)
    finally:
        logger.removeHandler(handler)

    assert any(isinstance(f, RedactSecrets) for f in handler.filters)


@pytest.mark.django_db
def test_stored_step_texts_are_redacted(owner):
    run = DiagnosisRun.objects.create(session=ChatSession.objects.create(owner=owner, title="t"), query="q")
    StepLog(run.pk).record(
        StepRecord(
            node="planner",
            attempt=1,
            outcome="COMPLETED",
            summary=f"echo {KEY}",
            reasoning_content=f"the header was Bearer {KEY}",
            assistant_text=f"my key is {KEY}",
            findings=[{"sentence": f"uses {KEY}", "reason": "unsupported"}],
        )
    )

    audit = AgentReasoningAudit.objects.get(run=run)
    stored = [
        AgentStep.objects.get(run=run).summary,
        audit.reasoning_content,
        audit.assistant_text,
        str(audit.findings),
    ]
    assert all(KEY not in text and REDACTED in text for text in stored)
