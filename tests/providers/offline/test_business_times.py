"""Change rows stamped as text in any ISO form reach the analysis, on SQLite and on MariaDB.

A change table may store its times as ``2025-03-04T13:41:10Z``, with an offset (``2025-03-04T15:41:10+02:00``)
or as ``2025-03-04 13:41:10``, even mixed in one column. Compared as text, ``T`` sorts after a space and an
offset shifts the clock, so a cutoff written as text dropped every ISO change of the incident day. The
planner's SQL runs for real through ``query_mysql`` (the guard, the rendering, the read-only connection);
the executor must then cite the change made just before the onset, whatever its format, and never one
made after it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.providers.offline.conftest import BLOB_STORE_PACK
from tests.providers.offline.loop import plan_for, run_executor
from tests.services import TEST_BUSINESS_DATABASE, require
from tools.jsonpath import resolve
from tools.scenarios.loader import load_scenario
from tools.store import load_verified_payload

QUESTION = "Storefront thumbnails are failing with 502 since 14:20. What is the root cause?"
CAUSE = "Disabled the staging cleanup cron on blob-store volume /data during the migration (OPS-77)"
# The same moments (UTC) in the three stored forms.
FORMATS = {
    "iso-z": lambda day, clock: f"{day}T{clock}Z",
    "offset": lambda day, clock: _plus_two_hours(day, clock),
    "space": lambda day, clock: f"{day} {clock}",
}
MARIADB = TEST_BUSINESS_DATABASE
ADMIN_URL = f"mysql://root@127.0.0.1:3306/{MARIADB}"
READ_ONLY_URL = f"mysql://superbiz_ro:superbiz_ro@127.0.0.1:3306/{MARIADB}"


def _plus_two_hours(day: str, clock: str) -> str:
    hour, rest = clock.split(":", 1)
    return f"{day}T{int(hour) + 2:02d}:{rest}+02:00"


def _changes(cause_format: str) -> str:
    """The cause in ``cause_format``, other changes in the other forms; two blob-store changes after the onset."""
    others = [name for name in FORMATS if name != cause_format]
    rows = [
        (1, FORMATS[others[0]]("2025-02-11", "09:00:00"), "blob-store", "tkaur", "Volume /data resized to 120 GiB"),
        (2, FORMATS[others[1]]("2025-03-03", "16:45:00"), "storefront", "deploy-bot", "storefront 8.4.0: gallery"),
        (3, FORMATS[cause_format]("2025-03-04", "13:41:10"), "blob-store", "rmoss", CAUSE),
        (4, FORMATS[others[0]]("2025-03-04", "13:55:00"), "image-service", "deploy-bot", "image-service 2.9.1: WebP"),
        # After the onset (14:20), in the forms that sort before and after the cause as text.
        (5, FORMATS["space"]("2025-03-04", "14:40:00"), "blob-store", "oncall", "blob-store volume /data cleanup"),
        (6, FORMATS["offset"]("2025-03-04", "14:50:00"), "blob-store", "oncall", "blob-store volume /data grown"),
        (7, FORMATS["iso-z"]("2025-03-05", "09:00:00"), "blob-store", "oncall", "blob-store volume /data migrated"),
    ]
    values = ",\n  ".join("(" + ", ".join(repr(value) for value in row) + ")" for row in rows)
    return (
        "CREATE TABLE ops_changes (\n  id INTEGER PRIMARY KEY,\n  changed_at TEXT NOT NULL,\n"
        "  component VARCHAR(64) NOT NULL,\n  author VARCHAR(64) NOT NULL,\n  description VARCHAR(255) NOT NULL\n);\n\n"
        f"INSERT INTO ops_changes (id, changed_at, component, author, description) VALUES\n  {values};\n"
    )


def _pack(tmp_path: Path, cause_format: str) -> Path:
    pack = tmp_path / "mixed-times"
    shutil.copytree(BLOB_STORE_PACK, pack)
    business = (pack / "business.sql").read_text()
    uploads = business[business.index("CREATE TABLE uploads") :]
    (pack / "business.sql").write_text(_changes(cause_format) + "\n" + uploads)
    return pack


def _cited_change_rows(models, harness, environment: dict[str, Any]) -> tuple[list[dict], list[list]]:
    """The rows query_mysql returned for ops_changes, and the ops_changes rows the executor cited."""
    plan = plan_for(models, QUESTION, environment)
    assert any("ops_changes" in step["args"].get("sql", "") for step in plan["steps"]), plan["steps"]
    output = run_executor(models, harness, question=QUESTION, plan=plan, environment=environment).output
    returned: list[dict] = []
    cited: list[list] = []
    for invocation_id in {
        binding["source_invocation_id"]
        for claim in output["claims"]
        for binding in claim["bindings"]
        if binding["tool_name"] == "query_mysql"
    }:
        payload = load_verified_payload(harness.run_id, invocation_id).payload
        returned.append(payload)
        for claim in output["claims"]:
            for binding in claim["bindings"]:
                if binding["source_invocation_id"] == invocation_id and binding["raw_path"].startswith("$.rows["):
                    row_path = binding["raw_path"].split("]")[0] + "]"
                    cited.append(resolve(payload, row_path))
    return returned, cited


def _assert_the_cause_is_cited(models, new_harness, environment: dict[str, Any]) -> None:
    _, cited = _cited_change_rows(models, new_harness(QUESTION), environment)
    descriptions = {str(value) for row in cited for value in row}
    assert CAUSE in descriptions, cited
    assert not {"oncall"} & descriptions, f"a change made after the onset was cited: {cited}"


@pytest.mark.parametrize("cause_format", list(FORMATS))
def test_the_change_before_the_onset_is_found_in_any_format_on_sqlite(
    cause_format, models, load_pack, new_harness, tmp_path
):
    environment = load_pack(_pack(tmp_path, cause_format))
    _assert_the_cause_is_cited(models, new_harness, environment)


@pytest.mark.service
@pytest.mark.parametrize("cause_format", list(FORMATS))
def test_the_change_before_the_onset_is_found_in_any_format_on_mariadb(
    cause_format, models, load_pack, new_harness, tmp_path, settings
):
    require("mariadb")
    pack = _pack(tmp_path, cause_format)
    load_scenario(pack, mysql_admin_url=ADMIN_URL)
    settings.BUSINESS_DATABASE_URL = READ_ONLY_URL
    environment = load_pack(pack)
    _assert_the_cause_is_cited(models, new_harness, environment)
