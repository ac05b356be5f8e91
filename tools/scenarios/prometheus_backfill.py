"""A pack's ``metrics.csv`` backfilled into a Prometheus TSDB with ``promtool``, for ``METRICS_BACKEND=prometheus``.

Packs hold past times, which Prometheus' remote-write or scrape paths refuse; ``promtool tsdb
create-blocks-from openmetrics FILE DIR`` writes finished blocks instead. ``DIR`` is
``PROMETHEUS_BACKFILL_DIR``: Prometheus' own ``--storage.tsdb.path`` on this host (it loads new blocks
within a minute), or a staging folder you copy from. Its retention must reach back to the pack
(``--storage.tsdb.retention.time=100y``), or the blocks are dropped as soon as they are loaded.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tools.backends.promql import METRIC_NAME
from tools.scenarios.pack import MetricSample

PROMTOOL = "promtool"
PROMTOOL_TIMEOUT_SECONDS = 300


class BackfillError(Exception):
    """promtool refused the export or could not run; the message says why."""


def openmetrics_text(samples: Iterable[MetricSample], service_label: str) -> str:
    """The samples as OpenMetrics gauges, each family's lines together and each series in time order."""
    lines: list[str] = []
    family = None
    for sample in sorted(samples, key=lambda sample: (sample.metric, sample.service, sample.ts)):
        if not METRIC_NAME.fullmatch(sample.metric):
            raise BackfillError(f"metric {sample.metric!r} is not a Prometheus metric name")
        if sample.metric != family:
            family = sample.metric
            lines.append(f"# TYPE {family} gauge")
        service = sample.service.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        lines.append(f'{sample.metric}{{{service_label}="{service}"}} {sample.value!r} {sample.ts.timestamp():.3f}')
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def backfill(samples: Iterable[MetricSample], directory: Path, *, service_label: str) -> None:
    """Write the samples as TSDB blocks into ``directory``."""
    text = openmetrics_text(samples, service_label)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BackfillError(f"cannot create the block folder {directory}: {error}") from None
    with tempfile.NamedTemporaryFile("w", suffix=".om", encoding="utf-8") as export:
        export.write(text)
        export.flush()
        try:
            finished = subprocess.run(
                [PROMTOOL, "tsdb", "create-blocks-from", "openmetrics", export.name, str(directory)],
                capture_output=True,
                text=True,
                timeout=PROMTOOL_TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise BackfillError(f"{PROMTOOL} could not run: {error}") from None
    if finished.returncode != 0:
        raise BackfillError(f"{PROMTOOL} failed: {(finished.stderr or finished.stdout).strip()[-500:]}")
