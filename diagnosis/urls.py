"""JSON API routes of the diagnosis app (mounted under /api/ by config/urls.py)."""

from django.urls import path  # noqa: F401 - routes are added by the issues that build them

app_name = "diagnosis"
urlpatterns: list = []
