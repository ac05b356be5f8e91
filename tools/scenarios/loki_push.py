"""A pack's ``logs.jsonl`` pushed to Loki (``POST /loki/api/v1/push``) for ``LOGS_BACKEND=loki``.

Each line goes to the stream ``{<LOKI_SERVICE_LABEL>=service, level=LEVEL}``; its extra fields travel as
structured metadata (strings; Loki 2.9+), which Loki answers back as labels, so ``query_logs`` lists them as
the embedded backend does. Packs hold past times: Loki must accept them (``reject_old_samples: false``, or a
``reject_old_samples_max_age`` reaching back to the pack), or the push is refused and the load with it.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from tools.backends.http_json import HttpEndpoint, request_json
from tools.backends.logql import LEVEL_LABEL
from tools.backends.loki import nanoseconds
from tools.scenarios.pack import LogLine

# Lines per push request: well under Loki's default 4 MB gRPC message limit for pack-sized lines.
PUSH_BATCH_LINES = 1000
PUSH_TIMEOUT_SECONDS = 60.0


def push_logs(lines: Iterable[LogLine], endpoint: HttpEndpoint, *, service_label: str) -> int:
    """Push every line, batch by batch, and return how many were pushed; a refusal raises ``ToolError``."""
    batch: list[LogLine] = []
    pushed = 0
    for line in lines:
        batch.append(line)
        if len(batch) == PUSH_BATCH_LINES:
            pushed += _push(batch, endpoint, service_label)
            batch = []
    if batch:
        pushed += _push(batch, endpoint, service_label)
    return pushed


def _push(batch: list[LogLine], endpoint: HttpEndpoint, service_label: str) -> int:
    streams: defaultdict[tuple[str, str], list[list[Any]]] = defaultdict(list)
    for line in sorted(batch, key=lambda line: line.ts):
        metadata = {key: value if isinstance(value, str) else json.dumps(value) for key, value in line.extra.items()}
        streams[(line.service, line.level)].append([str(nanoseconds(line.ts)), line.message, metadata])
    body = {
        "streams": [
            {"stream": {service_label: service, LEVEL_LABEL: level}, "values": values}
            for (service, level), values in streams.items()
        ]
    }
    request_json(endpoint, "POST", "/loki/api/v1/push", deadline=time.monotonic() + PUSH_TIMEOUT_SECONDS, json=body)
    return len(batch)
