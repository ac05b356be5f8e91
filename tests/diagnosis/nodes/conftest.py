"""Fixtures for node contract tests: a run, recorded tool invocations with stored payloads, a context."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest

from diagnosis.models import ChatSession, DiagnosisRun
from diagnosis.nodes.context import NodeContext
from diagnosis.progress import RunProgress
from diagnosis.providers.base import ModelReply, ProviderError, Role, RoleModels, ToolCall, Usage
from tools.harness import ToolHarness
from tools.models import InvocationStatus, ToolInvocation
from tools.store import canonical_json, invocation_entries, put_entries, sha256_hex
from tracing.steps import StepLog

LOGS_PAYLOAD = {
    "records": [
        {"ts": "2026-03-14T10:04:00Z", "service": "payment-service", "level": "INFO", "message": "started"},
        {
            "ts": "2026-03-14T10:05:00Z",
            "service": "payment-service",
            "level": "ERROR",
            "message": "HikariPool-1 - Connection is not available, request timed out after 30000ms",
        },
    ],
    "total": 2,
    "truncated": False,
}


@pytest.fixture
def run(owner) -> DiagnosisRun:
    session = ChatSession.objects.create(owner=owner, title="t")
    return DiagnosisRun.objects.create(session=session, query="why is payment-service slow?")


@pytest.fixture
def record_invocation():
    """Record a READY (or other) invocation of ``run`` with its payload in the store, as the harness does."""

    def record(
        run: DiagnosisRun,
        tool_name: str = "query_logs",
        payload: Any = None,
        status: InvocationStatus = InvocationStatus.READY,
    ) -> ToolInvocation:
        payload = LOGS_PAYLOAD if payload is None else payload
        canonical = canonical_json(payload)
        invocation = ToolInvocation.objects.create(
            id=uuid.uuid4(),
            run=run,
            seq=run.tool_invocations.count() + 1,
            tool_name=tool_name,
            status=status,
            payload_sha256=sha256_hex(canonical) if status == InvocationStatus.READY else "",
            payload_bytes=len(canonical),
        )
        if status == InvocationStatus.READY:
            put_entries(invocation_entries(invocation.pk, b"{}", canonical))
        return invocation

    return record


@dataclass
class FakeModel:
    """Plays replies in order: a ModelReply, a string (content) or a ProviderError to raise."""

    replies: list[Any]
    calls: list[list[dict[str, Any]]] = field(default_factory=list)

    def complete(self, messages, tools=None, response_format=None) -> ModelReply:
        self.calls.append([dict(message) for message in messages])
        reply = self.replies.pop(0)
        if isinstance(reply, ProviderError):
            raise reply
        if isinstance(reply, str):
            return ModelReply(content=reply, usage=Usage(10, 5), model="fake")
        return reply


def tool_call_reply(*calls: tuple[str, dict[str, Any]]) -> ModelReply:
    import json

    return ModelReply(
        content=None,
        tool_calls=[
            ToolCall(id=f"call_{i}", name=name, arguments=json.dumps(args)) for i, (name, args) in enumerate(calls)
        ],
        model="fake",
    )


@pytest.fixture
def make_context():
    def make(run: DiagnosisRun, **models: FakeModel) -> NodeContext:
        unused = FakeModel([])
        return NodeContext(
            run_id=run.pk,
            question=run.query,
            history=[],
            environment={
                "services": ["payment-service"],
                "window": {"start": "2026-03-14T09:30:00Z", "end": "2026-03-14T10:45:00Z"},
                "metrics": {},
                "business_tables": {},
                "log_levels": [],
                "tools": [],
            },
            models=RoleModels(**{role.value: models.get(role.value, unused) for role in Role}),
            harness=ToolHarness(run.pk),
            steps=StepLog(run.pk),
            progress=RunProgress(run.pk),
        )

    return make
