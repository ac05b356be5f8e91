"""The Celery app: each diagnosis run is one task, claimed once and never lost silently.

``acks_late`` + ``reject_on_worker_lost`` hand a message back to the broker when a worker dies mid-run;
the task's own claim (a conditional update) keeps a redelivered run from executing twice, and the stale
run reaper ends whatever a dead worker left RUNNING.
"""

from __future__ import annotations

import logging
import os
import socket
import sys

from celery import Celery, signals

from config.redaction import RedactSecrets

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("superbiz")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_configure.connect
def settings_or_exit(**kwargs: object) -> None:
    """Load Django's settings as Celery is about to read them: a bad environment variable stops a worker or
    beat with one line naming it, as it stops ``manage.py`` and the ASGI app, not with Celery's traceback."""
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured

    try:
        settings.INSTALLED_APPS  # noqa: B018 - loads and validates the settings
    except ImproperlyConfigured as exc:
        sys.exit(f"configuration error: {exc}")


@signals.after_setup_logger.connect
@signals.after_setup_task_logger.connect
def redact_worker_logs(logger: logging.Logger, **kwargs: object) -> None:
    """A worker replaces the handlers of Django's ``LOGGING`` with its own: give them the same filter."""
    for handler in logger.handlers:
        handler.addFilter(RedactSecrets())


@app.task(name="superbiz.health", ignore_result=False)
def health() -> dict[str, object]:
    """Prove a worker is wired: it received this from the broker and can reach the database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        (one,) = cursor.fetchone()
    return {"ok": one == 1, "hostname": socket.gethostname(), "pid": os.getpid(), "database": connection.vendor}
