"""The Trace API: one view per operation; who may read what is decided by the selectors.

A session the caller may not read is a 404 exactly like an unknown one, so session ids of other users
cannot be probed. The reasoning audit has its own endpoint and permission and is never part of the
normal trace.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.permissions import BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer
from diagnosis.models import ChatSession
from diagnosis.selectors import run_of
from diagnosis.trace.selectors import run_reasoning, session_runs, trace_run, trace_session
from diagnosis.trace.serializers import ReasoningSerializer, RunTraceSerializer, SessionTraceSerializer
from tracing.selectors import can_view_reasoning

SESSION_ID = OpenApiParameter("session_id", OpenApiTypes.UUID, OpenApiParameter.PATH)


def _session_or_404(request: Request, session_id: str) -> ChatSession:
    session = trace_session(request.user, session_id)
    if session is None:
        raise NotFound(gettext("no such chat session"))
    return session


class TraceApi(APIView):
    class QuerySerializer(serializers.Serializer):
        runId = serializers.UUIDField(required=False, help_text="The exact run; without it, the session's runs.")
        before = serializers.UUIDField(
            required=False,
            help_text="Without runId: the runs started before this run of the session (a page's olderRunsBefore).",
        )

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            # DRF reads a blank query parameter of an optional field as no parameter: `?runId=` would answer
            # the session's list, another shape, where the client asked for a run.
            blank = [name for name in ("runId", "before") if self.initial_data.get(name, None) == ""]
            if blank:
                raise serializers.ValidationError({name: self.fields[name].error_messages["invalid"] for name in blank})
            if "runId" in attrs and "before" in attrs:
                raise serializers.ValidationError({"before": gettext("pages the run list; it does not go with runId")})
            return attrs

    @extend_schema(
        operation_id="diagnosis_trace_retrieve",
        tags=["trace"],
        summary="A run's trace (with runId), or the session and a page of its runs, newest first (without)",
        description=(
            "Owner or auditor only. The run's steps, tool invocation metadata and timeline; never reasoning "
            "or assistant text (see the reasoning endpoint)."
        ),
        parameters=[SESSION_ID, QuerySerializer],
        responses={
            200: PolymorphicProxySerializer(
                component_name="Trace",
                serializers=[RunTraceSerializer, SessionTraceSerializer],
                resource_type_field_name=None,
            ),
            400: ErrorSerializer,
            403: ErrorSerializer,
            404: ErrorSerializer,
        },
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = _session_or_404(request, session_id)
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        run_id = query.validated_data.get("runId")
        if run_id is None:
            return Response(SessionTraceSerializer(_runs_page(session, query.validated_data.get("before"))).data)
        run = trace_run(session, run_id)
        if run is None:
            raise NotFound(gettext("no such run in this chat session"))
        return Response(RunTraceSerializer(run).data)


def _runs_page(session: ChatSession, before_id: uuid.UUID | None) -> dict[str, Any]:
    before = None
    if before_id is not None:
        before = run_of(session, before_id)
        if before is None:
            raise NotFound(gettext("no such run in this chat session"))
    runs, truncated = session_runs(session, before)
    return {
        "session": session,
        "runs": runs,
        "truncated": truncated,
        "older_before": runs[-1].pk if truncated else None,
    }


class CanViewReasoning(BasePermission):
    message = _("the reasoning audit needs the tracing.view_reasoning permission")

    def has_permission(self, request: Request, view: APIView) -> bool:
        return can_view_reasoning(request.user)


class ReasoningApi(APIView):
    permission_classes = [IsAuthenticated, CanViewReasoning]

    class QuerySerializer(serializers.Serializer):
        runId = serializers.UUIDField(help_text="Required: a run of this session.")

    @extend_schema(
        operation_id="diagnosis_trace_reasoning_retrieve",
        tags=["trace"],
        summary="The restricted reasoning audit of one run (tracing.view_reasoning only)",
        description=(
            "Per model step: the provider's reasoning_content and the assistant text, or UNAVAILABLE when the "
            "provider returned none. Audit material, never evidence."
        ),
        parameters=[SESSION_ID, QuerySerializer],
        responses={200: ReasoningSerializer, 400: ErrorSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
    )
    def get(self, request: Request, session_id: str) -> Response:
        session = _session_or_404(request, session_id)
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        run_id = query.validated_data["runId"]
        entries = run_reasoning(session, run_id)
        if entries is None:
            raise NotFound(gettext("no such run in this chat session"))
        return Response(ReasoningSerializer({"sessionId": session.id, "runId": run_id, "steps": entries}).data)
