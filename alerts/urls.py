"""JSON API routes of the alerts app (mounted under /api/ by config/urls.py)."""

from django.urls import path

from alerts.api import AlertmanagerIntakeApi

urlpatterns = [path("alerts/alertmanager", AlertmanagerIntakeApi.as_view(), name="alertmanager-webhook")]
