"""``manage.py evaluate``: the eval harness over the shipped packs with the offline provider, a miss, a folder
of packs, bad arguments and the documented JSON."""

from __future__ import annotations

import codecs
import errno
import json
import shutil
import sys
from io import BytesIO, StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError, OutputWrapper

from diagnosis.management.commands.evaluate import lead
from diagnosis.models import DiagnosisRun
from tools.models import LoadedScenario

pytestmark = pytest.mark.django_db

PACKS = Path(__file__).resolve().parents[2] / "tools" / "scenarios" / "packs"
SHIPPED = sorted(path.name for path in PACKS.iterdir() if (path / "scenario.json").is_file())
NEVER_SAID = "zeppelin"


def evaluate(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``evaluate`` with the offline provider."""
    out, err = StringIO(), StringIO()
    try:
        call_command("evaluate", *args, "--provider", "offline", stdout=out, stderr=err)
    except SystemExit as exit_info:
        return int(exit_info.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def evaluate_json(*args: str) -> tuple[int, dict]:
    code, out, _ = evaluate(*args, "--json")
    return code, json.loads(out)


def questions_of(pack: Path) -> list[dict]:
    return json.loads((pack / "scenario.json").read_text())["questions"]


def copy_with_missing_keyword(source: Path, target: Path, keyword: str = NEVER_SAID) -> Path:
    """A copy of ``source`` whose first question also expects ``keyword`` (by default, a word no answer contains)."""
    shutil.copytree(source, target)
    manifest = json.loads((target / "scenario.json").read_text())
    manifest["questions"][0]["expect_keywords"].append(keyword)
    (target / "scenario.json").write_text(json.dumps(manifest, ensure_ascii=False))
    return target


def test_every_shipped_pack_names_its_causes_with_the_offline_provider():
    code, result = evaluate_json(*SHIPPED)

    assert code == 0
    expected = [(name, question["text"]) for name in SHIPPED for question in questions_of(PACKS / name)]
    assert [(row["pack"], row["question"]) for row in result["results"]] == expected
    assert all(row["cause_named"] and not row["missing_keywords"] for row in result["results"])
    assert all(row["status"] == "SUCCESS" and not row["degraded"] for row in result["results"])
    assert all(row["released_claim_ids"] for row in result["results"])
    assert result["summary"] == {"questions": len(expected), "cause_named": len(expected), "degraded": 0, "failed": 0}


def test_the_json_has_the_documented_shape():
    code, result = evaluate_json("payment-db-pool")

    assert code == 0
    assert set(result) == {"results", "summary"}
    assert set(result["summary"]) == {"questions", "cause_named", "degraded", "failed"}
    row = result["results"][0]
    assert set(row) == {
        "pack",
        "question",
        "cause_named",
        "missing_keywords",
        "keywords_further_down",
        "degraded",
        "status",
        "released_claim_ids",
        "ms",
        "run_id",
    }
    assert isinstance(row["ms"], int) and row["ms"] >= 0
    assert DiagnosisRun.objects.get(pk=row["run_id"]).query == row["question"]


def test_a_keyword_missing_from_the_answer_is_a_miss_and_exit_1(tmp_path):
    pack = copy_with_missing_keyword(PACKS / "payment-db-pool", tmp_path / "payment-db-pool")

    code, result = evaluate_json(str(pack))

    assert code == 1
    first, *others = result["results"]
    assert (first["cause_named"], first["missing_keywords"], first["status"]) == (False, [NEVER_SAID], "SUCCESS")
    assert all(row["cause_named"] for row in others)
    assert result["summary"]["cause_named"] == len(others)

    code, table, _ = evaluate(str(pack))

    assert code == 1
    assert f"NO (missing: {NEVER_SAID})" in table
    assert f"{len(others)}/{len(others) + 1} causes named" in table


def test_a_keyword_only_in_the_evidence_further_down_is_a_miss(tmp_path):
    """The payment pack's answer quotes the runbook's `POOL_TIMEOUT` in its evidence list, not in the section
    that names the cause: an answer blaming a distractor would quote the same evidence."""
    pack = copy_with_missing_keyword(PACKS / "payment-db-pool", tmp_path / "payment-db-pool", "pool_timeout")

    code, result = evaluate_json(str(pack))

    first = result["results"][0]
    answer = DiagnosisRun.objects.get(pk=first["run_id"]).final_answer
    assert "POOL_TIMEOUT" in answer.split("## Evidence")[1] and "POOL_TIMEOUT" not in lead(answer)
    assert code == 1
    assert (first["cause_named"], first["missing_keywords"], first["keywords_further_down"]) == (
        False,
        ["pool_timeout"],
        ["pool_timeout"],
    )

    _, table, _ = evaluate(str(pack))

    assert "NO (not in the lead, only further down: pool_timeout)" in table


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (
            "## Cause\nThe pool [c1].\n\nMore [c2].\n\n## Evidence\n- [c1] pool",
            "## Cause\nThe pool [c1].\n\nMore [c2].",
        ),
        ("The pool [c1].\n\n- 10:05 errors [c2]\n\nEvidence: pool", "The pool [c1]."),
        ("## Root cause\n\nThe pool [c1].\n\n- 10:05 errors [c2]", "The pool [c1]."),
        ("Intro.\n## Cause\nThe pool.\n### Evidence\nx", "Intro.\n## Cause\nThe pool."),
        ("#hashtag is not a heading\n## Cause\nx", "#hashtag is not a heading"),
        ("", ""),
        # A title heading alone is no section: the cause is in the next one.
        (
            "# Incident analysis\n## Root cause\nThe pool [c1].\n## Evidence\n- x",
            "# Incident analysis\n## Root cause\nThe pool [c1].",
        ),
        ("#\n## Root cause\nThe pool [c1].\n## Evidence\n- x", "#\n## Root cause\nThe pool [c1]."),
        # Setext headings, and Windows line endings.
        ("Root cause\n==========\nThe pool [c1].\n\nEvidence\n--------\n- x", "Root cause\n==========\nThe pool [c1]."),
        ("The pool [c1].\r\n\r\nEvidence: x [c2].", "The pool [c1]."),
        # An answer that is one list: its first item; a label with its list right under it: both.
        ("- The pool [c1].\n- Evidence: x [c2].", "- The pool [c1]."),
        ("**Root cause:**\n- The pool [c1].\n- Evidence: x [c2].", "**Root cause:**\n- The pool [c1]."),
        # A rule, an HTML comment or code is not what a reader reads as the answer.
        ("---\nThe pool [c1].\n\nEvidence: x [c2].", "The pool [c1]."),
        ("<!-- run 42 -->\nThe pool [c1].\n\nEvidence: x [c2].", "The pool [c1]."),
    ],
)
def test_the_lead_is_the_first_section_or_the_first_paragraph(answer, expected):
    assert lead(answer) == expected


class FullStream(StringIO):
    """A stderr that cannot be written (``2>/dev/full``)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_full_or_closed_stderr_costs_the_progress_not_the_result(stderr, monkeypatch):
    """A job run with ``2>&-`` (Python then has no ``sys.stderr``) or ``2>/dev/full`` still gets its table
    and its exit code."""
    out = StringIO()
    if stderr == "closed":
        monkeypatch.setattr(sys, "stderr", None)

    call_command(
        "evaluate",
        "payment-db-pool",
        "--provider",
        "offline",
        stdout=out,
        stderr=FullStream() if stderr == "full" else None,
    )

    assert "3/3 causes named, 0 degraded, 0 failed" in out.getvalue()


def test_a_folder_of_packs_is_every_pack_in_it_sorted(tmp_path):
    folder = tmp_path / "packs"
    folder.mkdir()
    copy_with_missing_keyword(PACKS / "payment-db-pool", folder / "b-payment")
    shutil.copytree(PACKS / "cache-eviction-storm", folder / "a-cache")
    (folder / "notes").mkdir()  # no scenario.json: not a pack

    code, out, err = evaluate(str(folder))

    assert code == 1
    packs = [line.split()[0] for line in out.splitlines()[2:] if line.strip() and "causes named" not in line]
    assert packs == ["cache-eviction-storm"] * 3 + ["payment-db-pool"] * 3
    assert "[pack 1/2 question 1/3] cache-eviction-storm" in err
    assert "[pack 2/2 question 3/3] payment-db-pool" in err
    assert LoadedScenario.objects.get().name == "payment-db-pool"  # the last pack stays loaded


def test_the_table_truncates_long_and_chinese_questions():
    code, out, _ = evaluate("broker-disk-full")

    assert code == 0
    chinese = next(
        question["text"] for question in questions_of(PACKS / "broker-disk-full") if "根因" in question["text"]
    )
    row = next(line for line in out.splitlines() if "order-service 从" in line)
    assert chinese not in row and "…" in row


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no-such-pack"], "no such pack folder"),
        (["payment-db-pool", "no-such-pack"], "no such pack folder"),
        (["--provider", "openai", "--script", "x.json", "payment-db-pool"], "--script goes with --provider scripted"),
        (["--script", "/nonexistent/script.json", "payment-db-pool"], "script"),
    ],
)
def test_bad_arguments_exit_2_before_anything_is_loaded(args, message):
    with pytest.raises(CommandError) as error:
        call_command("evaluate", *args, stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 2
    assert message in str(error.value) and "\n" not in str(error.value)
    assert not LoadedScenario.objects.exists() and not DiagnosisRun.objects.exists()


def test_a_folder_without_packs_exits_2(tmp_path):
    (tmp_path / "empty").mkdir()

    with pytest.raises(CommandError) as error:
        call_command("evaluate", str(tmp_path), stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 2
    assert "neither a pack nor a folder of packs" in str(error.value)


def test_a_blank_question_is_refused_before_any_pack_is_loaded(tmp_path):
    pack = tmp_path / "blank"
    shutil.copytree(PACKS / "payment-db-pool", pack)
    manifest = json.loads((pack / "scenario.json").read_text())
    manifest["questions"].append({"text": "   ", "expect_keywords": []})
    (pack / "scenario.json").write_text(json.dumps(manifest))

    with pytest.raises(CommandError) as error:
        call_command("evaluate", "cache-eviction-storm", str(pack), stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 2
    assert "question 4: message must not be empty" in str(error.value)
    assert not LoadedScenario.objects.exists()


@pytest.mark.parametrize("where", ["reading", "loading"])
def test_ctrl_c_while_reading_or_loading_a_pack_is_a_message_and_exit_130(monkeypatch, where):
    from diagnosis.management.commands import evaluate as command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "read_pack" if where == "reading" else "load_scenario", interrupted)

    with pytest.raises(CommandError) as error:
        call_command("evaluate", "cache-eviction-storm", stdout=StringIO(), stderr=StringIO())

    assert error.value.returncode == 130
    assert str(error.value).startswith(f"interrupted while {where}")
    assert not LoadedScenario.objects.exists()


@pytest.mark.parametrize(
    ("fields", "named", "cell"),
    [
        # The safe fallback lists verified findings: the keywords may be there, a cause is not.
        (
            {"degraded": True, "final_answer": "Verified findings:\n- HikariPool-1 exhausted"},
            False,
            "NO (degraded: the safe fallback names no cause)",
        ),
        # A how-to answer is the knowledge base's passage, all of it.
        (
            {"intent": "KNOWLEDGE_QUERY", "final_answer": "Here is what it says:\n\n- Raise the HikariPool-1 size"},
            True,
            "yes",
        ),
        ({"final_answer": "Here is what it says:\n\n- Raise the HikariPool-1 size"}, False, "NO (not in the lead"),
    ],
)
def test_a_degraded_run_names_no_cause_and_a_how_to_answer_is_scored_whole(
    fields, named, cell, monkeypatch, owner, tmp_path
):
    from diagnosis.management.commands import evaluate as command
    from tests.tracing.factories import make_run, make_session

    run = make_run(make_session(owner))
    DiagnosisRun.objects.filter(pk=run.pk).update(**fields)
    run.refresh_from_db()
    monkeypatch.setattr(command, "run_question", lambda *args, **kwargs: run)
    pack = tmp_path / "pack"
    shutil.copytree(PACKS / "payment-db-pool", pack)
    manifest = json.loads((pack / "scenario.json").read_text())
    manifest["questions"] = [{"text": "How do I fix it?", "expect_keywords": ["hikaripool"]}]
    (pack / "scenario.json").write_text(json.dumps(manifest))

    _, result = evaluate_json(str(pack))
    _, table, _ = evaluate(str(pack))

    assert result["results"][0]["cause_named"] is named
    assert cell in table


@pytest.mark.parametrize("command", ["evaluate", "export_feedback"])
@pytest.mark.parametrize("stderr", ["full", "closed"])
def test_a_bad_argument_still_exits_2_when_stderr_cannot_be_written(command, stderr, monkeypatch):
    """Django writes the refusal to stderr before it exits with its code: a full or closed stderr made it 1."""
    from django.core.management import load_command_class

    if stderr == "closed":
        monkeypatch.setattr(sys, "stderr", None)
    instance = load_command_class("diagnosis", command)
    if stderr == "full":
        instance = type(instance)(stderr=FullStream())
    argv = {"evaluate": ["manage.py", "evaluate", "no-such-pack", "--provider", "offline"]}.get(
        command, ["manage.py", command]
    )

    with pytest.raises(SystemExit) as exit_info:
        instance.run_from_argv(argv)

    assert exit_info.value.code == 2


@pytest.mark.django_db
@pytest.mark.parametrize("wrap", [OutputWrapper, codecs.getwriter("utf-8")], ids=["wrapper", "codecs"])
def test_a_stderr_whose_write_answers_no_count_is_written_to(wrap):
    """A command's own ``self.stderr`` (an ``OutputWrapper``) handed to another, or a codecs writer, answers
    None from ``write``: the best-effort stream took that for a count and failed after its result."""
    written = StringIO() if wrap is OutputWrapper else BytesIO()

    call_command("export_feedback", "--wrong", stdout=StringIO(), stderr=wrap(written))

    text = written.getvalue()
    assert "question stub(s) from runs marked wrong" in (text.decode() if isinstance(text, bytes) else text)
