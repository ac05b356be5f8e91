"""URL map: the chat page, the JSON APIs, the SSE channels and the auditors' admin.

Each app's routes are included by dotted-path string, so this lowest layer imports no app (docs/architecture.md).
"""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.cache import cache_control
from django.views.decorators.vary import vary_on_cookie
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    # The chat page ("") and the per-run SSE channels ("events/run-<id>/").
    path("", include("diagnosis.page_urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # The language switch (set_language) and the static/js strings in the reader's language.
    path("i18n/", include("django.conf.urls.i18n")),
    # In the language of the reader's cookie: no shared cache may hand it to a reader of another language.
    path(
        "jsi18n/",
        cache_control(private=True)(vary_on_cookie(JavaScriptCatalog.as_view(packages=["diagnosis"]))),
        name="javascript-catalog",
    ),
    path("api/", include("diagnosis.urls")),
    path("api/", include("diagnosis.trace.urls")),
    path("api/", include("tools.urls")),
    path("api/", include("alerts.urls")),
    # The OpenAPI schema and its docs page; the page's assets come from drf-spectacular-sidecar (no CDN). The
    # API has one version: without it, drf-spectacular takes ``?version=`` into its Content-Disposition header
    # unchecked (a line break there was a 500, a NUL a dropped connection).
    path(
        "api/schema/", SpectacularAPIView.as_view(api_version=settings.SPECTACULAR_SETTINGS["VERSION"]), name="schema"
    ),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    # Database, Redis and run executor, for load balancers and operators (no sign-in).
    path("", include("diagnosis.health.urls")),
]
