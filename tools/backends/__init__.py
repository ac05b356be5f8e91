"""Where log and metric evidence comes from: the factory the tools call, and the interfaces behind it.

Only the embedded backends exist today (tables filled by ``load_scenario``). A Loki- or Prometheus-style
HTTP backend plugs in by implementing ``LogBackend`` / ``MetricBackend`` from ``protocols.py`` — e.g. a
Loki ``query_range`` with ``{service="..."} |= "contains"`` mapped to canonical records, or a Prometheus
``query_range`` with ``step`` mapped to points — and by returning it here when its setting (say a
``LOKI_URL``) is present. The tool definitions, the harness and the payload shapes stay as they are.
"""

from __future__ import annotations

from tools.backends.embedded import EmbeddedLogBackend, EmbeddedMetricBackend
from tools.backends.protocols import LogBackend, MetricBackend


def log_backend() -> LogBackend:
    return EmbeddedLogBackend()


def metric_backend() -> MetricBackend:
    return EmbeddedMetricBackend()
