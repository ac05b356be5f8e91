"""JSON API routes of the Trace API (mounted under /api/ by config/urls.py), in the ``tracing`` namespace."""

from django.urls import path

from diagnosis.trace.api import ReasoningApi, TraceApi

app_name = "tracing"
# A str, not a uuid converter: a malformed session id must get the API's JSON 404, not Django's HTML one.
urlpatterns = [
    path("diagnosis/<str:session_id>/trace", TraceApi.as_view(), name="trace"),
    path("diagnosis/<str:session_id>/trace/reasoning", ReasoningApi.as_view(), name="reasoning"),
]
