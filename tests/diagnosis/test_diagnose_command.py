"""``manage.py diagnose`` end to end with the scripted provider: the documented JSON and exit codes, and
no scripted lie (forged or altered citation, wrong tool or path) ever reaching ``final_answer``."""

from __future__ import annotations

import copy
import json
import uuid
from decimal import Decimal
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import OperationalError, connection

from diagnosis.models import DiagnosisRun, RunStatus
from diagnosis.nodes import planner
from tests.support.stored_events import stored_names
from tracing.events import TimelineEvent

pytestmark = pytest.mark.django_db

SCRIPTS = Path(__file__).parent / "scripts"
QUESTION = "payment-service p99 latency tripled since 10:05, why?"
LIE = "LIE-MARKER the root cause is DNS"


@pytest.fixture(autouse=True)
def demo_pack():
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())


def honest() -> dict:
    return json.loads((SCRIPTS / "honest.json").read_text())


def diagnose(tmp_path, script: dict, *args: str) -> dict:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    out = StringIO()
    call_command("diagnose", QUESTION, "--script", str(path), "--json", *args, stdout=out)
    return json.loads(out.getvalue())


def with_report(script: dict, mutate) -> dict:
    """The honest script whose executor report is changed by ``mutate`` and whose composer repeats the lie."""
    lying = copy.deepcopy(script)
    report = json.loads(lying["executor"][1])
    report["claims"][0]["statement"] = LIE
    mutate(report["claims"][0]["bindings"][0])
    lying["executor"][1] = json.dumps(report)
    lie_answer = json.dumps({"answer_markdown": LIE + " [c1]", "cited_claim_ids": ["c1"]})
    lying["composer"] = [lie_answer, lie_answer]
    return lying


def test_it_prints_the_documented_json_for_an_honest_run(tmp_path):
    result = diagnose(tmp_path, honest())

    assert set(result) == {
        "run_id",
        "session_id",
        "status",
        "intent",
        "degraded",
        "effective_verdict",
        "final_answer",
        "orchestration_trace",
        "released_claim_ids",
        "tool_invocations",
        "usage",
    }
    assert (result["status"], result["intent"], result["degraded"], result["effective_verdict"]) == (
        "SUCCESS",
        "DIAGNOSIS",
        False,
        "PASS",
    )
    assert result["final_answer"] == "The payment-service database connection pool is exhausted [c1]."
    assert result["released_claim_ids"] == ["c1"]
    assert [(i["tool_name"], i["status"]) for i in result["tool_invocations"]] == [("query_logs", "READY")]
    trace = result["orchestration_trace"]
    assert trace["final_node"] == "composer" and trace["termination_reason"] == "composer_completed"
    assert [t["from"] for t in trace["transitions"]] == [
        "planner",
        "executor",
        "gatekeeper",
        "verified_input",
        "verifier",
    ]
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.self_evaluation["gatekeeper"]["bindings_passed"] == 1
    assert run.self_evaluation["prompt_versions"]["planner"] == "planner-v4"
    assert run.self_evaluation["release"]["decisions"] == [
        {"attempt": 1, "decision": "released", "rule": "passed", "rules": []}
    ]
    assert run.step_count == 5 and run.tool_count == 1  # the semantic guard's review is a step of its own


