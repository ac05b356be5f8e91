"""The feedback API: ``PUT /api/runs/{run_id}/feedback``; the view validates and calls the service only.

Only the run's owner rates it; anyone else's run is the same 404 as an unknown one (``selectors``). Auditors
are refused before this view runs, by the default API permissions (``diagnosis.permissions``).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api_errors import ErrorSerializer, error_response
from config.api_fields import StrictCharField
from diagnosis.feedback.selectors import run_rateable_by
from diagnosis.feedback.serializers import FeedbackSerializer
from diagnosis.feedback.services import MAX_COMMENT_CHARS, FeedbackRefused, feedback_give
from diagnosis.models import FeedbackRating


class RunFeedbackApi(APIView):
    @extend_schema_serializer(component_name="RunFeedbackInput")
    class InputSerializer(serializers.Serializer):
        rating = serializers.ChoiceField(choices=FeedbackRating.choices, help_text="UP: helpful; DOWN: wrong.")
        comment = StrictCharField(
            required=False, default="", allow_blank=True, max_length=MAX_COMMENT_CHARS, help_text="Optional."
        )

    @extend_schema(
        operation_id="run_feedback_set",
        summary="Rate a run's answer (👍/👎) with an optional comment; one per user and run, changeable",
        request=InputSerializer,
        parameters=[OpenApiParameter("run_id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses={
            200: OpenApiResponse(FeedbackSerializer, description="your feedback on this run was changed"),
            201: OpenApiResponse(FeedbackSerializer, description="your first feedback on this run"),
            400: OpenApiResponse(ErrorSerializer, description="a rating other than UP or DOWN, or a comment too long"),
            403: OpenApiResponse(ErrorSerializer, description="not signed in, or an auditor (read-only)"),
            404: OpenApiResponse(ErrorSerializer, description="unknown run, or not yours"),
            409: OpenApiResponse(ErrorSerializer, description="run_running: the run has no answer yet"),
        },
    )
    def put(self, request: Request, run_id: str) -> Response:
        run = run_rateable_by(request.user, run_id)
        if run is None:
            raise NotFound(_("no such run"))
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            feedback, created = feedback_give(run=run, user=request.user, **serializer.validated_data)
        except FeedbackRefused as refused:
            return error_response(refused.code, refused.message, status_code=status.HTTP_409_CONFLICT)
        return Response(
            FeedbackSerializer(feedback).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )
