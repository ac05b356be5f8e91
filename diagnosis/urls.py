"""JSON API routes of the diagnosis app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from diagnosis.api import ChatApi

urlpatterns = [path("chat", ChatApi.as_view(), name="chat")]
