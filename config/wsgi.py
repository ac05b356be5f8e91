"""WSGI entry point. Only for tooling: the chat's SSE stream needs the ASGI app (``config.asgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_wsgi_application()
