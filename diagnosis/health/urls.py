"""The health route (mounted at the site root by config/urls.py, outside /api/: probes expect ``/healthz``)."""

from django.urls import path

from diagnosis.health.api import HealthApi

urlpatterns = [path("healthz", HealthApi.as_view(), name="healthz")]
