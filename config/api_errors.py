"""One JSON error shape for every API response: ``{"error": {"code", "message"}}``.

DRF's default bodies differ per exception (``detail`` strings, field dicts); clients and tests read a
single shape whatever failed: a validation error (``invalid_input`` with ``field: reason``), a missing
login (``not_authenticated``), a 404 (``not_found``), a wrong method (``method_not_allowed``)...

Some errors never pass DRF's handler as API errors, and get the shape here too: Django's request limits (a
body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``, too many files or fields), which Django answers with its HTML 400
page; anything Django answers before a view runs, such as an unknown path under ``/api/``; and the 500 of
an exception no view handled (``ApiErrorMiddleware``).
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404, HttpRequest, HttpResponseBase, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext, gettext_lazy, ngettext
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

VALIDATION_CODE = "invalid_input"
API_PREFIX = "/api/"


class ErrorSerializer(serializers.Serializer):
    """The error body in the OpenAPI schema: one component that every API's error responses share."""

    class ErrorBodySerializer(serializers.Serializer):
        code = serializers.CharField()
        message = serializers.CharField()

    error = ErrorBodySerializer()


def retry_after_header(*statuses: int) -> OpenApiParameter:
    """The ``Retry-After`` header of ``statuses`` in the OpenAPI schema (``error_response``'s ``retry_after``)."""
    return OpenApiParameter(
        "Retry-After",
        int,
        OpenApiParameter.HEADER,
        response=list(statuses),
        description="seconds after which the refused request may succeed",
    )


def error_response(
    code: str, message: str, *, status_code: int = status.HTTP_400_BAD_REQUEST, retry_after: int | None = None
) -> Response:
    """The error body; ``retry_after`` (seconds) tells a client when a temporary refusal may pass."""
    headers = None if retry_after is None else {"Retry-After": str(retry_after)}
    return Response({"error": {"code": code, "message": message}}, status=status_code, headers=headers)


def request_too_large(limit: int) -> dict[str, Any]:
    """The body of the 413 of a request over ``limit`` bytes, whichever limit refused it."""
    message = gettext("the request body is over %(limit)d bytes") % {"limit": limit}
    return {"error": {"code": "request_too_large", "message": message}}


# DRF texts its own catalogue leaves English (a body of JSON ``null``: "No data provided", not marked for
# translation) or words wrongly in Chinese (its "Null characters are not allowed." reads "empty strings are
# not allowed"): said here, by their code, in the reader's language.
_NO_DATA = "No data provided"
_DETAIL_MESSAGES = {"null_characters_not_allowed": gettext_lazy("Null characters (U+0000) are not allowed.")}


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
    if str(detail) == _NO_DATA:
        return gettext("The request has no data: send a JSON object.")
    code = getattr(detail, "code", None)
    return str(_DETAIL_MESSAGES[code]) if code in _DETAIL_MESSAGES else str(detail)


def _code(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return VALIDATION_CODE
    # Django's own, which DRF answers as its NotFound and PermissionDenied (the format suffix's 404 is one).
    if isinstance(exc, Http404):
        return str(NotFound.default_code)
    if isinstance(exc, DjangoPermissionDenied):
        return str(PermissionDenied.default_code)
    detail = getattr(exc, "detail", None)
    return str(getattr(detail, "code", None) or getattr(exc, "default_code", "error"))


def _request_limit_error(exc: Exception) -> Response | None:
    """Django's request limits, which it raises while DRF reads the body, as API errors (None for others)."""
    if isinstance(exc, RequestDataTooBig):
        body = request_too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        response = Response(body, status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    elif isinstance(exc, TooManyFilesSent):
        files = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        message = ngettext(
            "a request may carry at most %(limit)d file", "a request may carry at most %(limit)d files", files
        )
        response = error_response("too_many_files", message % {"limit": files})
    elif isinstance(exc, TooManyFieldsSent):
        fields = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        message = ngettext(
            "a request may carry at most %(limit)d field", "a request may carry at most %(limit)d fields", fields
        )
        response = error_response("too_many_fields", message % {"limit": fields})
    else:
        return None
    # Django logs these suspicious operations on its security logger; answering them here must not hide them.
    logging.getLogger(f"django.security.{type(exc).__name__}").warning("%s", exc)
    return response


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler (status, headers such as ``Allow``) with the body reshaped; None for non-API errors."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return _request_limit_error(exc)
    message = _message(response.data)
    if isinstance(exc, PermissionDenied) and message.startswith(_CSRF_FAILED):
        # DRF's own text ("CSRF Failed: CSRF token missing.") is English whatever the reader reads.
        message = gettext("The page's security token is missing or out of date: reload the page and send again.")
    response.data = {"error": {"code": _code(exc), "message": message}}
    return response


# How DRF's session authentication words a refused CSRF check (``SessionAuthentication.enforce_csrf``).
_CSRF_FAILED = "CSRF Failed"


# The message of an error Django answered itself, in the reader's language (the LocaleMiddleware within has
# chosen it); a status not listed keeps its English reason phrase.
_STATUS_MESSAGES = {
    400: gettext_lazy("Bad request"),
    403: gettext_lazy("Forbidden"),
    404: gettext_lazy("Not found: no API answers at this address"),
    405: gettext_lazy("Method not allowed"),
    500: gettext_lazy("Internal server error: the server's log says what failed"),
}


class ApiErrorMiddleware(MiddlewareMixin):
    """An error under ``/api/`` that is not JSON (Django's own page: an unknown path, a bad host, the 500 of an
    unhandled exception) gets the shape.

    Django renders these itself — with ``DEBUG`` its technical pages, which ``handler404`` cannot replace —
    so the response is reshaped on its way out, keeping its status and headers such as ``Allow``. A 500 says
    no more than its status: the exception is in the server's log (``django.request``), never in the body.
    """

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if (
            not request.path.startswith(API_PREFIX)
            or not 400 <= response.status_code < 600
            or "json" in response.get("Content-Type", "")
        ):
            return response
        phrase = response.reason_phrase
        message = _STATUS_MESSAGES.get(response.status_code)
        reshaped = JsonResponse(
            {"error": {"code": phrase.lower().replace(" ", "_"), "message": str(message or phrase)}},
            status=response.status_code,
        )
        if response.has_header("Allow"):
            reshaped["Allow"] = response["Allow"]
        return reshaped
