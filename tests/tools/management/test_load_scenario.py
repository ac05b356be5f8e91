"""``manage.py load_scenario NAME|PATH``: progress, a summary, and exit code 2 with file:line on a bad pack."""

from __future__ import annotations

import signal
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from tests.support.live import database_url
from tests.tools.conftest import TINY_PACK
from tools.models import LoadedScenario, LogRecord

pytestmark = pytest.mark.django_db


def load(*args: str) -> str:
    out = StringIO()
    call_command("load_scenario", *args, stdout=out)
    return out.getvalue()


def test_it_loads_a_pack_by_path_and_prints_each_stage(business_sqlite):
    output = load(str(TINY_PACK)).splitlines()

    assert output[0] == f"validated {TINY_PACK}: 9 log lines, 10 metric samples, 2 documents, 2 business tables"
    assert output[1:6] == [
        "tokenised 2 knowledge documents",
        "storing 9 log records and 10 metric points…",
        "stored 9 log records and 10 metric points",
        "indexed 2 knowledge documents",
        f"business database {business_sqlite}: deploys, orders",
    ]
    assert output[-1] == (
        "loaded scenario 'tiny-checkout-pool': 9 log records, 10 metric points, 2 knowledge documents, "
        "business tables deploys, orders"
    )
    assert LoadedScenario.objects.get().name == "tiny-checkout-pool"


def test_it_loads_a_shipped_pack_by_name(business_sqlite):
    output = load("payment-db-pool")

    assert "loaded scenario 'payment-db-pool'" in output
    assert LogRecord.objects.exists()


def test_it_notes_that_a_business_url_is_not_loaded_without_an_admin_url(business_sqlite, settings):
    settings.BUSINESS_DATABASE_URL = "mysql://superbiz_ro:superbiz_ro@127.0.0.1:3306/superbiz_business"

    output = load(str(TINY_PACK))

    assert "loads only with --mysql-admin-url" in output


def test_it_refuses_an_invalid_pack_with_exit_code_2_and_file_line(business_sqlite, tiny_pack):
    (tiny_pack / "logs.jsonl").write_text('{"ts": "2024-05-01T10:00:05Z"}\n')

    with pytest.raises(CommandError) as raised:
        load(str(tiny_pack))

    assert raised.value.returncode == 2
    assert str(raised.value) == f"{tiny_pack / 'logs.jsonl'}:1: missing service, level, message"
    assert not LoadedScenario.objects.exists()


def test_it_refuses_an_unknown_pack_with_exit_code_2(business_sqlite):
    with pytest.raises(CommandError) as raised:
        load("no-such-pack")

    assert raised.value.returncode == 2
    assert "no such pack folder" in str(raised.value)


def test_it_exits_2_from_the_command_line(manage_py, tiny_pack):
    (tiny_pack / "metrics.csv").write_text("ts,service,metric,value\n2024-05-01T10:00:00Z,a,b,fast\n")

    result = manage_py("load_scenario", str(tiny_pack), env={"DATABASE_URL": database_url()})

    assert result.returncode == 2
    assert result.stderr.strip() == f"CommandError: {tiny_pack / 'metrics.csv'}:2: value 'fast' is not a number"
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("notaurl", "only mysql:// URLs are supported"),
        ("postgres://u:p@127.0.0.1/db", "only mysql:// URLs are supported"),
        ("mysql://u:p@127.0.0.1:notaport/db", "cannot parse"),
        ("mysql://u:p@127.0.0.1:3306/", "names no database"),
    ],
)
def test_it_refuses_a_malformed_mysql_admin_url_with_exit_code_2(business_sqlite, url, message):
    with pytest.raises(CommandError) as raised:
        load(str(TINY_PACK), "--mysql-admin-url", url)

    assert raised.value.returncode == 2
    assert str(raised.value).startswith("--mysql-admin-url: ") and message in str(raised.value)
    assert "u:p@" not in str(raised.value)  # the password is never printed