def test_an_offline_run_spends_no_tokens_and_costs_nothing_at_any_price(settings):
    settings.LLM_PRICE_INPUT_PER_MTOK, settings.LLM_PRICE_OUTPUT_PER_MTOK = Decimal("2.50"), Decimal("10")
    out = StringIO()

    call_command("diagnose", QUESTION, "--provider", "offline", "--json", stdout=out)

    usage = json.loads(out.getvalue())["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] == usage["completion_tokens"] == 0
    assert usage["cost"] == "0.000000"
    assert len(usage["steps"]) >= 4 and {step["prompt_tokens"] for step in usage["steps"]} == {0}


def test_a_run_without_a_price_has_no_cost(tmp_path):
    usage = diagnose(tmp_path, honest())["usage"]

    assert usage["cost"] is None


@pytest.mark.parametrize(
    "mutate",
    [
        lambda b: b.update(source_invocation_id=str(uuid.uuid4())),
        lambda b: b.update(evidence_excerpt="HikariPool-2 - Connection is not available"),
        lambda b: b.update(tool_name="query_metrics"),
        lambda b: b.update(raw_path="$.records[99].message"),
        lambda b: b.update(raw_path="$.records[*].message"),
    ],
    ids=["forged-id", "altered-excerpt", "wrong-tool", "out-of-range-path", "wildcard-path"],
)
def test_it_never_releases_a_scripted_lie(tmp_path, mutate):
    result = diagnose(tmp_path, with_report(honest(), mutate))

    assert result["status"] == "SUCCESS" and result["degraded"] is True
    assert "LIE-MARKER" not in result["final_answer"]
    assert result["released_claim_ids"] == []
    assert result["orchestration_trace"]["termination_reason"] == "fallback_gatekeeper_reject"


def test_it_keeps_the_lie_out_when_one_of_two_claims_is_forged(tmp_path):
    script = honest()
    report = json.loads(script["executor"][1])
    forged = copy.deepcopy(report["claims"][0])
    forged.update(claim_id="c2", statement=LIE)
    forged["bindings"][0]["source_invocation_id"] = str(uuid.uuid4())
    report["claims"].append(forged)
    script["executor"][1] = json.dumps(report)
    lie = json.dumps({"answer_markdown": LIE + " [c1][c2]", "cited_claim_ids": ["c1", "c2"]})
    script["composer"] = [lie, lie]

    result = diagnose(tmp_path, script)

    assert result["effective_verdict"] == "LOW_CONFID"  # the gatekeeper ceiling caps the model's PASS
    assert result["degraded"] is True
    assert "LIE-MARKER" not in result["final_answer"]
    assert "HikariPool-1 connection timeouts" in result["final_answer"]  # the allowed fact of c1
    assert result["released_claim_ids"] == ["c1"]
    assert result["orchestration_trace"]["termination_reason"] == "fallback_composer_release_policy_blocked"


def test_it_exits_1_when_the_run_fails_and_the_log_and_the_trace_say_why(tmp_path, monkeypatch, caplog):
    def explode(*args, **kwargs):
        raise RuntimeError("a bug in the planner")

    monkeypatch.setattr(planner, "plan", explode)

    with pytest.raises(SystemExit) as exit_info:
        diagnose(tmp_path, honest())

    assert exit_info.value.code == 1
    run = DiagnosisRun.objects.get()
    assert run.status == "FAILED" and run.failure_reason == "graph_error"
    assert run.orchestration_trace["termination_reason"] == "planner_error"
    logged = [
        record for record in caplog.records if record.exc_info and "a bug in the planner" in str(record.exc_info[1])
    ]
    assert logged and logged[0].levelname == "ERROR"
    assert run.trace_events.get(name=TimelineEvent.FAILED).details == {"code": "graph_error", "detail": "RuntimeError"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--script", "/nonexistent/script.json"], "script"),
        (["--provider", "openai", "--script", "x.json"], "--script goes with --provider scripted"),
    ],
)
def test_it_exits_2_on_bad_arguments(args, message):
    with pytest.raises(CommandError) as error:
        call_command("diagnose", QUESTION, *args, stdout=StringIO())

    assert error.value.returncode == 2
    assert message in str(error.value)
    assert not DiagnosisRun.objects.exists()


