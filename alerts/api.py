"""The Alertmanager webhook: one view, the payload checked before anything is written, logic in services."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from alerts.authentication import HasIntakeToken, IntakeTokenAuthentication
from alerts.models import IntakeAction
from alerts.payload import log_refusal, parse_payload
from alerts.services import alert_notification_receive
from config.api_errors import ErrorSerializer, error_response, retry_after_header
from diagnosis.submission import SubmissionError


class AlertmanagerIntakeApi(APIView):
    authentication_classes = [IntakeTokenAuthentication]
    permission_classes = [HasIntakeToken]

    @extend_schema_serializer(component_name="AlertIntakeOutput")
    class OutputSerializer(serializers.Serializer):
        notification_id = serializers.IntegerField()
        action = serializers.ChoiceField(choices=IntakeAction.choices)
        run_id = serializers.UUIDField(allow_null=True)
        session_id = serializers.UUIDField(allow_null=True)

    @extend_schema(
        operation_id="alertmanager_webhook",
        summary="Alertmanager webhook (payload version 4): a firing alert group starts a diagnosis run",
        request=OpenApiTypes.OBJECT,
        responses={
            202: OpenApiResponse(OutputSerializer, description="STARTED: a run was started for the group"),
            200: OpenApiResponse(OutputSerializer, description="DUPLICATE (the group's incident again) or RESOLVED"),
            400: OpenApiResponse(ErrorSerializer, description="not a version 4 payload; the message names the field"),
            401: OpenApiResponse(ErrorSerializer, description="missing or wrong bearer token"),
            404: OpenApiResponse(ErrorSerializer, description="alert intake is disabled (no ALERT_INTAKE_TOKEN)"),
            503: OpenApiResponse(
                ErrorSerializer,
                description="the broker is down, ALERT_MAX_ACTIVE_RUNS alert runs are running, or ALERT_SERVICE_USERNAME names "
                "an account that can sign in; "
                "no run was started for the group, retry",
            ),
        },
        parameters=[retry_after_header(503)],
    )
    def post(self, request: Request) -> Response:
        payload = parse_payload(request.data)
        try:
            notification = alert_notification_receive(payload=payload)
        except SubmissionError as error:
            log_refusal(request.data, error.code, f"HTTP {error.status}, {error.message}")
            return error_response(error.code, error.message, status_code=error.status, retry_after=error.retry_after)
        run = notification.run
        output = {
            "notification_id": notification.pk,
            "action": notification.action,
            "run_id": run.pk if run else None,
            "session_id": run.session_id if run else None,
        }
        started = notification.action == IntakeAction.STARTED
        return Response(self.OutputSerializer(output).data, status=status.HTTP_202_ACCEPTED if started else 200)
