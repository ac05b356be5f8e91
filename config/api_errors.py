"""One JSON error shape for every API response: ``{"error": {"code", "message"}}``.

DRF's default bodies differ per exception (``detail`` strings, field dicts); clients and tests should
read a single shape, whatever failed.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def _first_message(data: Any) -> str:
    if isinstance(data, dict):
        field, value = next(iter(data.items()), ("", ""))
        message = _first_message(value)
        return message if field in {"detail", "non_field_errors"} else f"{field}: {message}"
    if isinstance(data, list):
        return _first_message(data[0]) if data else ""
    return str(data)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = "invalid_input" if isinstance(exc, ValidationError) else getattr(exc, "default_code", "error")
    response.data = {"error": {"code": str(code), "message": _first_message(response.data)}}
    return response
