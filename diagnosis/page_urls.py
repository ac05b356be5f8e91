"""Page routes of the diagnosis app (mounted at the site root by config/urls.py): the chat page and its
fragments, the knowledge page and the per-run SSE channels. The route names (``chat-page``, ``knowledge-page``, ``run-events``) are global,
not namespaced."""

from django.urls import path

from diagnosis import views
from diagnosis.knowledge_page import KnowledgePageView
from diagnosis.sse.views import run_events

urlpatterns = [
    path("", views.ChatPageView.as_view(), name="chat-page"),
    # HTML fragments the page asks for (static/js): the sidebar's sessions and a finished run's figures.
    path("sessions/", views.sessions_fragment, name="chat-sessions"),
    path("history/", views.SessionsPageView.as_view(), name="sessions-page"),
    path("runs/<uuid:run_id>/figures", views.figures_fragment, name="run-figures"),
    path("knowledge/", KnowledgePageView.as_view(), name="knowledge-page"),
    # One SSE channel per run, read with the session cookie or an API token; access is decided by
    # diagnosis.sse.RunChannelManager (diagnosis/sse/views.py).
    path("events/run-<uuid:run_id>/", run_events, {"format-channels": ["run-{run_id}"]}, name="run-events"),
]
