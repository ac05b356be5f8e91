"""The environment an agent may know before it queries anything: what a service catalog would tell it.

Services, the incident window, the metrics each service exports, the business tables and their columns,
the tools, and how many calls of them a run may make (a model that knows its budget can spend it on what
matters most, instead of learning it from a refusal). It names what exists, never what is wrong, so it is safe to show every model (the offline
provider included). The embedded backends derive it from the loaded scenario; an HTTP backend would read
the same from label discovery and ``information_schema``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from tools.backends.snapshot import evidence_snapshot
from tools.models import LoadedScenario
from tools.registry import default_registry
from tools.timestamps import format_timestamp

LOG_LEVELS = ["DEBUG", "INFO", "WARN", "ERROR"]
DEFAULT_WINDOW = timedelta(hours=1)


def environment() -> dict[str, Any]:
    scenario = LoadedScenario.current()
    manifest = scenario.manifest if scenario else {}
    evidence = evidence_snapshot()
    metrics = evidence.metric_names
    services = set(manifest.get("services") or []) | set(metrics) | set(evidence.logs)
    window = manifest.get("window")
    if not window:
        end = timezone.now().replace(microsecond=0)
        window = {"start": format_timestamp(end - DEFAULT_WINDOW), "end": format_timestamp(end)}
    return {
        "services": sorted(services),
        "window": window,
        "metrics": metrics,
        "business_tables": dict(manifest.get("business_schema") or {}),
        "log_levels": LOG_LEVELS,
        "tools": default_registry().names,
        "tool_calls_per_run": settings.TOOL_MAX_CALLS_PER_RUN,
    }
