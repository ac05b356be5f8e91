"""``manage.py reap_stale_runs``: fail runs left RUNNING by a dead worker or queued past the queue timeout,
and purge the invocation store's expired entries (also scheduled by Celery beat).

Exit codes: 0 done; 2 bad arguments; 3 stale runs were failed while Redis was unreachable (each is FAILED
with its ``failure`` and ``done`` events stored, as always; only the wake-up of open streams was lost: a
web process that lost Redis too has every open stream read storage once it subscribes again
(``sse.listener``), and any page reads them when it reconnects or reloads); 1 the database failed (runs
not reached stay RUNNING for the next pass). No traceback in any of these cases.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import DatabaseError

from config.commands import require_migrated
from diagnosis.dispatch import redis_reachable
from diagnosis.reaper import scheduled_pass

logger = logging.getLogger(__name__)

EXIT_DATABASE_ERROR = 1
EXIT_USAGE = 2
EXIT_REDIS_UNREACHABLE = 3
#: A hundred years: more is no age a run can have, and past the dates a cutoff can be computed for.
MAX_SECONDS = 100 * 365 * 24 * 3600


def _redis_address() -> str:
    """host:port of REDIS_URL, never its password."""
    url = urlsplit(settings.REDIS_URL or "")
    return f"{url.hostname}:{url.port or 6379}"


class Command(BaseCommand):
    help = (
        "Mark runs left RUNNING by a dead worker FAILED, saving their partial traces, runs no worker "
        "started within the queue timeout, and runs asked to stop that no worker stopped (cancelled); purge "
        "expired "
        "invocation-store entries. Exit 0 when done, 2 on bad "
        "arguments, 3 when runs were failed while Redis was unreachable (events stored, not announced), 1 when "
        "the database failed."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--stale-after",
            type=int,
            default=None,
            metavar="SECONDS",
            help="Override RUN_STALE_AFTER_SECONDS for this call (more than RUN_TIME_LIMIT_SECONDS).",
        )
        parser.add_argument(
            "--queue-timeout",
            type=int,
            default=None,
            metavar="SECONDS",
            help="Override RUN_QUEUE_TIMEOUT_SECONDS for this call.",
        )

    def handle(self, *args, stale_after: int | None, queue_timeout: int | None, **options) -> None:
        # A claimed run writes no heartbeat while it waits on one model call, for up to the hard time limit:
        # a shorter stale age would fail runs that are working (the setting has the same floor).
        working = settings.CELERY_TASK_TIME_LIMIT + 1
        for option, value, least in (("--stale-after", stale_after, working), ("--queue-timeout", queue_timeout, 1)):
            if value is not None and not least <= value <= MAX_SECONDS:
                self.stderr.write(f"{option} must be from {least} to {MAX_SECONDS} seconds")
                raise SystemExit(EXIT_USAGE)
        require_migrated()
        try:
            reaped = scheduled_pass(stale_after_seconds=stale_after, queue_timeout_seconds=queue_timeout)
        except DatabaseError as error:
            logger.warning("reap_stale_runs: the database failed: %s", error)
            self.stderr.write(f"error: the database failed, stale runs not reaped: {error}")
            raise SystemExit(EXIT_DATABASE_ERROR) from None
        for run in reaped:
            self.stdout.write(f"failed stale run {run.pk} (started {run.started_at.isoformat()}, {run.failure_reason})")
        self.stdout.write(f"{len(reaped)} stale run(s) reaped")
        if reaped and not redis_reachable():
            logger.warning("reap_stale_runs: %d run(s) failed while Redis was unreachable", len(reaped))
            self.stderr.write(
                f"warning: Redis at {_redis_address()} is unreachable: the {len(reaped)} run(s) above are FAILED "
                "with their failure and done events stored, but open streams were not woken; they read the "
                "events from storage when their web process subscribes to Redis again, or when they reconnect"
            )
            raise SystemExit(EXIT_REDIS_UNREACHABLE)
