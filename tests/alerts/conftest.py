"""Alertmanager payloads as version 0.25 sends them, and the intake endpoint with its token configured."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from diagnosis import submission

URL = "/api/alerts/alertmanager"
TOKEN = "intake-token-0123456789abcdef"

FIRING_ALERT = {
    "status": "firing",
    "labels": {
        "alertname": "PaymentLatencyHigh",
        "service": "payment-service",
        "job": "payments",
        "instance": "10.0.3.7:8080",
        "severity": "page",
    },
    "annotations": {
        "summary": "payment-service p99 latency is 1.35k ms",
        "description": "p99 above 1000 ms for the last minute.",
    },
    "startsAt": "2026-10-14T10:05:03.512Z",
    "endsAt": "0001-01-01T00:00:00Z",
    "generatorURL": "http://prometheus.internal:9090/graph?g0.expr=p99_latency_ms",
    "fingerprint": "8d1c8ae5a1f4e2b7",
}


def alertmanager_payload(
    *, group_key: str = '{}:{alertname="PaymentLatencyHigh"}', status: str = "firing", **changes: Any
) -> dict[str, Any]:
    alert = copy.deepcopy(FIRING_ALERT)
    alert["status"] = status
    if status == "resolved":
        alert["endsAt"] = "2026-10-14T10:40:00Z"
    payload = {
        "version": "4",
        "groupKey": group_key,
        "truncatedAlerts": 0,
        "status": status,
        "receiver": "superbiz",
        "groupLabels": {"alertname": "PaymentLatencyHigh"},
        "commonLabels": dict(alert["labels"]),
        "commonAnnotations": dict(alert["annotations"]),
        "externalURL": "http://alertmanager.internal:9093",
        "alerts": [alert],
    }
    payload.update(changes)
    return payload


@pytest.fixture
def intake(settings):
    """The endpoint enabled; ``post(payload, token=TOKEN)`` sends it as Alertmanager does."""
    settings.ALERT_INTAKE_TOKEN = TOKEN

    def post(payload: Any, *, token: str | None = TOKEN, client: APIClient | None = None):
        client = client or APIClient()
        headers = {} if token is None else {"HTTP_AUTHORIZATION": f"Bearer {token}"}
        return client.post(URL, payload, format="json", **headers)

    return post


@pytest.fixture
def dispatched(monkeypatch):
    """Runs handed to the executor (none is executed)."""
    calls: list[str] = []
    monkeypatch.setattr(submission, "dispatch_run", lambda run_id: calls.append(str(run_id)))
    monkeypatch.setattr(submission, "redis_reachable", lambda: True)
    return calls
