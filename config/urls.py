"""URL map: the chat page, the JSON APIs, the SSE channels and the auditors' admin."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from diagnosis import views as diagnosis_views
from diagnosis.sse.ordering import run_events

urlpatterns = [
    path("", diagnosis_views.ChatPageView.as_view(), name="chat-page"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    # One SSE channel per run; access is decided by diagnosis.sse.RunChannelManager.
    path("events/run-<uuid:run_id>/", run_events, {"format-channels": ["run-{run_id}"]}, name="run-events"),
    path("api/", include("diagnosis.urls")),
    path("api/", include("diagnosis.trace.urls")),
    path("api/", include("tools.urls")),
    # The OpenAPI schema and its docs page; the page's assets come from drf-spectacular-sidecar (no CDN).
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]
