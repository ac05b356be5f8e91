"""Django's ``CommonMiddleware``, with its trailing-slash redirect for reads only.

A POST to an address that lacks its trailing slash (``/sessions``, ``/api/schema``) would be redirected to
the address with it, without its body: Django refuses that with a ``RuntimeError`` when ``DEBUG`` is on (the
embedded demo's setting), a 500. It is a 404 instead, which the API answers as JSON and a page as its own.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.common import CommonMiddleware

SAFE_METHODS = ("GET", "HEAD")


class ReadsOnlySlashMiddleware(CommonMiddleware):
    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        return request.method in SAFE_METHODS and super().should_redirect_with_slash(request)
