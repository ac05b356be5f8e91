"""Chat API: one view per operation, nested input/output serializers, logic in the services."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer, error_response, retry_after_header
from config.api_fields import StrictCharField, StrictUUIDField
from diagnosis import sse
from diagnosis.models import RunStatus
from diagnosis.selectors import run_cancellable_by
from diagnosis.services import run_cancel
from diagnosis.submission import MAX_MESSAGE_CHARS, SubmissionError, chat_submit


class ChatApi(APIView):
    class InputSerializer(serializers.Serializer):
        # Length is checked by the service after stripping, so that its error code is the documented one.
        message = StrictCharField(allow_blank=True, trim_whitespace=False)
        session_id = StrictUUIDField(required=False, allow_null=True)

    class OutputSerializer(serializers.Serializer):
        session_id = serializers.UUIDField()
        run_id = serializers.UUIDField()
        events_url = serializers.CharField()

    @extend_schema(
        operation_id="chat_create",
        request=InputSerializer,
        responses={
            202: OutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description=f"empty, invalid or over {MAX_MESSAGE_CHARS} characters"),
            403: OpenApiResponse(ErrorSerializer, description="not signed in, or an auditor (read-only)"),
            404: OpenApiResponse(ErrorSerializer, description="unknown or foreign session"),
            413: OpenApiResponse(ErrorSerializer, description="request_too_large: the body is over the upload limit"),
            429: OpenApiResponse(
                ErrorSerializer, description="too_many_runs: the user already has RUN_MAX_ACTIVE_PER_USER runs running"
            ),
            503: OpenApiResponse(
                ErrorSerializer, description="service_unavailable: the broker (Redis) is down; no run will answer"
            ),
        },
        parameters=[retry_after_header(429, 503)],
        description="Submit a message; the run executes asynchronously and streams named events at events_url.",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            run = chat_submit(
                user=request.user,
                message=serializer.validated_data["message"],
                session_id=serializer.validated_data.get("session_id"),
                max_active=settings.RUN_MAX_ACTIVE_PER_USER,
            )
        except SubmissionError as error:
            return error_response(error.code, error.message, status_code=error.status, retry_after=error.retry_after)
        output = {"session_id": run.session_id, "run_id": run.id, "events_url": sse.events_url(run.id)}
        return Response(self.OutputSerializer(output).data, status=status.HTTP_202_ACCEPTED)


class RunCancelApi(APIView):
    @extend_schema_serializer(component_name="RunCancelOutput")
    class OutputSerializer(serializers.Serializer):
        run_id = serializers.UUIDField()
        status = serializers.ChoiceField(
            choices=RunStatus.choices,
            help_text="The run's status now. RUNNING: it stops at its next node boundary; FAILED: it was still "
            "queued and has ended.",
        )

    @extend_schema(
        operation_id="run_cancel",
        summary="Cancel a run: it stops at its next node boundary and ends FAILED cancelled",
        request=None,
        parameters=[OpenApiParameter("run_id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses={
            202: OutputSerializer,
            403: OpenApiResponse(ErrorSerializer, description="not signed in, or an auditor (read-only)"),
            404: OpenApiResponse(ErrorSerializer, description="unknown run, or not yours to cancel"),
            409: OpenApiResponse(ErrorSerializer, description="the run has already ended"),
        },
        description=(
            "Cancel a run (its owner, or a holder of diagnosis.cancel_diagnosisrun). It stops at the next node "
            "boundary and ends FAILED with reason cancelled: its stream sends failure, then done."
        ),
    )
    def post(self, request: Request, run_id: str) -> Response:
        run = run_cancellable_by(request.user, run_id)
        if run is None:
            raise NotFound(_("no such run"))
        if not run_cancel(run, user=request.user):
            return error_response("run_finished", _("the run has already ended"), status_code=status.HTTP_409_CONFLICT)
        output = {"run_id": run.pk, "status": run.status}
        return Response(self.OutputSerializer(output).data, status=status.HTTP_202_ACCEPTED)
