"""The Celery app: each diagnosis run is one task, claimed once and never lost silently.

``acks_late`` + ``reject_on_worker_lost`` hand a message back to the broker when a worker dies mid-run;
the task's own claim (a conditional update) keeps a redelivered run from executing twice, and the stale
run reaper ends whatever a dead worker left RUNNING.
"""

from __future__ import annotations

import os
import socket

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("superbiz")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="superbiz.health", ignore_result=False)
def health() -> dict[str, object]:
    """Prove a worker is wired: it received this from the broker and can reach the database."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        (one,) = cursor.fetchone()
    return {"ok": one == 1, "hostname": socket.gethostname(), "pid": os.getpid(), "database": connection.vendor}
