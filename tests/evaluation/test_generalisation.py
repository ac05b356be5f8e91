"""The generalisation suite: ``manage.py evaluate`` over incidents the offline provider was never tuned on.

Each pack under ``packs/`` is a distinct failure class (a migration holding a metadata lock, a feature
flag, a campaign hitting a provider's rate limit, clock skew on one host, inode exhaustion, an expired
certificate, a dependency scaled to zero, a DNS change, a memory leak after a deploy, a noisy neighbour,
a configuration push, a slow downstream starving a thread pool, a node's connection-tracking table filling
up (seen only in the kernel's warnings), a credential rotation discarding the password a service still used, a
Kafka consumer group in a rebalance storm after its poll interval was lowered:
written by a reviewer before reading the provider's code), written with distractors: an unrelated deploy, routine warnings, runbooks of other
plausible causes. Three are Chinese (logs and runbooks). Every question must have its cause named - every ``expect_keywords``
entry in the released answer's lead - without degrading, in both database passes.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from diagnosis.language import language_of
from diagnosis.models import DiagnosisRun

pytestmark = pytest.mark.django_db

PACKS = sorted(path for path in (Path(__file__).parent / "packs").iterdir() if (path / "scenario.json").is_file())
CHANGE_HEADLINES = ("The likely root cause is a change shortly", "可能的根本原因是故障开始之前的变更")


def evaluate(pack: Path) -> dict:
    out = StringIO()
    call_command("evaluate", str(pack), "--provider", "offline", "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_the_suite_has_ten_distinct_failure_classes_two_of_them_in_chinese():
    assert len(PACKS) >= 10
    chinese = [pack for pack in PACKS if language_of((pack / "logs.jsonl").read_text(encoding="utf-8")) == "zh"]
    assert len(chinese) >= 2


@pytest.mark.parametrize("pack", PACKS, ids=[pack.name for pack in PACKS])
def test_every_cause_is_named_first_without_degrading(pack):
    """Every suite incident was triggered by a change: the answer's first sentence names it, in the asker's
    language, and every expected keyword of the cause is in the released answer."""
    report = evaluate(pack)

    for result in report["results"]:
        assert result["missing_keywords"] == [], result["question"]
        assert (result["status"], result["degraded"]) == ("SUCCESS", False), result["question"]
        answer = DiagnosisRun.objects.get(pk=result["run_id"]).final_answer
        first_sentence = answer.split("\n")[1]
        expected = CHANGE_HEADLINES[1] if language_of(result["question"]) == "zh" else CHANGE_HEADLINES[0]
        assert first_sentence.startswith(expected), first_sentence
    summary = report["summary"]
    assert summary["cause_named"] == summary["questions"] and (summary["degraded"], summary["failed"]) == (0, 0)
