"""The pages' Content-Security-Policy: scripts, styles and connections from this site only, nothing inline.

The chat page writes server-rendered HTML into itself (the sanitised answer, the session list): the sanitiser
is the first defence, this header the second: a script that slipped into either could neither run inline nor
load from or talk to another origin. The pages are written for it (no inline script or style; the page's
data comes as ``json_script`` blocks, which are data, not scripts). The admin and the API's documentation
page are Django's and drf-spectacular's pages, with inline scripts of their own, and so are error pages: they
keep their defaults.
"""

from __future__ import annotations

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.deprecation import MiddlewareMixin

POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
#: Pages that are not this project's templates.
EXEMPT_PREFIXES = ("/admin/", "/api/docs/")


class ContentSecurityPolicyMiddleware(MiddlewareMixin):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        # Error pages are Django's (with DEBUG, its technical pages and their inline styles and scripts).
        if (
            response.status_code < 400
            and "text/html" in response.get("Content-Type", "")
            and not request.path.startswith(EXEMPT_PREFIXES)
        ):
            response.setdefault("Content-Security-Policy", POLICY)
        return response
