"""An alert fires and the answer reaches chat-ops, through real parts only.

Prometheus (Debian's 2.42) evaluates a rule every second over a pack backfilled with ``promtool``;
Alertmanager (Debian's 0.25) posts the firing group to this project served by uvicorn (and, in the
production-style pass, a Celery worker on Redis executes the run and the delivery); the run reads its
metrics from that same Prometheus; the answer arrives at a loopback sink, which refuses the first post
with a 500 so that the delivery is retried with Celery's backoff. The pack is moved in time so that its
incident is now, since rules are evaluated at the present.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from alerts.models import AlertNotification, DeliveryStatus, IntakeAction, NotificationDelivery
from diagnosis.models import DiagnosisRun, RunStatus
from tests.integration.conftest import start_stack
from tests.services import require
from tests.support.alertmanager import running_alertmanager
from tests.support.ports import reserved_port
from tests.support.prometheus import running_prometheus
from tests.support.shifted_pack import shifted_pack
from tests.support.sink_server import running_sink
from tools.models import InvocationStatus, ToolInvocation
from tools.names import ToolName
from tools.scenarios.pack import resolve_pack

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.service]

TOKEN = "e2e-intake-token-0123456789"
PUBLIC_BASE_URL = "https://superbiz.example.com"
PACK = resolve_pack("payment-db-pool")
#: payment-service's p99 latency crosses 1000 ms at this sample of the pack (its incident's onset).
PACK_ONSET = datetime(2026, 10, 14, 10, 5, tzinfo=UTC)
RULES = """\
groups:
  - name: superbiz-e2e
    interval: 1s
    rules:
      - alert: PaymentLatencyHigh
        expr: p99_latency_ms{service="payment-service"} > 1000
        labels:
          severity: page
        annotations:
          summary: "payment-service p99 latency is {{ $value }} ms"
          description: "p99 latency of {{ $labels.service }} is above 1000 ms."
"""


def test_a_firing_alert_is_diagnosed_from_prometheus_and_the_answer_reaches_the_sink(static_root, tmp_path, settings):
    require("prometheus")
    require("alertmanager")
    with running_sink((500, {"error": "try again later"})) as sink, ExitStack() as stack:
        reservation = stack.enter_context(reserved_port())
        prometheus_port = reservation.getsockname()[1]
        live = start_stack(
            stack,
            static_root,
            METRICS_BACKEND="prometheus",
            PROMETHEUS_URL=f"http://127.0.0.1:{prometheus_port}",
            ALERT_INTAKE_TOKEN=TOKEN,
            ALERT_SINK_WEBHOOK_URL=sink.url,
            PUBLIC_BASE_URL=PUBLIC_BASE_URL,
        )
        alertmanager = stack.enter_context(
            running_alertmanager(
                tmp_path / "alertmanager", webhook_url=f"{live.base}/api/alerts/alertmanager", token=TOKEN
            )
        )
        # The pack's onset becomes now; the rule fires at Prometheus' first evaluation, seconds later.
        delta = timezone.now().replace(microsecond=0) - PACK_ONSET
        settings.METRICS_BACKEND = "prometheus"
        settings.PROMETHEUS_BACKFILL_DIR = str(tmp_path / "tsdb")
        call_command("load_scenario", str(shifted_pack(PACK, tmp_path / "pack", delta)), stdout=StringIO())
        stack.enter_context(
            running_prometheus(tmp_path / "tsdb", rules=RULES, alertmanager=alertmanager, reservation=reservation)
        )

        first, body = sink.wait(2, timeout=180)

    run = DiagnosisRun.objects.get(pk=body["run_id"])
    assert run.status == RunStatus.SUCCESS
    assert run.session.owner.username == "alertmanager"
    notification = AlertNotification.objects.get(run=run)
    assert (notification.action, notification.alertname) == (IntakeAction.STARTED, "PaymentLatencyHigh")
    # The question names the alert, the service and the moment it fired, inside the moved incident.
    fired = datetime.strptime(run.query.removeprefix("Since ")[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert run.query.startswith("Since ")
    assert ' UTC, alert "PaymentLatencyHigh" is firing for "payment-service".' in run.query
    assert timedelta(0) <= fired - (PACK_ONSET + delta) < timedelta(minutes=2)
    # Diagnosed from the real Prometheus, and the answer names the pack's cause.
    metric_calls = ToolInvocation.objects.filter(run=run, tool_name=ToolName.QUERY_METRICS)
    assert set(metric_calls.values_list("status", flat=True)) == {InvocationStatus.READY}
    assert "connection pool" in run.final_answer.lower()
    # The sink got the released answer with links back to the run and its trace, the second time.
    assert first == body
    assert body["answer_markdown"] == run.final_answer
    assert body["outcome"] == run.outcome
    assert body["run_url"] == f"{PUBLIC_BASE_URL}/admin/diagnosis/diagnosisrun/{run.pk}/change/"
    assert body["trace_url"] == f"{PUBLIC_BASE_URL}/api/diagnosis/{run.session_id}/trace?runId={run.pk}"
    attempts = NotificationDelivery.objects.order_by("attempt").values_list("sink", "attempt", "status", "http_status")
    # The sink has answered the second attempt; the process that sent it records it right after.
    deadline = time.monotonic() + 30
    while attempts.count() < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(attempts) == [("webhook", 1, DeliveryStatus.FAILED, 500), ("webhook", 2, DeliveryStatus.DELIVERED, 200)]
    assert len(sink.received) == 2