def test_it_exits_2_on_a_malformed_script(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"planner": [')

    with pytest.raises(CommandError) as error:
        call_command("diagnose", QUESTION, "--script", str(path), stdout=StringIO())

    assert error.value.returncode == 2


def test_it_exits_2_on_a_question_that_is_not_text():
    """Bytes that were not UTF-8 on the command line reach Python as lone surrogates, which no table stores."""
    with pytest.raises(CommandError) as error:
        call_command("diagnose", "why \udcff slow?", stdout=StringIO())

    assert error.value.returncode == 2
    assert "valid Unicode text" in str(error.value)
    assert not DiagnosisRun.objects.exists()


def test_it_exits_2_on_an_empty_question():
    with pytest.raises(CommandError) as error:
        call_command(
            "diagnose", "   ", "--provider", "scripted", "--script", str(SCRIPTS / "honest.json"), stdout=StringIO()
        )

    assert error.value.returncode == 2


def test_it_releases_nothing_from_a_first_round_when_the_evidence_retry_ends_in_the_fallback(tmp_path):
    """Nodes that do not run in the second round keep their first-round keys; none of them may leak."""
    script = honest()
    first_report = json.loads(script["executor"][1])
    first_report["claims"][0]["statement"] = "ROUND1 statement"
    script["executor"][1] = json.dumps(first_report)
    script["verifier"] = [
        json.dumps(
            {
                "verdict": "LOW_CONFID",
                "facts_checked": [
                    {"claim_id": "c1", "fact": "ROUND1 FACT pool errors", "verification": "indirect_support"}
                ],
                "missing_info": [],
                "evidence_gaps": ["no metric evidence"],
                "recommended_actions": [],
            }
        )
    ]
    gap_plan = json.loads(script["planner"][0])
    gap_plan["mode"] = "EVIDENCE_GAP_ONLY"
    script["planner"].append(json.dumps(gap_plan))
    forged = copy.deepcopy(first_report)
    forged["claims"][0]["bindings"][0]["source_invocation_id"] = str(uuid.uuid4())
    script["executor"].append(json.dumps(forged))

    result = diagnose(tmp_path, script)

    assert result["degraded"] is True and result["effective_verdict"] is None
    assert result["released_claim_ids"] == []
    assert "ROUND1" not in result["final_answer"]
    assert result["orchestration_trace"]["evidence_retry_count"] == 1
    assert result["orchestration_trace"]["termination_reason"] == "fallback_gatekeeper_reject"
    run = DiagnosisRun.objects.get(pk=result["run_id"])
    assert run.effective_verdict == "" and run.self_evaluation["effective_verdict"] is None


@pytest.mark.django_db(transaction=True)
def test_a_diagnosis_interrupted_as_it_began_a_transaction_is_still_ended(monkeypatch):
    """Ctrl-C inside ``atomic()``'s entry, after BEGIN: nothing would ever end that transaction."""
    from diagnosis.management.commands import diagnose

    def interrupted_mid_begin(*args, **kwargs):
        connection.set_autocommit(False)  # where atomic() starts its transaction
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose.execute_run, "apply", interrupted_mid_begin)

    with pytest.raises(CommandError) as error:
        call_command("diagnose", QUESTION, stdout=StringIO())

    assert error.value.returncode == 130
    assert connection.get_autocommit()
    run = DiagnosisRun.objects.get()
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "interrupted")


def test_an_interrupted_diagnosis_is_ended_not_left_running(monkeypatch):
    """Ctrl-C: no worker holds the run and its heartbeat is fresh, so nothing else would end it for minutes."""
    from diagnosis.management.commands import diagnose

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(diagnose.execute_run, "apply", interrupted)

    with pytest.raises(CommandError) as error:
        call_command("diagnose", QUESTION, stdout=StringIO())

    run = DiagnosisRun.objects.get()
    assert error.value.returncode == 130
    assert str(error.value) == f"interrupted: run {run.pk} was ended as interrupted"
    assert (run.status, run.failure_reason) == (RunStatus.FAILED, "interrupted")
    assert stored_names(run.pk)[-2:] == ["failure", "done"]


def test_a_database_that_fails_is_a_message_not_a_traceback(monkeypatch):
    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr("diagnosis.management.commands.diagnose.run_create", locked)

    with pytest.raises(CommandError) as raised:
        call_command("diagnose", "why is payment-service slow?", stdout=StringIO())

    assert raised.value.returncode == 1
    assert str(raised.value) == (
        "the database failed: database is locked; a run it had created is left for the reaper to end"
    )


def test_the_script_docs_providers_md_prints_runs_as_it_says(tmp_path):
    """Its planner had no step (the contract asks for one to twelve): the run never left the planner."""
    call_command("load_scenario", "payment-db-pool", stdout=StringIO())
    text = (Path(__file__).resolve().parents[2] / "docs" / "providers.md").read_text()
    script = tmp_path / "documented.json"
    script.write_text(text.split("## `scripted` — a JSON script")[1].split("```json\n", 1)[1].split("```", 1)[0])
    out = StringIO()

    call_command("diagnose", "why is payment-service slow?", "--script", str(script), "--json", stdout=out)

    run = json.loads(out.getvalue())
    transitions = [(step["from"], step["to"]) for step in run["orchestration_trace"]["transitions"]]
    assert transitions[:2] == [("planner", "executor"), ("executor", "gatekeeper")]
    assert run["degraded"] and run["orchestration_trace"]["final_node"] == "fallback"
