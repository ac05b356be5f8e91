"""``load_scenario``: replace the embedded evidence with a validated pack, all or nothing.

The pack is fully validated before anything is written. Then, in one database transaction, the log and
metric tables, the ``loaded_scenario`` row and the pack's knowledge documents are replaced. The business
SQLite file is built beside its final path first and renamed over it only once that transaction has
committed: a transaction that fails — in its body or in the commit itself — leaves the old file beside the
old rows, and the rename cannot half-happen. Between the commit and the rename (an instant) a reader can
see the new rows with the old business tables; renaming before the commit would instead leave the new
tables beside the old rows for good whenever the commit failed.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import transaction

from config.files import staging_file
from tools.backends import http_endpoint
from tools.errors import ToolError
from tools.knowledge.ingest import prepare_documents, replace_scenario_documents
from tools.models import LoadedScenario, LogRecord, MetricPoint
from tools.scenarios.loki_push import push_logs
from tools.scenarios.mysql_business import load_business_into_mysql
from tools.scenarios.pack import PackError, ScenarioPack, execute_statements, read_pack
from tools.scenarios.prometheus_backfill import BackfillError, backfill

BATCH_SIZE = 1000

Progress = Callable[[str], None]


@dataclass(frozen=True)
class LoadSummary:
    name: str
    log_records: int
    metric_points: int
    documents: int
    business_tables: list[str]


def load_scenario(path: Path | str, *, progress: Progress | None = None, mysql_admin_url: str = "") -> LoadSummary:
    """Validate the pack at ``path`` and make it the loaded scenario; ``PackError`` leaves all as it was.

    With ``mysql_admin_url`` the business tables are loaded into that MySQL database first (see
    ``mysql_business``), and with ``METRICS_BACKEND=prometheus`` and ``PROMETHEUS_BACKFILL_DIR`` the metrics
    are backfilled into Prometheus (see ``prometheus_backfill``), and with ``LOGS_BACKEND=loki`` the logs
    are pushed to Loki (see ``loki_push``), before anything embedded is touched. Inside a caller's transaction the business
    file is swapped when this function's own block ends, not when the caller's transaction commits.
    """
    report = progress or (lambda message: None)
    pack = read_pack(Path(path))
    report(
        f"validated {pack.root}: {len(pack.logs)} log lines, {len(pack.metrics)} metric samples, "
        f"{len(pack.documents)} documents, {len(pack.business_schema)} business tables"
    )
    # Tokenised before anything is written, and outside the load's transaction, which every writer waits for.
    # ``read_pack`` refused a document the chunker finds no text in, so none is refused here.
    documents = prepare_documents(pack.documents)
    report(f"tokenised {len(documents)} knowledge documents")
    if mysql_admin_url:
        load_business_into_mysql(pack, mysql_admin_url)
        report(f"loaded the business tables into MySQL at {mysql_admin_url.rpartition('@')[2]}")
    _backfill_prometheus(pack, report)
    _push_to_loki(pack, report)
    target = Path(settings.BUSINESS_SQLITE_PATH)
    staging = _staging_file(target)
    try:
        build_business_sqlite(pack, staging)
        # Announced before it starts: a large pack takes tens of seconds here.
        report(f"storing {len(pack.logs)} log records and {len(pack.metrics)} metric points…")
        with transaction.atomic():
            _replace_evidence(pack)
            report(f"stored {len(pack.logs)} log records and {len(pack.metrics)} metric points")
            replace_scenario_documents(pack.name, documents)
            report(f"indexed {len(documents)} knowledge documents")
        os.replace(staging, target)
        report(f"business database {target}: {', '.join(pack.business_tables)}")
    finally:
        # After the rename there is nothing left to remove; after a failure, the half-built file goes.
        staging.unlink(missing_ok=True)
    return LoadSummary(pack.name, len(pack.logs), len(pack.metrics), len(documents), pack.business_tables)


def _backfill_prometheus(pack: ScenarioPack, report: Progress) -> None:
    """With Prometheus as the metrics backend and a backfill folder, write the pack's metrics there as blocks.

    Done before anything embedded is touched, so a refused export leaves the old scenario in place; blocks
    already written stay in Prometheus (it has no transaction), beside those of earlier loads.
    """
    if settings.METRICS_BACKEND != "prometheus" or not settings.PROMETHEUS_BACKFILL_DIR:
        return
    folder = Path(settings.PROMETHEUS_BACKFILL_DIR)
    try:
        backfill(pack.metrics, folder, service_label=settings.PROMETHEUS_SERVICE_LABEL)
    except BackfillError as error:
        raise PackError(pack.root / "metrics.csv", None, str(error)) from None
    report(f"backfilled {len(pack.metrics)} metric samples into Prometheus blocks in {folder}")


def _push_to_loki(pack: ScenarioPack, report: Progress) -> None:
    """With Loki as the logs backend, push the pack's lines to it, before anything embedded is touched.

    Lines already pushed stay in Loki when a later batch is refused (Loki has no transaction).
    """
    if settings.LOGS_BACKEND != "loki":
        return
    endpoint = http_endpoint("LOKI", "Loki")
    try:
        pushed = push_logs(pack.logs, endpoint, service_label=settings.LOKI_SERVICE_LABEL)
    except ToolError as error:
        raise PackError(pack.root / "logs.jsonl", None, f"pushing to Loki failed: {error.message}") from None
    report(f"pushed {pushed} log lines to {endpoint.name}")


def _staging_file(target: Path) -> Path:
    """A new empty file beside the business database ``target`` (same file system, so the rename is atomic),
    with its permissions."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return staging_file(target, prefix=".business-", suffix=".sqlite3")


def build_business_sqlite(pack: ScenarioPack, path: Path) -> None:
    """Run the pack's ``business.sql`` into the SQLite file at ``path``."""
    with closing(sqlite3.connect(path)) as connection:
        # A scratch file until renamed: durability is pointless here and would cost an fsync per INSERT.
        connection.execute("PRAGMA journal_mode = OFF")
        connection.execute("PRAGMA synchronous = OFF")
        execute_statements(connection, pack.root / "business.sql", pack.statements)


def _replace_evidence(pack: ScenarioPack) -> None:
    LogRecord.objects.all().delete()
    MetricPoint.objects.all().delete()
    LoadedScenario.objects.all().delete()
    LogRecord.objects.bulk_create(
        (
            LogRecord(ts=line.ts, service=line.service, level=line.level, message=line.message, extra=line.extra)
            for line in pack.logs
        ),
        batch_size=BATCH_SIZE,
    )
    MetricPoint.objects.bulk_create(
        (
            MetricPoint(ts=sample.ts, service=sample.service, metric=sample.metric, value=sample.value)
            for sample in pack.metrics
        ),
        batch_size=BATCH_SIZE,
    )
    LoadedScenario.objects.create(
        name=pack.name,
        description=pack.manifest["description"],
        # scenario.json as written, plus the columns of each business table for query_mysql's description.
        manifest={**pack.manifest, "business_schema": pack.business_schema},
        business_tables=pack.business_tables,
    )
