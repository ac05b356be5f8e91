"""What a signed-in reader (a session or an API token) is answered is kept by no cache.

Answers, questions, traces and the reasoning audit are one user's: without a ``Cache-Control`` of their own,
a browser keeps them on disk after the reader signs out (the Back button on a shared machine shows them), and
a shared cache that does not know the answer depends on the ``Authorization`` header may hand one reader's
to another. A response that says how it may be cached itself (the language catalogue's ``private``, the
streams' ``no-cache``, the login page's ``never_cache``) keeps its word.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.deprecation import MiddlewareMixin


class PrivateResponsesMiddleware(MiddlewareMixin):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        token = "Authorization" in request.headers
        user = getattr(request, "user", None)  # absent when a middleware above answered first
        if not (token or (user is not None and user.is_authenticated)):
            return response
        if not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        if token:
            patch_vary_headers(response, ("Authorization",))
        return response
