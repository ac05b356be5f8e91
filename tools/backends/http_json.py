"""One JSON request to an observability backend, every failure turned into a FAILED tool call.

A backend that is down, slow, refuses the query or answers something that is not its documented JSON must
end the call with a message the model (and the operator reading the trace) can act on — never crash the run.
The whole exchange, from connecting to the body's last byte, must end within what is left of the call's
deadline (``config.bounded_http``: httpx's own timeouts bound each read, which a backend trickling its body
never trips).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from config.bounded_http import ResponseRefused, request_within
from config.run_scope import waiting
from tools.errors import ToolBackendError, ToolTimeout

# Below this a request cannot usefully start: the call is already as good as late.
MINIMUM_REQUEST_SECONDS = 0.05
# The most of an answer read (decoded): far past what the payload budget keeps of a page of records, and
# short of what a wrong URL (an export, a dump) would make the worker hold in memory.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# A partial answer's warnings kept with the payload: how many, and how much of each.
MAX_WARNINGS = 5
WARNING_CHARS = 500


@dataclass(frozen=True)
class HttpEndpoint:
    """Where a backend lives and how to authenticate to it (bearer token, or basic user/password)."""

    name: str
    base_url: str
    bearer_token: str = ""
    username: str = ""
    password: str = ""
    verify_tls: bool = True
    headers: tuple[tuple[str, str], ...] = ()

    def client_headers(self) -> dict[str, str]:
        headers = dict(self.headers)
        if self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        return headers

    def auth(self) -> httpx.BasicAuth | None:
        return httpx.BasicAuth(self.username, self.password) if self.username else None

    def client_options(self) -> dict[str, Any]:
        """The ``httpx`` client's options for this endpoint."""
        return {
            "base_url": self.base_url,
            "headers": self.client_headers(),
            "auth": self.auth(),
            "verify": self.verify_tls,
        }


def request_json(endpoint: HttpEndpoint, method: str, path: str, *, deadline: float, **request: Any) -> dict[str, Any]:
    """The JSON object answered by ``method path`` (``request`` as for ``httpx.request``), or a tool error."""
    remaining = deadline - time.monotonic()
    if remaining < MINIMUM_REQUEST_SECONDS:
        raise ToolTimeout(f"no time left to ask {endpoint.name}")
    waiting()
    try:
        response = request_within(
            remaining, method, path, max_bytes=MAX_RESPONSE_BYTES, client=endpoint.client_options(), **request
        )
    except ResponseRefused as error:
        raise ToolBackendError(
            "backend_bad_response", f"{endpoint.name}: {error} (narrow the window or the limit when it is too large)"
        ) from None
    except (httpx.TimeoutException, TimeoutError):
        raise ToolTimeout(f"{endpoint.name} did not answer within {remaining:.1f}s") from None
    except httpx.HTTPError as error:
        raise ToolBackendError("backend_unavailable", f"{endpoint.name} could not be reached: {error}") from None
    if response.status_code == 204:
        return {}
    if 300 <= response.status_code < 400:  # not followed: the credentials stay with the configured address
        raise ToolBackendError(
            "backend_error",
            f"{endpoint.name} answered HTTP {response.status_code}, a redirect to "
            f"{_shown_address(response.headers.get('location', ''))}: its URL setting must be the address it "
            "redirects to",
        )
    try:
        # NaN and Infinity outside a string are no JSON: a payload holding them could not be stored.
        body = response.json(parse_constant=_not_json)
    except (ValueError, RecursionError):  # RecursionError: a body nested deeper than json can read
        body = None
    if response.is_error:
        detail = error_detail(body) or response.text[:300].strip() or response.reason_phrase
        raise ToolBackendError("backend_error", f"{endpoint.name} answered HTTP {response.status_code}: {detail}")
    if not isinstance(body, dict):
        raise ToolBackendError("backend_bad_response", f"{endpoint.name} answered something that is not a JSON object")
    return body


def _shown_address(location: str) -> str:
    """Where a redirect points, without the credentials, query or fragment it may carry."""
    try:
        shown = str(httpx.URL(location).copy_with(query=None, fragment=None, userinfo=b""))
    except (httpx.InvalidURL, ValueError):
        return "an address that is not a URL"
    return shown[:200] or "nowhere"


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def backend_warnings(*bodies: dict[str, Any]) -> dict[str, list[str]]:
    """``{"warnings": [...]}`` for a payload, from the warnings Prometheus and Loki answer beside a partial
    result (a store of Thanos or Mimir, a querier of Loki that did not answer), or nothing: a partial answer
    must not read as the whole truth."""
    listed = [body.get("warnings") for body in bodies]
    warnings = [
        str(warning)[:WARNING_CHARS] for each in listed if isinstance(each, list) for warning in each if warning
    ]
    return {"warnings": list(dict.fromkeys(warnings))[:MAX_WARNINGS]} if warnings else {}


def error_detail(body: Any) -> str:
    """The ``errorType: error`` of Prometheus' and Loki's JSON error shape, when the body has it."""
    if not isinstance(body, dict) or not isinstance(body.get("error"), str):
        return ""
    return f"{body.get('errorType', 'error')}: {body['error']}"