@pytest.mark.parametrize(
    "command",
    [
        ["load_scenario", "payment-db-pool"],
        ["diagnose", "why is checkout slow?"],
        ["evaluate", "payment-db-pool"],
        ["export_feedback", "--wrong"],
        ["create_demo_user"],
        ["reap_stale_runs"],
    ],
    ids=lambda command: command[0],
)
def test_every_command_on_a_database_not_migrated_says_so(manage_py, tmp_path, command):
    result = manage_py(*command, env={"VAR_DIR": str(tmp_path / "var"), "DATABASE_URL": None})

    assert result.returncode == 1
    assert result.stderr.strip() == "CommandError: the database is not migrated: run `manage.py migrate` first"


@pytest.mark.parametrize(
    ("error", "returncode", "message"),
    [
        # Ctrl-C while the pack's evidence is being written.
        (KeyboardInterrupt(), 130, "interrupted: the loaded scenario is as it was"),
        # The database locked past its timeout, or a server restarting: a line, not a traceback.
        (
            OperationalError("database is locked"),
            1,
            "the database failed: database is locked; the loaded scenario is as it was",
        ),
    ],
    ids=["ctrl-c", "database"],
)
def test_a_load_cut_short_leaves_the_loaded_scenario_as_it_was(
    business_sqlite, monkeypatch, error, returncode, message
):
    load(str(TINY_PACK))
    before = (LoadedScenario.objects.get().name, LogRecord.objects.count(), business_sqlite.read_bytes())

    def cut_short(*args, **kwargs):
        raise error

    monkeypatch.setattr("tools.scenarios.loader._replace_evidence", cut_short)
    with pytest.raises(CommandError) as raised:
        load("payment-db-pool")

    assert (raised.value.returncode, str(raised.value)) == (returncode, message)
    assert (LoadedScenario.objects.get().name, LogRecord.objects.count(), business_sqlite.read_bytes()) == before
    assert [path.name for path in business_sqlite.parent.iterdir()] == [business_sqlite.name]


def test_a_load_stopped_by_sigterm_is_cut_short_as_ctrl_c_is(business_sqlite, monkeypatch):
    """A process manager's stop, or ``timeout``, killed the load where it was: its staging file stayed."""
    load(str(TINY_PACK))
    before = (LoadedScenario.objects.get().name, LogRecord.objects.count(), business_sqlite.read_bytes())

    def terminated(*args, **kwargs):
        # What the signal runs, called here: not sent, which without a handler would end the test process.
        handler = signal.getsignal(signal.SIGTERM)
        assert callable(handler), "SIGTERM has no handler of the load's"
        handler(signal.SIGTERM, None)

    monkeypatch.setattr("tools.scenarios.loader._replace_evidence", terminated)
    with pytest.raises(CommandError) as raised:
        load("payment-db-pool")

    assert (raised.value.returncode, str(raised.value)) == (130, "interrupted: the loaded scenario is as it was")
    assert (LoadedScenario.objects.get().name, LogRecord.objects.count(), business_sqlite.read_bytes()) == before
    assert [path.name for path in business_sqlite.parent.iterdir()] == [business_sqlite.name]
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # given back


@pytest.mark.parametrize(
    "command", [["load_scenario", "payment-db-pool"], ["diagnose", "why?"], ["reap_stale_runs"]], ids=lambda c: c[0]
)
def test_every_command_on_a_database_it_cannot_reach_says_so_without_a_traceback(manage_py, tmp_path, command):
    # Nothing listens on port 1 of the loopback: the connection is refused at once.
    result = manage_py(*command, env={"VAR_DIR": str(tmp_path / "var"), "DATABASE_URL": "mysql://root@127.0.0.1:1/x"})

    assert result.returncode == 1
    assert result.stderr.strip().startswith("CommandError: the database cannot be reached: ")
    assert "Traceback" not in result.stderr
