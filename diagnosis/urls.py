"""JSON API routes of the diagnosis app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from diagnosis.api import ChatApi, RunCancelApi
from diagnosis.feedback.api import RunFeedbackApi

urlpatterns = [
    path("chat", ChatApi.as_view(), name="chat"),
    # A str, not a uuid converter: a malformed id must get the API's JSON 404, not Django's HTML one.
    path("runs/<str:run_id>/cancel", RunCancelApi.as_view(), name="run-cancel"),
    path("runs/<str:run_id>/feedback", RunFeedbackApi.as_view(), name="run-feedback"),
]
