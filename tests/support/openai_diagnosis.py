"""A diagnosis played by the loopback OpenAI-compatible server: the replies a real model would give.

The executor's report cites the tool result the client just sent back (the last ``tool`` message), as a
real model would, so the citation passes the gatekeeper whatever the invocation's id is; the plan, the
verdict, the answer and the guard's release fit the ``payment-db-pool`` pack.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.fake_openai import FakeResponse, RecordedRequest, chat_completion

QUESTION = "payment-service p99 latency tripled since 10:05, why?"
LOGS_ARGS = {
    "service": "payment-service",
    "level": "ERROR",
    "contains": "HikariPool-1",
    "start": "2026-10-14T09:30:00Z",
    "end": "2026-10-14T10:45:00Z",
    "limit": 5,
}
PLAN = {
    "mode": "NORMAL",
    "hypotheses": ["pool exhausted"],
    "steps": [{"tool": "query_logs", "purpose": "errors", "args": LOGS_ARGS}],
}
VERDICT = {
    "verdict": "PASS",
    "facts_checked": [{"claim_id": "c1", "fact": "HikariPool-1 has no free connection", "verification": "supported"}],
    "missing_info": [],
    "evidence_gaps": [],
    "recommended_actions": [],
}
ANSWER = {"answer_markdown": "HikariPool-1 has no free connection [c1].", "cited_claim_ids": ["c1"]}
RELEASE = {"verdict": "RELEASE", "unsupported": []}


def reply(**kwargs: Any) -> FakeResponse:
    return FakeResponse(body=chat_completion(**kwargs))


def tool_calls(*arguments: dict[str, Any], **usage: Any) -> FakeResponse:
    """One executor turn calling ``query_logs`` once per ``arguments``."""
    calls = [
        {"id": f"call_{i}", "name": "query_logs", "arguments": json.dumps(args)} for i, args in enumerate(arguments)
    ]
    return reply(tool_calls=calls, **usage)


def executor_report(request: RecordedRequest, **usage: Any) -> FakeResponse:
    """Cite the first record of the last tool result the client sent back, as a real model would."""
    tool_message = next(m for m in reversed(request.json["messages"]) if m["role"] == "tool")
    projection = json.loads(tool_message["content"])
    record = projection["records"][0]
    report = {
        "schema": "executor_evidence_v2",
        "claims": [
            {
                "claim_id": "c1",
                "statement": "payment-service runs out of connections",
                "bindings": [
                    {
                        "source_invocation_id": projection["invocation_id"],
                        "tool_name": "query_logs",
                        "raw_path": record["raw_path"],
                        "evidence_excerpt": "Connection is not available",
                    }
                ],
            }
        ],
        "no_evidence_reason": None,
        "completed_queries": ["query_logs payment-service ERROR"],
    }
    return reply(content=json.dumps(report), **usage)
