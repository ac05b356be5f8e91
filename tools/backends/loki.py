"""``query_logs`` over a Loki HTTP API: ``/loki/api/v1/query_range`` for the records, ``/query`` for the total.

Loki returns at most ``limit`` entries, the oldest with ``direction=forward`` and the newest with
``backward`` (the tool's own ``direction``), from ``start`` inclusive to ``end`` exclusive; they are listed
oldest first across streams, each stream's order kept for equal timestamps. ``total`` is Loki's
``count_over_time`` of the same query over the window. A record's ``level`` is the ``level`` label; its
other stream labels (structured metadata included, which Loki folds into the labels unless asked not to)
follow the core fields and never replace them (a label named ``message`` is dropped, not the line), as a
pack's extra fields do in the embedded backend.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from tools.backends.http_json import HttpEndpoint, backend_warnings, error_detail, request_json
from tools.backends.logql import LEVEL_LABEL, log_query
from tools.backends.protocols import FORWARD, log_record_payload
from tools.errors import ToolBackendError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MICROSECOND = timedelta(microseconds=1)


def nanoseconds(moment: datetime) -> int:
    return (moment - EPOCH) // MICROSECOND * 1000


class LokiLogBackend:
    def __init__(self, endpoint: HttpEndpoint, *, service_label: str, deadline: float) -> None:
        self.endpoint = endpoint
        self.service_label = service_label
        self.deadline = deadline

    def query(
        self,
        *,
        service: str,
        level: str | None,
        contains: str | None,
        start: datetime,
        end: datetime,
        limit: int,
        direction: str = FORWARD,
    ) -> dict[str, Any]:
        query = log_query(self.service_label, service, level, contains)
        body = request_json(
            self.endpoint,
            "GET",
            "/loki/api/v1/query_range",
            deadline=self.deadline,
            params={
                "query": query,
                "start": str(nanoseconds(start)),
                "end": str(nanoseconds(end)),
                "limit": str(limit),
                "direction": direction,
            },
        )
        records = self._records(_result(self.endpoint.name, body, "streams"), nanoseconds(start), nanoseconds(end))
        span = (end - start) // timedelta(milliseconds=1)
        # Loki's range ``[span]`` evaluated at ``time`` is ``(time - span, time]``: evaluated a nanosecond
        # before ``end`` it is ``[start, end)``, the listing's window (an entry at ``end`` is in neither).
        counted = request_json(
            self.endpoint,
            "GET",
            "/loki/api/v1/query",
            deadline=self.deadline,
            params={"query": f"sum(count_over_time({query} [{span}ms]))", "time": str(nanoseconds(end) - 1)},
        )
        # The count and the listing are two reads; never report fewer matches than the records listed.
        total = max(_vector_total(self.endpoint.name, counted), len(records))
        payload = {"records": records, "total": total, "truncated": total > len(records)}
        return payload | backend_warnings(body, counted)

    def _records(self, streams: list[Any], start: int, end: int) -> list[dict[str, Any]]:
        """The entries of ``streams``, oldest first; each must be a line of text in ``[start, end)`` (an entry
        elsewhere would be cited as the window's when it is not)."""
        entries = []
        for stream in streams:
            labels = stream.get("stream") if isinstance(stream, dict) else None
            values = stream.get("values") if isinstance(stream, dict) else None
            if not isinstance(labels, dict) or not isinstance(values, list):
                raise ToolBackendError("backend_bad_response", f"{self.endpoint.name} answered a malformed stream")
            for value in values:
                try:
                    stamp = int(value[0])
                    line = value[1]
                    if not (isinstance(line, str) and start <= stamp < end):
                        raise ValueError(line)
                    entries.append((stamp, EPOCH + timedelta(microseconds=stamp // 1000), line, labels))
                except (TypeError, ValueError, IndexError, KeyError, OverflowError):
                    raise ToolBackendError(
                        "backend_bad_response", f"{self.endpoint.name} answered a malformed entry {value!r:.200}"
                    ) from None
        entries.sort(key=lambda entry: entry[0])
        return [self._record(*entry[1:]) for entry in entries]

    def _record(self, moment: datetime, line: str, labels: dict[str, Any]) -> dict[str, Any]:
        return log_record_payload(
            moment,
            str(labels.get(self.service_label, "")),
            str(labels.get(LEVEL_LABEL, "")).upper(),
            line,
            {key: value for key, value in labels.items() if key not in (self.service_label, LEVEL_LABEL)},
        )


def _result(name: str, body: dict[str, Any], kind: str) -> list[Any]:
    data = body.get("data")
    if body.get("status") != "success" or not isinstance(data, dict) or data.get("resultType") != kind:
        detail = error_detail(body)
        raise ToolBackendError(
            "backend_bad_response", f"{name} did not answer successful {kind}{detail and ': '}{detail}"
        )
    result = data.get("result")
    if not isinstance(result, list):
        raise ToolBackendError("backend_bad_response", f"{name} answered {kind} without a result list")
    return result


def _vector_total(name: str, body: dict[str, Any]) -> int:
    """The one sample of ``sum(count_over_time(...))``; no sample when nothing matched."""
    try:
        counts = [float(sample["value"][1]) for sample in _result(name, body, "vector")]
        if not all(math.isfinite(count) and count >= 0 for count in counts):
            raise ValueError(counts)
        return sum(int(count) for count in counts)
    except (TypeError, ValueError, IndexError, KeyError):
        raise ToolBackendError("backend_bad_response", f"{name} answered a malformed count") from None
