"""Where log and metric evidence comes from: the factory the tools call, and the interfaces behind it.

The embedded backends (tables filled by ``load_scenario``) are the default. ``METRICS_BACKEND=prometheus``
reads metrics from a Prometheus HTTP API (``prometheus.py``), ``LOGS_BACKEND=loki`` logs from a Loki HTTP
API (``loki.py``). A backend implements ``LogBackend`` / ``MetricBackend`` from ``protocols.py``; the tool
definitions, the harness and the payload shapes stay as they are. ``deadline`` is the call's monotonic
deadline, which an HTTP backend turns into its timeout.
"""

from __future__ import annotations

from django.conf import settings

from config.env import redacted
from tools.backends.embedded import EmbeddedLogBackend, EmbeddedMetricBackend
from tools.backends.http_json import HttpEndpoint
from tools.backends.loki import LokiLogBackend
from tools.backends.prometheus import PrometheusMetricBackend
from tools.backends.protocols import LogBackend, MetricBackend


def log_backend(*, deadline: float) -> LogBackend:
    if settings.LOGS_BACKEND == "loki":
        return LokiLogBackend(
            http_endpoint("LOKI", "Loki"), service_label=settings.LOKI_SERVICE_LABEL, deadline=deadline
        )
    return EmbeddedLogBackend()


def metric_backend(*, deadline: float) -> MetricBackend:
    if settings.METRICS_BACKEND == "prometheus":
        return PrometheusMetricBackend(
            http_endpoint("PROMETHEUS", "Prometheus"),
            service_label=settings.PROMETHEUS_SERVICE_LABEL,
            deadline=deadline,
        )
    return EmbeddedMetricBackend()


def http_endpoint(prefix: str, name: str) -> HttpEndpoint:
    """The endpoint the ``<prefix>_*`` settings describe; the tenant goes out as ``X-Scope-OrgID``."""
    url = getattr(settings, f"{prefix}_URL") or ""
    tenant = getattr(settings, f"{prefix}_TENANT_ID")
    return HttpEndpoint(
        name=f"{name} at {redacted(url)}",
        base_url=url,
        bearer_token=getattr(settings, f"{prefix}_BEARER_TOKEN"),
        username=getattr(settings, f"{prefix}_USERNAME"),
        password=getattr(settings, f"{prefix}_PASSWORD"),
        verify_tls=getattr(settings, f"{prefix}_TLS_VERIFY"),
        headers=(("X-Scope-OrgID", tenant),) if tenant else (),
    )
