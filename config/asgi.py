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
