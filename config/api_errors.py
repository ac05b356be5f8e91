"""One JSON error shape for every API response: ``{"error": {"code", "message"}}``.

DRF's default bodies differ per exception (``detail`` strings, field dicts); clients and tests read a
single shape whatever failed: a validation error (``invalid_input`` with ``field: reason``), a missing
login (``not_authenticated``), a 404 (``not_found``), a wrong method (``method_not_allowed``)...
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

VALIDATION_CODE = "invalid_input"


class ErrorSerializer(serializers.Serializer):
    """The error body in the OpenAPI schema: one component that every API's error responses share."""

    class ErrorBodySerializer(serializers.Serializer):
        code = serializers.CharField()
        message = serializers.CharField()

    error = ErrorBodySerializer()


def error_response(code: str, message: str, *, status_code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"error": {"code": code, "message": message}}, status=status_code)


def _message(detail: Any) -> str:
    """Every field's first reason, ``field: reason; other: reason``; a plain detail as it is."""
    if isinstance(detail, dict):
        parts = []
        for field, errors in detail.items():
            reason = _message(errors)
            parts.append(reason if field in {"detail", "non_field_errors"} else f"{field}: {reason}")
        return "; ".join(parts)
    if isinstance(detail, list):
        return _message(detail[0]) if detail else "invalid request"
    return str(detail)


def _code(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return VALIDATION_CODE
    detail = getattr(exc, "detail", None)
    return str(getattr(detail, "code", None) or getattr(exc, "default_code", "error"))


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, headers such as ``Allow``) with the body reshaped; None for non-API errors."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    response.data = {"error": {"code": _code(exc), "message": _message(response.data)}}
    return response
