"""``manage.py reap_stale_runs``: fail runs left RUNNING by a dead worker (also scheduled by Celery beat)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from diagnosis.reaper import reap_stale_runs


class Command(BaseCommand):
    help = "Mark runs left RUNNING by a dead worker FAILED, saving their partial traces."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--stale-after",
            type=int,
            default=None,
            metavar="SECONDS",
            help="Override RUN_STALE_AFTER_SECONDS for this call.",
        )

    def handle(self, *args, stale_after: int | None, **options) -> None:
        if stale_after is not None and stale_after < 1:
            self.stderr.write("--stale-after must be at least 1 second")
            raise SystemExit(2)
        reaped = reap_stale_runs(stale_after_seconds=stale_after)
        for run in reaped:
            self.stdout.write(f"failed stale run {run.pk} (started {run.started_at.isoformat()})")
        self.stdout.write(f"{len(reaped)} stale run(s) reaped")
