"""Chat API: one view per operation, nested input/output serializers, logic in the submission service."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer, error_response
from config.api_fields import StrictCharField, StrictUUIDField
from diagnosis import sse
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
            404: OpenApiResponse(ErrorSerializer, description="unknown or foreign session"),
        },
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
            )
        except SubmissionError as error:
            return error_response(error.code, error.message, status_code=error.status)
        output = {"session_id": run.session_id, "run_id": run.id, "events_url": sse.events_url(run.id)}
        return Response(self.OutputSerializer(output).data, status=status.HTTP_202_ACCEPTED)
