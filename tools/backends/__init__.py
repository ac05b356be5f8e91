"""Where log and metric evidence comes from: the factory the tools call, and the interfaces behind it.

The embedded backends (tables filled by ``load_scenario``) are the default. ``METRICS_BACKEND=prometheus``
reads metrics from a Prometheus HTTP API instead (``prometheus.py``). A backend implements ``LogBackend`` /
``MetricBackend`` from ``protocols.py``; the tool definitions, the harness and the payload shapes stay as
they are. ``deadline`` is the call's monotonic deadline, which an HTTP backend turns into its timeout.
"""

from __future__ import annotations

from django.conf import settings

from tools.backends.embedded import EmbeddedLogBackend, EmbeddedMetricBackend
from tools.backends.http_json import HttpEndpoint
from tools.backends.prometheus import PrometheusMetricBackend
from tools.backends.protocols import LogBackend, MetricBackend


def log_backend() -> LogBackend:
    return EmbeddedLogBackend()


def metric_backend(*, deadline: float) -> MetricBackend:
    if settings.METRICS_BACKEND == "prometheus":
        return PrometheusMetricBackend(
            prometheus_endpoint(), service_label=settings.PROMETHEUS_SERVICE_LABEL, deadline=deadline
        )
    return EmbeddedMetricBackend()


def prometheus_endpoint() -> HttpEndpoint:
    return HttpEndpoint(
        name=f"Prometheus at {settings.PROMETHEUS_URL}",
        base_url=settings.PROMETHEUS_URL or "",
        bearer_token=settings.PROMETHEUS_BEARER_TOKEN,
        username=settings.PROMETHEUS_USERNAME,
        password=settings.PROMETHEUS_PASSWORD,
        verify_tls=settings.PROMETHEUS_TLS_VERIFY,
        headers=(("X-Scope-OrgID", settings.PROMETHEUS_TENANT_ID),) if settings.PROMETHEUS_TENANT_ID else (),
    )
