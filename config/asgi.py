"""ASGI entry point served by uvicorn; django-eventstream's SSE responses need ASGI."""

import os
import sys

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

try:
    from django.core.asgi import get_asgi_application

    django_application = get_asgi_application()
except ImproperlyConfigured as exc:  # a bad environment variable: one line, no traceback
    sys.exit(f"configuration error: {exc}")

from config.body_limit import RequestBodyLimit
from config.lifespan import Lifespan

# In embedded mode this process executes runs and reaps stale ones; in production Celery does both. The
# starter and the stopper are named by settings (diagnosis.dispatch), so config imports no app: the stopper
# ends what the process was executing when the server stops.
import_string(settings.EMBEDDED_RUNTIME_STARTER)()

# Bodies are capped as they arrive: Django stores a whole body before anything of it is checked.
application = Lifespan(
    RequestBodyLimit(django_application, settings.REQUEST_MAX_BYTES), import_string(settings.EMBEDDED_RUNTIME_STOPPER)
)
