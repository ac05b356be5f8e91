"""The offline composer writes from allowed claims only and says how sure it is."""

from __future__ import annotations

from diagnosis.contracts import ComposerOutput, parse_output
from diagnosis.nodes.messages import composer_messages

QUESTION = "ledger-api invoice calls are failing since 08:30, why?"


def _claim(claim_id: str, fact: str, tool: str, *pairs: tuple[str, str], verification: str = "supported") -> dict:
    evidence = [{"tool_name": tool, "raw_path": path, "matched_text": text} for path, text in pairs]
    return {"claim_id": claim_id, "fact": fact, "verification": verification, "evidence": evidence}


SYMPTOM = _claim(
    "c1",
    "ledger-api logged a timeout",
    "query_logs",
    ("$.records[0].message", "POST /invoices failed: could not obtain connection: timeout after 2000ms"),
    ("$.records[0].service", "ledger-api"),
    ("$.records[0].ts", "2025-06-01T08:30:20Z"),
)
ROOT = _claim(
    "c2",
    "ledger-db refused clients",
    "query_logs",
    ("$.records[0].message", "FATAL: sorry, too many clients already (max_connections=100)"),
    ("$.records[0].service", "ledger-db"),
    ("$.records[0].ts", "2025-06-01T08:30:05Z"),
)
RUNBOOK = _claim(
    "c3",
    "The runbook describes it",
    "lookup_knowledge",
    ("$.chunks[1].title", "Runbook: ledger-db too many connections > Symptoms"),
    (
        "$.chunks[1].text",
        "ledger-db logs `FATAL: sorry, too many clients already` when every connection slot is taken.",
    ),
)


def _compose(models, claims: list[dict], verdict: str = "PASS", **lists: list[str]) -> dict:
    messages = composer_messages(
        question=QUESTION,
        effective_verdict=verdict,
        allowed_claims=claims,
        missing_info=lists.get("missing_info", []),
        evidence_gaps=lists.get("evidence_gaps", []),
        recommended_actions=lists.get("recommended_actions", []),
    )
    return parse_output(models.composer.complete(messages).content, ComposerOutput)


def test_it_names_the_service_whose_verified_errors_came_first_and_quotes_them(models):
    answer = _compose(models, [SYMPTOM, ROOT, RUNBOOK], recommended_actions=["Roll back the pool size change."])
    root_cause = answer["answer_markdown"].split("## Evidence")[0]
    assert root_cause.startswith("## Likely root cause\n**ledger-db**")
    assert '"FATAL: sorry, too many clients already (max_connections=100)" [c2]' in root_cause
    assert '"Runbook: ledger-db too many connections > Symptoms"' in root_cause and "[c3]" in root_cause
    assert "## Recommended actions\n- Roll back the pool size change." in answer["answer_markdown"]
    assert "## Uncertainty" not in answer["answer_markdown"]


def test_it_cites_every_allowed_claim_and_nothing_else(models):
    answer = _compose(models, [SYMPTOM, ROOT, RUNBOOK])
    assert answer["cited_claim_ids"] == ["c1", "c2", "c3"]
    for claim_id in ("c1", "c2", "c3"):
        assert f"- [{claim_id}]" in answer["answer_markdown"]


def test_low_confidence_says_what_is_uncertain(models):
    answer = _compose(
        models, [ROOT], "LOW_CONFID", evidence_gaps=["No verified metric of ledger-db shows a shift at the onset"]
    )["answer_markdown"]
    assert answer.startswith("## Likely root cause (low confidence)")
    assert "## Uncertainty" in answer
    assert "- No verified metric of ledger-db shows a shift at the onset" in answer


def test_a_rejected_diagnosis_states_that_no_root_cause_was_established(models):
    answer = _compose(models, [ROOT], "REJECT", evidence_gaps=["No runbook matched"])
    assert "No root cause could be established from the verified evidence." in answer["answer_markdown"]
    assert "- No runbook matched" in answer["answer_markdown"]
    assert answer["cited_claim_ids"] == []


def test_with_nothing_allowed_it_establishes_nothing(models):
    answer = _compose(models, [], "PASS")
    assert answer["cited_claim_ids"] == []
    assert "No root cause could be established" in answer["answer_markdown"]


def test_without_logs_or_runbooks_it_points_at_the_metric_shift(models):
    metric = _claim(
        "c4",
        "ledger-db metric active_connections read 40.0 then 100.0",
        "query_metrics",
        ("$.series[0].metric", "active_connections"),
        verification="indirect_support",
    )
    answer = _compose(models, [metric], "LOW_CONFID")["answer_markdown"]
    assert "a metric shift [c4]" in answer
    assert "- [c4] ledger-db metric active_connections read 40.0 then 100.0 (indirect support)" in answer
