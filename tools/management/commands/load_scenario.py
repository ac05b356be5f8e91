"""``manage.py load_scenario NAME|PATH``: make a scenario pack the data the tools read."""

from __future__ import annotations

import MySQLdb
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from config import env
from config.commands import database_failures, require_migrated, terminated_as_interrupted
from tools.scenarios.loader import load_scenario
from tools.scenarios.pack import PackError, resolve_pack


class Command(BaseCommand):
    help = (
        "Validate a scenario pack (a folder under tools/scenarios/packs/ or a path) and replace the loaded "
        "logs, metrics, business tables and scenario knowledge documents with it. Exit code 2: invalid pack."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("pack", help="A shipped pack's name or the path of a pack folder.")
        parser.add_argument(
            "--mysql-admin-url",
            default=settings.BUSINESS_ADMIN_DATABASE_URL,
            metavar="URL",
            help="Also load business.sql into this MySQL database (mysql://admin:pw@host/db), the one that "
            "BUSINESS_DATABASE_URL reads through a read-only user. Default: BUSINESS_ADMIN_DATABASE_URL.",
        )

    def handle(self, *args, pack: str, mysql_admin_url: str, **options) -> None:
        if mysql_admin_url:
            try:
                env.database_url("--mysql-admin-url", mysql_admin_url, schemes=("mysql",))
            except env.ConfigError as error:
                raise CommandError(str(error), returncode=2) from None
        require_migrated()
        # The load is one transaction, its staging file removed on the way out; MySQL's tables are swapped in
        # before it (``mysql_business``).
        note = " (the MySQL business tables may already be the new pack's: load again)" if mysql_admin_url else ""
        try:
            with terminated_as_interrupted(), database_failures(f"the loaded scenario is as it was{note}"):
                summary = load_scenario(resolve_pack(pack), progress=self.stdout.write, mysql_admin_url=mysql_admin_url)
        except PackError as error:
            raise CommandError(str(error), returncode=2) from None
        except MySQLdb.Error as error:
            raise CommandError(f"cannot load the business tables into MySQL: {error}") from None
        except KeyboardInterrupt:
            raise CommandError(f"interrupted: the loaded scenario is as it was{note}", returncode=130) from None
        if settings.BUSINESS_DATABASE_URL and not mysql_admin_url:
            self.stdout.write(
                "note: BUSINESS_DATABASE_URL is set; query_mysql reads that database, which this command "
                "loads only with --mysql-admin-url or BUSINESS_ADMIN_DATABASE_URL"
            )
        self.stdout.write(
            f"loaded scenario {summary.name!r}: {summary.log_records} log records, {summary.metric_points} "
            f"metric points, {summary.documents} knowledge documents, business tables "
            f"{', '.join(summary.business_tables)}"
        )
