"""JSON API routes of the tracing app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from tracing.api import ReasoningApi, TraceApi

app_name = "tracing"
# A str, not a uuid converter: a malformed session id must get the API's JSON 404, not Django's HTML one.
urlpatterns = [
    path("diagnosis/<str:session_id>/trace", TraceApi.as_view(), name="trace"),
    path("diagnosis/<str:session_id>/trace/reasoning", ReasoningApi.as_view(), name="reasoning"),
]
