"""``manage.py export_feedback --wrong``: the runs rated DOWN as question stubs of an evaluation pack,
printed or added to a pack that ``evaluate`` then reads as it is; bad arguments change nothing."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from diagnosis.feedback import export as export_module
from diagnosis.models import FeedbackRating, RunFeedback
from tests.diagnosis.test_evaluate_command import PACKS, FullStream, evaluate_json, questions_of
from tests.tracing.factories import make_run, make_session

pytestmark = pytest.mark.django_db

WRONG = "payment-service 延迟升高，是数据库的问题吗？"


def export(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("export_feedback", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def feedback(owner, other_user):
    """The same question marked wrong by two users, another marked wrong once, one marked right."""
    mine, theirs = make_session(owner), make_session(other_user)
    first = make_run(mine, query=WRONG)
    RunFeedback.objects.create(run=first, user=owner, rating=FeedbackRating.DOWN, comment="it was the cache")
    again = make_run(theirs, query=WRONG)
    RunFeedback.objects.create(run=again, user=other_user, rating=FeedbackRating.DOWN)
    other = make_run(mine, query="why does checkout time out?")
    RunFeedback.objects.create(run=other, user=owner, rating=FeedbackRating.DOWN, comment="missed the deploy")
    right = make_run(mine, query="why is search slow?")
    RunFeedback.objects.create(run=right, user=owner, rating=FeedbackRating.UP)
    return {"first": first, "again": again, "other": other}


@pytest.fixture
def pack(tmp_path) -> Path:
    target = tmp_path / "payment-db-pool"
    shutil.copytree(PACKS / "payment-db-pool", target)
    return target


def test_it_prints_one_stub_per_question_marked_wrong(feedback):
    out, err = export("--wrong")

    questions = json.loads(out)["questions"]
    assert [question["text"] for question in questions] == [WRONG, "why does checkout time out?"]
    assert all(question["expect_keywords"] == [] for question in questions)
    first = questions[0]["feedback"]
    assert [entry["run_id"] for entry in first] == [str(feedback["first"].pk), str(feedback["again"].pk)]
    assert (first[0]["user"], first[0]["comment"]) == ("owner", "it was the cache")
    assert first[0]["answer_excerpt"] == "HikariPool exhausted at 10:05"
    assert "2 question stub(s)" in err


def test_a_full_stderr_costs_the_count_not_the_stubs_or_the_pack(feedback, pack):
    out = StringIO()

    call_command("export_feedback", "--wrong", stdout=out, stderr=FullStream())
    call_command("export_feedback", "--wrong", "--into", str(pack), stdout=StringIO(), stderr=FullStream())

    assert len(json.loads(out.getvalue())["questions"]) == 2
    assert [question["text"] for question in questions_of(pack)[-2:]] == [WRONG, "why does checkout time out?"]


def test_it_adds_the_stubs_to_a_pack_once(feedback, pack):
    before = questions_of(pack)

    export("--wrong", "--into", str(pack))
    _, err = export("--wrong", "--into", str(pack))

    after = questions_of(pack)
    assert after[: len(before)] == before
    assert [question["text"] for question in after[len(before) :]] == [WRONG, "why does checkout time out?"]
    assert "added 0 question stub(s); 2 already asked" in err
    assert not list(pack.glob(".scenario.json.*"))  # no temporary file left behind


def test_the_rewritten_manifest_keeps_its_permissions(feedback, pack):
    (pack / "scenario.json").chmod(0o664)

    export("--wrong", "--into", str(pack))

    assert len(questions_of(pack)) > 0
    assert (pack / "scenario.json").stat().st_mode & 0o777 == 0o664


def test_evaluate_reads_the_pack_and_scores_a_stub_as_not_named_until_it_has_keywords(owner, pack):
    run = make_run(make_session(owner), query="payment-service p99 latency tripled since 10:05, why?")
    RunFeedback.objects.create(run=run, user=owner, rating=FeedbackRating.DOWN)
    manifest = json.loads((pack / "scenario.json").read_text())
    manifest["questions"] = []
    (pack / "scenario.json").write_text(json.dumps(manifest))
    export("--wrong", "--into", str(pack))

    code, result = evaluate_json(str(pack))

    assert code == 1
    [row] = result["results"]
    assert row["question"] == run.query and row["status"] == "SUCCESS"
    assert row["cause_named"] is False and row["missing_keywords"] == []


def test_it_needs_wrong(feedback):
    with pytest.raises(CommandError) as error:
        export()

    assert error.value.returncode == 2
    assert "--wrong" in str(error.value)


def test_it_refuses_a_folder_that_is_not_a_pack(feedback, tmp_path):
    with pytest.raises(CommandError) as error:
        export("--wrong", "--into", str(tmp_path))

    assert error.value.returncode == 2
    assert "not a scenario pack" in str(error.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("into", "message"), [("", "not a scenario pack"), ("no-such-pack", "no such pack folder")])
def test_an_empty_or_unknown_pack_is_refused_not_read_as_no_pack(feedback, into, message):
    """``--into ""`` printed the stubs and exited 0, as if no pack had been given."""
    with pytest.raises(CommandError) as error:
        export("--wrong", "--into", into)

    assert error.value.returncode == 2
    assert message in str(error.value)


def test_it_refuses_an_invalid_pack_and_leaves_it_as_it_was(feedback, pack):
    (pack / "metrics.csv").write_text("ts,service,metric,value\nnot-a-time,payment-service,p99,1\n")
    manifest = (pack / "scenario.json").read_bytes()

    with pytest.raises(CommandError) as error:
        export("--wrong", "--into", str(pack))

    assert error.value.returncode == 2
    assert "metrics.csv:2" in str(error.value)
    assert (pack / "scenario.json").read_bytes() == manifest


def test_a_pack_it_cannot_write_is_a_usage_error_and_left_as_it_was(feedback, pack, monkeypatch):
    def read_only_folder(path, **kwargs):
        raise PermissionError(13, "Permission denied", str(path.parent))

    monkeypatch.setattr(export_module, "staging_file", read_only_folder)
    manifest = (pack / "scenario.json").read_bytes()

    with pytest.raises(CommandError) as error:
        export("--wrong", "--into", str(pack))

    assert error.value.returncode == 2
    assert str(error.value) == f"{pack}: cannot be written: Permission denied"
    assert (pack / "scenario.json").read_bytes() == manifest


def test_with_nothing_marked_wrong_it_prints_no_stubs_and_leaves_a_pack_alone(owner, pack):
    RunFeedback.objects.create(run=make_run(make_session(owner)), user=owner, rating=FeedbackRating.UP)
    manifest = (pack / "scenario.json").read_bytes()

    out, _ = export("--wrong")
    export("--wrong", "--into", str(pack))

    assert json.loads(out) == {"questions": []}
    assert (pack / "scenario.json").read_bytes() == manifest


def test_it_runs_as_a_command_line_without_a_traceback(manage_py, tmp_path):
    result = manage_py("export_feedback", "--into", str(tmp_path))

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--wrong" in result.stderr
