"""ASGI entry point served by uvicorn; django-eventstream's SSE responses need ASGI."""

import os
import sys

from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

try:
    from django.core.asgi import get_asgi_application

    application = get_asgi_application()
except ImproperlyConfigured as exc:  # a bad environment variable: one line, no traceback
    sys.exit(f"configuration error: {exc}")

from diagnosis.dispatch import start_embedded_runtime  # noqa: E402 - needs the configured app registry

# In embedded mode this process executes runs and reaps stale ones; in production Celery does both.
start_embedded_runtime()
