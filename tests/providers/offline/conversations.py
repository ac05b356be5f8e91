"""Hand-built node conversations for unit tests: real node messages, real tool projections, no database.

Tool results are projected by the tools' own ``project`` functions, so a test reads exactly what the
executor node would hand the model for that canonical payload.
"""

from __future__ import annotations

import json
from typing import Any

from diagnosis.nodes.messages import executor_messages
from tools.projection import PROJECTION_MAX_CHARS
from tools.registry import default_registry

WINDOW = {"start": "2025-06-01T08:00:00Z", "end": "2025-06-01T09:00:00Z"}
ENVIRONMENT: dict[str, Any] = {
    "services": ["web-frontend", "ledger-api", "ledger-db", "mailer"],
    "window": WINDOW,
    "metrics": {
        "ledger-api": ["p99_latency_ms", "error_rate"],
        "ledger-db": ["active_connections"],
        "web-frontend": ["http_5xx_rate"],
    },
    "business_tables": {
        "config_changes": ["id", "component", "setting", "old_value", "new_value", "changed_at"],
        "invoices": ["id", "customer", "amount", "created_at"],
        "customers": ["id", "name"],
    },
    "log_levels": ["DEBUG", "INFO", "WARN", "ERROR"],
    "tools": ["lookup_knowledge", "query_logs", "query_metrics", "query_mysql"],
}


def tool_message(call_id: str, tool: str, invocation_id: str, payload: dict[str, Any]) -> dict[str, Any]:
    view = {"invocation_id": invocation_id, "tool": tool, "status": "READY"}
    view |= default_registry().get(tool).project(payload, PROJECTION_MAX_CHARS)
    return {"role": "tool", "tool_call_id": call_id, "content": json.dumps(view, ensure_ascii=False)}


def assistant_calls(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for call_id, name, args in calls
        ],
    }


def executor_conversation(
    question: str,
    results: list[tuple[str, dict[str, Any], dict[str, Any]]],
    *,
    plan_steps: list[dict[str, Any]] | None = None,
    mode: str = "NORMAL",
    retry_context: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The executor's messages after one tool round: ``results`` are ``(tool, args, canonical payload)``.

    Unless given, the plan is exactly those calls, so the executor sees its plan done.
    """
    steps = (
        plan_steps
        if plan_steps is not None
        else [{"tool": tool, "purpose": "test", "args": args} for tool, args, _ in results]
    )
    messages = executor_messages(
        question=question,
        plan={"mode": mode, "hypotheses": ["h"], "steps": steps},
        mode=mode,
        retry_context=retry_context,
        environment=ENVIRONMENT,
    )
    calls = [(f"call_{index}", tool, args) for index, (tool, args, _) in enumerate(results, 1)]
    if calls:
        messages.append(assistant_calls(*calls))
    for index, (tool, _, payload) in enumerate(results, 1):
        messages.append(tool_message(f"call_{index}", tool, f"00000000-0000-4000-8000-{index:012d}", payload))
    return messages


def log_record(ts: str, service: str, level: str, message: str) -> dict[str, Any]:
    return {"ts": ts, "service": service, "level": level, "message": message}


def logs_payload(*records: dict[str, Any]) -> dict[str, Any]:
    return {"records": list(records), "total": len(records), "truncated": False}


def metric_payload(service: str, metric: str, values: list[float], start_minute: int = 0) -> dict[str, Any]:
    points = [
        {"ts": f"2025-06-01T08:{start_minute + index:02d}:00Z", "value": value} for index, value in enumerate(values)
    ]
    return {"series": [{"service": service, "metric": metric, "points": points}]}


def knowledge_payload(*chunks: tuple[str, str, str]) -> dict[str, Any]:
    """``chunks`` are ``(document_id, title, text)``."""
    return {
        "evidence_status": "ok",
        "chunks": [
            {"document_id": document, "chunk_id": f"{document}-{index}", "title": title, "text": text, "score": 1.0}
            for index, (document, title, text) in enumerate(chunks)
        ],
    }


def sql_payload(columns: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"columns": columns, "rows": rows, "row_count": len(rows), "truncated": False}
