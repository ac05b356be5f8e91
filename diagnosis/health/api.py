"""``GET /healthz``: 200 when every check passes, 503 otherwise, the same body either way."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from diagnosis.health.checks import health


class HealthCheckSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    latency_ms = serializers.IntegerField(help_text="Until the answer came, or until the check failed.")
    error = serializers.CharField(help_text="Empty when ok; else what failed, without hosts or URLs.")


class HealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["ok", "degraded", "unavailable"],
        help_text="degraded (200): runs are taken, but the stale-run reaper has not passed lately.",
    )
    checks = serializers.DictField(
        child=HealthCheckSerializer(),
        help_text="database always; redis when REDIS_URL is set; worker: a Celery worker on the run queue, "
        "or in the embedded mode a thread of the in-process run pool; reaper: a stale-run reaper pass (celery "
        "beat's, or the embedded timer's) ended within three of its intervals.",
    )


class HealthApi(APIView):
    # Probes carry no credentials; a bad token must not turn a health answer into a 401.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="healthz",
        tags=["health"],
        summary="Whether the database, Redis and a run executor answer, and the reaper passes (no sign-in)",
        auth=[],
        responses={
            200: HealthSerializer,
            503: OpenApiResponse(HealthSerializer, description="one check or more failed"),
        },
    )
    def get(self, request: Request) -> Response:
        report = health()
        body = {
            "status": "unavailable" if not report.ok else "degraded" if report.degraded else "ok",
            "checks": {name: asdict(check) for name, check in report.checks.items()},
        }
        code = status.HTTP_200_OK if report.ok else status.HTTP_503_SERVICE_UNAVAILABLE
        return Response(HealthSerializer(body).data, status=code)
