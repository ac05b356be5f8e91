"""Alertmanager's credentials: ``Authorization: Bearer <ALERT_INTAKE_TOKEN>``, for the intake endpoint only.

With no token configured the endpoint does not exist (404), so an unconfigured deployment exposes nothing.
The token is compared in constant time. A missing header is a 401 through ``HasIntakeToken``, whose
``WWW-Authenticate`` comes from ``authenticate_header``; a wrong one is a 401 here.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed, NotFound
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

#: ``request.auth`` of an authenticated intake request.
INTAKE_AUTH = "alert-intake-token"


class IntakeTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[AnonymousUser, str] | None:
        expected = settings.ALERT_INTAKE_TOKEN
        if not expected:
            raise NotFound("alert intake is not enabled (ALERT_INTAKE_TOKEN is unset)")
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != b"bearer":
            return None
        if len(parts) != 2 or not hmac.compare_digest(parts[1], expected.encode()):
            raise AuthenticationFailed("invalid bearer token")
        return AnonymousUser(), INTAKE_AUTH

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="alerts"'


class HasIntakeToken(BasePermission):
    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.auth == INTAKE_AUTH


class IntakeTokenScheme(OpenApiAuthenticationExtension):
    """The intake's security scheme in the OpenAPI schema (drf-spectacular registers it on import)."""

    target_class = IntakeTokenAuthentication
    name = "alertIntakeToken"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "ALERT_INTAKE_TOKEN"}
