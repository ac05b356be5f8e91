"""Every error of the tools API as ``{"error": {"code", "message"}}``, whatever raised it.

DRF's own handler answers ``{"detail": ...}`` or a dict of field errors; clients of this API get one shape
for a refused file, a validation error, a missing login, a 404 or a wrong method alike.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler


def error_response(code: str, message: str, *, status_code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"error": {"code": code, "message": message}}, status=status_code)


def json_error_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, headers such as ``Allow``), with the body reshaped; None for non-API errors."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code, message = _code_and_message(exc.detail)
    response.data = {"error": {"code": code, "message": message}}
    return response


def _code_and_message(detail: Any) -> tuple[str, str]:
    """A single code and message; field errors become ``invalid`` with ``field: reason`` for each field."""
    if isinstance(detail, dict):
        reasons = [f"{field}: {_code_and_message(errors)[1]}" for field, errors in detail.items()]
        return "invalid", "; ".join(reasons)
    if isinstance(detail, list):
        return _code_and_message(detail[0]) if detail else ("invalid", "invalid request")
    return getattr(detail, "code", None) or "error", str(detail)
